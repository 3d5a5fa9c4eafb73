import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekLoopback
import SeekResilience
import Testing

/// A clock that only moves when told to, or when something sleeps on it.
final class FakeResilienceClock: Sendable {
    private let state: NIOLockedValueBox<(now: Date, slept: [Duration])>

    init(start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        state = NIOLockedValueBox((start, []))
    }

    var now: Date { state.withLockedValue { $0.now } }
    /// Every sleep so far, in order.
    var sleeps: [Duration] { state.withLockedValue { $0.slept } }

    func advance(_ duration: Duration) {
        state.withLockedValue { $0.now += duration.seconds }
    }

    var clock: ResilienceClock {
        ResilienceClock(
            now: { [self] in now },
            sleep: { [self] duration in
                try Task.checkCancellation()
                state.withLockedValue { state in
                    state.slept.append(duration)
                    state.now += duration.seconds
                }
            })
    }
}

/// A fresh directory under the temporary directory, for state files.
func resilienceTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("seek-resilience-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

let failure503 = BreakerOutcome.failure(reason: "HTTP 503", retryAfter: nil, rateLimited: false)

@Suite("Resilience: circuit breaker state machine")
struct ResilienceBreakerTests {
    let policy = BreakerPolicy(failureThreshold: 3, baseBackoff: .seconds(30), maxBackoff: .seconds(300), probeLease: .seconds(30))

    func breaker(_ fake: FakeResilienceClock, policy: BreakerPolicy? = nil, url: URL? = nil) throws -> CircuitBreaker {
        let file = try url ?? resilienceTemporaryDirectory().appendingPathComponent("breaker.json")
        return CircuitBreaker(url: file, policy: policy ?? self.policy, clock: fake.clock)
    }

    @Test("a closed breaker lets every call through")
    func closedAllows() async throws {
        let breaker = try breaker(FakeResilienceClock())
        #expect(await breaker.admit() == .allow)
        #expect(await breaker.phase == .closed)
    }

    @Test("three consecutive failures open the breaker for the base backoff")
    func threeFailuresOpen() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        for _ in 0..<2 {
            #expect(await breaker.admit() == .allow)
            await breaker.record(failure503, probe: false)
        }
        #expect(await breaker.phase == .closed)
        await breaker.record(failure503, probe: false)
        #expect(await breaker.phase == .open(until: fake.now + 30))
        guard case .reject(let until, let reason) = await breaker.admit() else {
            Issue.record("an open breaker must refuse calls")
            return
        }
        #expect(until == fake.now + 30)
        #expect(reason.contains("HTTP 503"))
    }

    @Test("a success between failures resets the count")
    func successResets() async throws {
        let breaker = try breaker(FakeResilienceClock())
        await breaker.record(failure503, probe: false)
        await breaker.record(failure503, probe: false)
        await breaker.record(.success, probe: false)
        await breaker.record(failure503, probe: false)
        await breaker.record(failure503, probe: false)
        #expect(await breaker.phase == .closed)
        #expect(await breaker.state.consecutiveFailures == 2)
    }

    @Test("after the backoff one probe goes through, and its success closes the breaker")
    func probeCloses() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        for _ in 0..<3 { await breaker.record(failure503, probe: false) }
        fake.advance(.seconds(29))
        #expect(await breaker.admit() != .allow)
        fake.advance(.seconds(1))
        #expect(await breaker.phase == .halfOpen)
        #expect(await breaker.admit() == .probe)
        #expect(await breaker.admit() == .reject(until: fake.now + 30, reason: "a trial call is in flight after 3 failures in a row, last: HTTP 503"))
        await breaker.record(.success, probe: true)
        #expect(await breaker.phase == .closed)
        #expect(await breaker.admit() == .allow)
    }

    @Test("a failed probe re-opens the breaker with a doubled backoff, capped")
    func failedProbeDoubles() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        for _ in 0..<3 { await breaker.record(failure503, probe: false) }
        var expected: [Double] = []
        var observed: [Double] = []
        for round in 0..<6 {
            guard let until = await breaker.phase.suspendedUntil else {
                Issue.record("the breaker should be open in round \(round)")
                return
            }
            observed.append(until.timeIntervalSince(fake.now))
            expected.append(min(300, 30 * pow(2, Double(round))))
            fake.advance(.seconds(until.timeIntervalSince(fake.now)))
            #expect(await breaker.admit() == .probe)
            await breaker.record(failure503, probe: true)
        }
        #expect(observed == expected)
    }

    @Test("a 429 with Retry-After opens the breaker at once, until the time the server gave")
    func retryAfterOpens() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        await breaker.record(.failure(reason: "rate limited", retryAfter: 30, rateLimited: true), probe: false)
        #expect(await breaker.phase == .open(until: fake.now + 30))
        #expect(await breaker.state.reason?.contains("asked to wait 30s") == true)
    }

    @Test("a 429 whose Retry-After is shorter than the backoff opens only until the time the server named")
    func shortRetryAfterHonoured() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        await breaker.record(.failure(reason: "rate limited", retryAfter: 6, rateLimited: true), probe: false)
        #expect(await breaker.phase == .open(until: fake.now + 6))
        fake.advance(.seconds(6))
        #expect(await breaker.admit() == .probe)
    }

    @Test("a Retry-After longer than the backoff wins; a shorter one does not shorten an open breaker")
    func retryAfterVersusBackoff() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        await breaker.record(.failure(reason: "HTTP 503", retryAfter: 600, rateLimited: false), probe: false)
        #expect(await breaker.phase == .open(until: fake.now + 600))
        await breaker.record(.failure(reason: "HTTP 503", retryAfter: 5, rateLimited: false), probe: false)
        #expect(await breaker.phase == .open(until: fake.now + 600))
    }

    @Test("a 429 without Retry-After opens at once for the base backoff")
    func rateLimitWithoutRetryAfter() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        await breaker.record(.failure(reason: "rate limited", retryAfter: nil, rateLimited: true), probe: false)
        #expect(await breaker.phase == .open(until: fake.now + 30))
    }

    @Test("neutral outcomes (no key, unsupported, invalid input) neither count nor close")
    func neutralOutcomes() async throws {
        let breaker = try breaker(FakeResilienceClock())
        await breaker.record(failure503, probe: false)
        await breaker.record(failure503, probe: false)
        for _ in 0..<5 { await breaker.record(.neutral, probe: false) }
        #expect(await breaker.state.consecutiveFailures == 2)
        await breaker.record(failure503, probe: false)
        #expect(await breaker.phase.suspendedUntil != nil)
    }

    @Test("a neutral probe frees the probe claim for the next call")
    func neutralProbeReleases() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        for _ in 0..<3 { await breaker.record(failure503, probe: false) }
        fake.advance(.seconds(30))
        #expect(await breaker.admit() == .probe)
        await breaker.record(.neutral, probe: true)
        #expect(await breaker.admit() == .probe)
    }

    @Test("a probe that never reports back frees its claim after the lease")
    func probeLeaseExpires() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        for _ in 0..<3 { await breaker.record(failure503, probe: false) }
        fake.advance(.seconds(30))
        #expect(await breaker.admit() == .probe)
        fake.advance(.seconds(31))
        #expect(await breaker.admit() == .probe)
    }

    @Test("half-open lets exactly one probe through across two breakers sharing a state file")
    func singleProbeAcrossInstances() async throws {
        let fake = FakeResilienceClock()
        let url = try resilienceTemporaryDirectory().appendingPathComponent("shared.json")
        let first = try breaker(fake, url: url)
        let second = try breaker(fake, url: url)
        for _ in 0..<3 { await first.record(failure503, probe: false) }
        #expect(await second.phase.suspendedUntil != nil)
        fake.advance(.seconds(30))
        let decisions = await withTaskGroup(of: BreakerDecision.self) { group in
            for index in 0..<20 {
                let breaker = index.isMultiple(of: 2) ? first : second
                group.addTask { await breaker.admit() }
            }
            return await group.reduce(into: [BreakerDecision]()) { $0.append($1) }
        }
        #expect(decisions.filter { $0 == .probe }.count == 1)
        #expect(decisions.filter { if case .reject = $0 { true } else { false } }.count == 19)
    }

    @Test("failures far apart do not add up while the breaker is closed")
    func failureWindow() async throws {
        let fake = FakeResilienceClock()
        let breaker = try breaker(fake)
        await breaker.record(failure503, probe: false)
        await breaker.record(failure503, probe: false)
        fake.advance(.seconds(7200))
        await breaker.record(failure503, probe: false)
        #expect(await breaker.phase == .closed)
        #expect(await breaker.state.consecutiveFailures == 1)
    }

    @Test("reset closes an open breaker and forgets its failures")
    func resetCloses() async throws {
        let breaker = try breaker(FakeResilienceClock())
        await breaker.record(.failure(reason: "rate limited", retryAfter: 3600, rateLimited: true), probe: false)
        #expect(await breaker.phase.suspendedUntil != nil)
        await breaker.store.reset(provider: breaker.key)
        #expect(await breaker.phase == .closed)
        #expect(await breaker.state == BreakerState())
    }
}
