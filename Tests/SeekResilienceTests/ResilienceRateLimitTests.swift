import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekResilience
import SeekTesting
import Testing

@Suite("Resilience: rate limits")
struct ResilienceRateLimitTests {
    let url = URL(string: "https://api.example/search") ?? URL(fileURLWithPath: "/")

    @Test("a token bucket spends its burst at once, then spaces requests at the rate")
    func bucketSpacing() {
        let start = Date(timeIntervalSince1970: 1000)
        let limit = RateLimit(requests: 2, per: .seconds(1), burst: 3)
        var bucket = TokenBucketState(tokens: limit.burst, updatedAt: start)
        let waits = (0..<6).map { _ in bucket.reserve(at: start, limit: limit, maxWait: 60) }
        #expect(waits == [.granted(wait: 0), .granted(wait: 0), .granted(wait: 0),
                          .granted(wait: 0.5), .granted(wait: 1), .granted(wait: 1.5)])
    }

    @Test("the bucket refills with time, up to its burst")
    func bucketRefills() {
        let start = Date(timeIntervalSince1970: 1000)
        let limit = RateLimit(requests: 1, per: .seconds(1), burst: 2)
        var bucket = TokenBucketState(tokens: 0, updatedAt: start)
        #expect(bucket.reserve(at: start + 10, limit: limit, maxWait: 0) == .granted(wait: 0))
        #expect(bucket.reserve(at: start + 10, limit: limit, maxWait: 0) == .granted(wait: 0))
        #expect(bucket.reserve(at: start + 10, limit: limit, maxWait: 0) == .refused(wait: 1))
    }

    @Test("a wait longer than the caller can afford takes nothing")
    func refusalTakesNothing() {
        let start = Date(timeIntervalSince1970: 1000)
        let limit = RateLimit(requests: 100, per: .seconds(3600))
        var bucket = TokenBucketState(tokens: 0, updatedAt: start)
        #expect(bucket.reserve(at: start, limit: limit, maxWait: 10) == .refused(wait: 36))
        #expect(bucket.tokens == 0)
    }

    @Test("rates parse from the environment's and the config file's forms", arguments: [
        ("2", RateLimit(requests: 2)),
        ("3/s", RateLimit(requests: 3)),
        ("100/h", RateLimit(requests: 100, per: .seconds(3600))),
        ("5000/d", RateLimit(requests: 5000, per: .seconds(86_400))),
        ("30/60", RateLimit(requests: 30, per: .seconds(60))),
        ("3/s, burst=20", RateLimit(requests: 3, per: .seconds(1), burst: 20)),
    ])
    func parsesRates(text: String, expected: RateLimit) {
        #expect(RateLimit.parse(text) == .some(expected))
    }

    @Test("off, none and 0 mean no limit; nonsense is rejected")
    func parsesOffAndNonsense() {
        #expect(RateLimit.parse("off") == .some(nil))
        #expect(RateLimit.parse("0") == .some(nil))
        #expect(RateLimit.parse("fast") == nil)
        #expect(RateLimit.parse("2/fortnight") == nil)
        #expect(RateLimit.parse("-1") == nil)
        #expect(RateLimit.parse(JSONValue.object(["requests": .number(100), "per": .number(3600)]))
            == .some(RateLimit(requests: 100, per: .seconds(3600))))
        #expect(RateLimit.parse(JSONValue.number(2)) == .some(RateLimit(requests: 2)))
        #expect(RateLimit.parse(JSONValue.object(["per": .number(3)])) == nil)
    }

    @Test("a per-second rate without burst is strict spacing; a longer quota may be spent at once")
    func defaultBurst() {
        #expect(RateLimit(requests: 3).burst == 1)
        #expect(RateLimit(requests: 100, per: .seconds(3600)).burst == 100)
        #expect(RateLimit(requests: 100, per: .seconds(3600)).description == "100 requests per hour")
    }

    @Test("the transport sleeps for its token, so requests leave at the rate")
    func transportWaits() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([])
        let transport = RateLimitedTransport(
            base, limit: RateLimit(requests: 4), stateDirectory: try resilienceTemporaryDirectory(), clock: fake.clock)
        for _ in 0..<5 { _ = try await transport.send(HTTPRequest(url: url)) }
        #expect(base.requests.count == 5)
        #expect(fake.sleeps == Array(repeating: .milliseconds(250), count: 4))
    }

    @Test("two transports sharing a state directory share the host's bucket (as two processes do)")
    func sharedAcrossInstances() async throws {
        let fake = FakeResilienceClock()
        let directory = try resilienceTemporaryDirectory()
        let base = ScriptedTransport([])
        let limit = RateLimit(requests: 2)
        let first = RateLimitedTransport(base, limit: limit, stateDirectory: directory, clock: fake.clock)
        let second = RateLimitedTransport(base, limit: limit, stateDirectory: directory, clock: fake.clock)
        // No time passes between the two: the second must wait for the first's token to refill.
        let firstWait = await first.store.reserve("api.example", limit: limit, maxWait: 10)
        let secondWait = await second.store.reserve("api.example", limit: limit, maxWait: 10)
        #expect(firstWait == .granted(wait: 0))
        #expect(secondWait == .granted(wait: 0.5))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("ratelimit/api.example.json").path))
    }

    @Test("hosts have separate buckets")
    func perHost() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([])
        let transport = RateLimitedTransport(
            base, limit: RateLimit(requests: 1), stateDirectory: try resilienceTemporaryDirectory(), clock: fake.clock)
        for host in ["a.example", "b.example", "c.example"] {
            _ = try await transport.send(HTTPRequest(url: URL(string: "https://\(host)/x") ?? url))
        }
        #expect(fake.sleeps.isEmpty)
    }

    @Test("a token further away than the request's timeout fails at once with rateLimited, sending nothing")
    func refusesBeyondTimeout() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([])
        let transport = RateLimitedTransport(
            base, limit: RateLimit(requests: 100, per: .seconds(3600), burst: 1),
            stateDirectory: try resilienceTemporaryDirectory(), clock: fake.clock)
        _ = try await transport.send(HTTPRequest(url: url, timeout: .seconds(10)))
        let refused = await #expect(throws: SeekError.self) {
            try await transport.send(HTTPRequest(url: url, timeout: .seconds(10)))
        }
        #expect(base.requests.count == 1)
        #expect(refused?.throttledLocally == true)
        do {
            _ = try await transport.send(HTTPRequest(url: url, timeout: .seconds(10)))
        } catch let error as SeekError {
            #expect(error.kind == .rateLimited(retryAfterSeconds: 36))
            #expect(error.cause.contains("seek's own limit for api.example"))
        }
    }

    @Test("a default limit spares loopback hosts; an explicit one applies to them too")
    func loopbackExemption() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedTransport([])
        let local = URL(string: "http://127.0.0.1:8080/x") ?? url
        let directory = try resilienceTemporaryDirectory()
        let exempt = RateLimitedTransport(base, limit: RateLimit(requests: 1), stateDirectory: directory, exemptLoopback: true, clock: fake.clock)
        for _ in 0..<3 { _ = try await exempt.send(HTTPRequest(url: local)) }
        #expect(fake.sleeps.isEmpty)
        let strict = RateLimitedTransport(base, limit: RateLimit(requests: 1), stateDirectory: directory, clock: fake.clock)
        for _ in 0..<3 { _ = try await strict.send(HTTPRequest(url: local)) }
        #expect(fake.sleeps == [.seconds(1), .seconds(1)])
    }

    @Test("waiting for a token stops when the task is cancelled")
    func cancelledWait() async throws {
        let base = ScriptedTransport([])
        let transport = RateLimitedTransport(
            base, limit: RateLimit(requests: 1, per: .seconds(20)), stateDirectory: try resilienceTemporaryDirectory())
        let request = HTTPRequest(url: url, timeout: .seconds(60))
        _ = try await transport.send(request)
        let task = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(base.requests.count == 1)
    }

    @Test("concurrent requests of one process, over real HTTP, arrive no faster than the limit")
    func realRequestsAreSpaced() async throws {
        let server = try await FixtureServer.start()
        let arrivals = NIOLockedValueBox<[Date]>([])
        server.route("/limited", handler: { _ in
            arrivals.withLockedValue { $0.append(Date()) }
            return .json("{}")
        })
        let http = AsyncHTTPTransport()
        let target = server.url("/limited")
        // A first request outside the limit opens a connection, so connecting does not bunch the others up.
        _ = try await http.send(HTTPRequest(url: target))
        arrivals.withLockedValue { $0.removeAll() }
        let transport = RateLimitedTransport(http, limit: RateLimit(requests: 5), stateDirectory: try resilienceTemporaryDirectory())
        let started = Date()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { _ = try await transport.send(HTTPRequest(url: target)) } }
            try await group.waitForAll()
        }
        try await http.shutdown()
        try await server.shutdown()
        let times = arrivals.withLockedValue { $0 }.sorted()
        #expect(times.count == 6)
        // Six requests at 5 a second take at least a second; the arrivals show no pair sent at once.
        #expect(Date().timeIntervalSince(started) >= 1.0)
        #expect((times.last ?? started).timeIntervalSince(times.first ?? started) >= 1.0 - 0.15)
    }
}

@Suite("Resilience: buckets in memory")
struct MemoryRateLimitStoreTests {
    @Test("one bucket per key, and full buckets are forgotten as the store grows")
    func forgetsFullBuckets() async throws {
        let fake = FakeResilienceClock()
        let store = MemoryRateLimitStore(clock: fake.clock, sweepAbove: 100)
        let limit = RateLimit(requests: 1, per: .seconds(1), burst: 1)
        #expect(await store.reserve("a", limit: limit, maxWait: 0) == .granted(wait: 0))
        guard case .refused = await store.reserve("a", limit: limit, maxWait: 0) else {
            Issue.record("a spent bucket refuses")
            return
        }
        for index in 0..<150 { _ = await store.reserve("client-\(index)", limit: limit, maxWait: 0) }
        fake.advance(.seconds(5))
        _ = await store.reserve("late", limit: limit, maxWait: 0)
        #expect(store.count < 100)
        #expect(await store.reserve("a", limit: limit, maxWait: 0) == .granted(wait: 0))
    }
}
