import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekLoopback
import SeekResilience
import Testing

/// A transport that plays a script of answers (a status, or an error) and counts the requests it got.
final class ScriptedTransport: HTTPTransport {
    enum Answer: Sendable {
        case status(Int, headers: [String: String] = [:])
        case error(SeekError)
    }

    private let state: NIOLockedValueBox<(answers: [Answer], requests: [HTTPRequest])>

    init(_ answers: [Answer]) {
        state = NIOLockedValueBox((answers, []))
    }

    var requests: [HTTPRequest] { state.withLockedValue { $0.requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer = state.withLockedValue { state -> Answer in
            state.requests.append(request)
            return state.answers.isEmpty ? .status(200) : state.answers.removeFirst()
        }
        switch answer {
        case .status(let code, let headers): return HTTPResponse(status: code, headers: headers, body: Data("{}".utf8))
        case .error(let error): throw error
        }
    }
}

@Suite("Resilience: retries")
struct ResilienceRetryTests {
    let url = URL(string: "https://api.example/search") ?? URL(fileURLWithPath: "/")

    func request(timeout: Duration = .seconds(10), method: String = "GET") -> HTTPRequest {
        HTTPRequest(url: url, method: method, timeout: timeout)
    }

    @Test("connection errors are retried up to the attempt limit, then the error is thrown")
    func retriesNetworkErrors() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport(Array(repeating: .error(SeekError(.network, detail: "connection refused")), count: 5))
        let transport = RetryingTransport(base, policy: RetryPolicy(maxAttempts: 3), clock: fake.clock)
        await #expect(throws: SeekError(.network, detail: "connection refused")) { try await transport.send(request()) }
        #expect(base.requests.count == 3)
        #expect(fake.sleeps.count == 2)
    }

    @Test("502, 503 and 504 are retried; a later success is returned", arguments: [502, 503, 504])
    func retriesGatewayErrors(status: Int) async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([.status(status), .status(200)])
        let transport = RetryingTransport(base, clock: fake.clock)
        let response = try await transport.send(request())
        #expect(response.status == 200)
        #expect(base.requests.count == 2)
    }

    @Test("after the last attempt the last 5xx response is returned for the provider to report")
    func returnsLastResponse() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport(Array(repeating: .status(503), count: 5))
        let response = try await RetryingTransport(base, policy: RetryPolicy(maxAttempts: 3), clock: fake.clock).send(request())
        #expect(response.status == 503)
        #expect(base.requests.count == 3)
    }

    @Test("other statuses are never retried", arguments: [200, 400, 401, 403, 404, 410, 422, 500])
    func noRetryOnOtherStatuses(status: Int) async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([.status(status), .status(200)])
        let response = try await RetryingTransport(base, clock: fake.clock).send(request())
        #expect(response.status == status)
        #expect(base.requests.count == 1)
        #expect(fake.sleeps.isEmpty)
    }

    @Test("timeouts, oversize bodies and cancellations are never retried", arguments: [
        SeekError.Kind.timeout(seconds: 1), .bodyTooLarge(limitBytes: 10), .cancelled,
    ])
    func noRetryOnOtherErrors(kind: SeekError.Kind) async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([.error(SeekError(kind)), .status(200)])
        await #expect(throws: SeekError(kind)) { try await RetryingTransport(base, clock: fake.clock).send(request()) }
        #expect(base.requests.count == 1)
    }

    @Test("only GETs are retried")
    func onlyGET() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([.status(503), .status(200)])
        let response = try await RetryingTransport(base, clock: fake.clock).send(request(method: "POST"))
        #expect(response.status == 503)
        #expect(base.requests.count == 1)
    }

    @Test("waits are full-jitter exponential backoff: random, below base × 2^n, capped")
    func jitteredBackoff() async throws {
        let fake = FakeResilienceClock()
        let ceilings = NIOLockedValueBox<[Double]>([])
        let policy = RetryPolicy(maxAttempts: 6, baseDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        let base = ScriptedTransport(Array(repeating: .status(502), count: 6))
        let transport = RetryingTransport(base, policy: policy, clock: fake.clock) { upper in
            ceilings.withLockedValue { $0.append(upper) }
            return upper * 0.5
        }
        _ = try await transport.send(request(timeout: .seconds(60)))
        #expect(ceilings.withLockedValue { $0 } == [0.1, 0.2, 0.4, 0.5, 0.5])
        #expect(fake.sleeps == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(250), .milliseconds(250)])
    }

    @Test("the default jitter stays within its ceiling and varies")
    func defaultJitter() async throws {
        var waits: Set<Duration> = []
        for _ in 0..<8 {
            let fake = FakeResilienceClock()
            let base = ScriptedTransport([.status(503), .status(200)])
            _ = try await RetryingTransport(base, policy: RetryPolicy(baseDelay: .seconds(1)), clock: fake.clock).send(request())
            let wait = try #require(fake.sleeps.first)
            #expect(wait >= .zero && wait <= .seconds(1))
            waits.insert(wait)
        }
        #expect(waits.count > 1)
    }

    @Test("retries never go past the request's own time budget")
    func respectsBudget() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport(Array(repeating: .status(503), count: 10))
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(1), minimumAttemptTime: .milliseconds(250))
        let transport = RetryingTransport(base, policy: policy, clock: fake.clock) { $0 }
        let start = fake.now
        let response = try await transport.send(request(timeout: .milliseconds(2500)))
        #expect(response.status == 503)
        // 1 s + 1 s of waiting fit in 2.5 s with 250 ms to spare for each attempt; a third wait would not.
        #expect(base.requests.count == 3)
        #expect(fake.now.timeIntervalSince(start) <= 2.5)
        // Each retry only gets what is left of the budget.
        #expect(base.requests.map(\.timeout) == [.milliseconds(2500), .milliseconds(1500), .milliseconds(500)])
    }

    @Test("a 429 is retried only when its Retry-After is short")
    func rateLimitRetry() async throws {
        let fake = FakeResilienceClock()
        let short = ScriptedTransport([.status(429, headers: ["Retry-After": "1"]), .status(200)])
        #expect(try await RetryingTransport(short, clock: fake.clock).send(request()).status == 200)
        #expect(fake.sleeps == [.seconds(1)])

        let long = ScriptedTransport([.status(429, headers: ["Retry-After": "30"]), .status(200)])
        #expect(try await RetryingTransport(long, clock: fake.clock).send(request()).status == 429)
        #expect(long.requests.count == 1)

        let none = ScriptedTransport([.status(429), .status(200)])
        #expect(try await RetryingTransport(none, clock: fake.clock).send(request()).status == 429)
        #expect(none.requests.count == 1)
    }

    @Test("a 503 with a long Retry-After is not retried: the breaker cools the provider down instead")
    func long503RetryAfter() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([.status(503, headers: ["Retry-After": "120"]), .status(200)])
        let response = try await RetryingTransport(base, clock: fake.clock).send(request())
        #expect(response.status == 503)
        #expect(base.requests.count == 1)
        #expect(response.retryAfterDate(now: fake.now) == fake.now + 120)
    }

    @Test("a cancelled task stops retrying")
    func cancellationStops() async throws {
        let base = ScriptedTransport(Array(repeating: .status(503), count: 10))
        let transport = RetryingTransport(base, policy: RetryPolicy(maxAttempts: 10, baseDelay: .seconds(30), maxDelay: .seconds(30))) { $0 }
        let task = Task { try await transport.send(request(timeout: .seconds(60))) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let started = ContinuousClock.now
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(base.requests.count == 1)
    }
}
