import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekResilience
import SeekTesting
import Testing

/// A provider that plays a script of answers (an error or a number of items) and counts its calls.
final class ScriptedProvider: SearchProvider {
    let descriptor: ProviderDescriptor
    let configured: Bool
    private let script: NIOLockedValueBox<(answers: [SeekError?], calls: Int)>
    let delay: Duration

    init(id: String = "scripted", answers: [SeekError?] = [], configured: Bool = true, delay: Duration = .zero) {
        descriptor = ProviderDescriptor(id: id, name: id, kinds: [.book], capabilities: [.search], paging: .page)
        self.configured = configured
        self.delay = delay
        script = NIOLockedValueBox((answers, 0))
    }

    var isConfigured: Bool { configured }
    var endpoint: String { "https://\(descriptor.id).example" }
    var calls: Int { script.withLockedValue { $0.calls } }

    /// Queues more answers: nil is a page with one item, an error is thrown.
    func then(_ answers: SeekError?...) {
        script.withLockedValue { $0.answers += answers }
    }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let answer = script.withLockedValue { script -> SeekError? in
            script.calls += 1
            return script.answers.isEmpty ? nil : script.answers.removeFirst()
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if let answer { throw answer }
        let item = Item(id: ItemID(provider: descriptor.id, value: "1"), kind: .book, title: request.query)
        return SearchPage(items: [item])
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        throw SeekError(.notFound, provider: descriptor.id)
    }
}

/// A provider that GETs one JSON URL through a `ProviderClient`, as real providers do.
struct ClientBackedProvider: SearchProvider {
    let descriptor = ProviderDescriptor(id: "http", name: "HTTP", kinds: [.book], capabilities: [.search], paging: .page)
    let url: URL
    let client: ProviderClient

    init(url: URL, transport: any HTTPTransport, timeout: Duration = .seconds(5)) {
        self.url = url
        self.client = ProviderClient(provider: "http", transport: transport, timeout: timeout)
    }

    var endpoint: String { url.absoluteString }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        _ = try await client.get(url)
        return SearchPage(items: [])
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        throw SeekError(.notFound, provider: "http")
    }
}

@Suite("Resilience: the call middleware")
struct ResilienceProviderTests {
    let policy = BreakerPolicy(failureThreshold: 3, baseBackoff: .seconds(30), maxBackoff: .seconds(300))

    func resilient(
        _ base: any SearchProvider, _ fake: FakeResilienceClock, directory: URL? = nil
    ) throws -> (ResilientProvider, ProviderStatsStore) {
        let dir = try directory ?? resilienceTemporaryDirectory()
        let stats = ProviderStatsStore(url: dir.appendingPathComponent("stats.json"), now: { fake.now })
        let breaker = CircuitBreaker(url: dir.appendingPathComponent("breaker.json"), policy: policy, clock: fake.clock)
        let middleware = ResilienceMiddleware(
            breakers: [base.descriptor.id: breaker], stats: stats, hint: { _ in "reset with seek providers --reset" })
        return (ResilientProvider(calls: PipelinedProvider(base, through: [middleware]), breaker: breaker), stats)
    }

    @Test("three 503s open the breaker; the next call is refused without calling the provider")
    func threeFailuresSuspend() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(answers: Array(repeating: SeekError(.httpStatus(503), provider: "scripted"), count: 3))
        let (provider, _) = try resilient(base, fake)
        for _ in 0..<3 {
            await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "x")) }
        }
        #expect(base.calls == 3)
        do {
            _ = try await provider.search(SearchRequest(query: "x"))
            Issue.record("a suspended provider must fail")
        } catch let error as SeekError {
            #expect(error.kind == .suspended(until: fake.now + 30))
            #expect(error.provider == "scripted")
            #expect(ProviderStatus(error: error) == .suspended)
            #expect(error.cause.hasPrefix("suspended until "))
            #expect(error.cause.contains("--reset"))
        }
        #expect(base.calls == 3)
    }

    @Test("after the backoff, one probe call closes the breaker again")
    func probeAfterBackoffCloses() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(answers: Array(repeating: SeekError(.httpStatus(503), provider: "scripted"), count: 3))
        let (provider, _) = try resilient(base, fake)
        for _ in 0..<3 { _ = try? await provider.search(SearchRequest(query: "x")) }
        fake.advance(.seconds(30))
        let page = try await provider.search(SearchRequest(query: "x"))
        #expect(page.items.count == 1)
        #expect(base.calls == 4)
        #expect(await provider.breaker.phase == .closed)
    }

    @Test("a missing key, not found, invalid input and unsupported never open the breaker", arguments: [
        SeekError.Kind.missingKey(variable: "SEEK_X_KEY"), .notFound, .invalidInput, .unsupported(capability: "trending"),
        .unauthorized, .httpStatus(404),
    ])
    func harmlessErrors(kind: SeekError.Kind) async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(answers: Array(repeating: SeekError(kind, provider: "scripted"), count: 5))
        let (provider, _) = try resilient(base, fake)
        for _ in 0..<5 { _ = try? await provider.search(SearchRequest(query: "x")) }
        #expect(base.calls == 5)
        #expect(await provider.breaker.phase == .closed)
    }

    @Test("timeouts, connection errors, garbage and 5xx count as failures", arguments: [
        SeekError.Kind.timeout(seconds: 1), .network, .undecodable, .bodyTooLarge(limitBytes: 10), .httpStatus(500),
    ])
    func failingErrors(kind: SeekError.Kind) async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(answers: Array(repeating: SeekError(kind, provider: "scripted"), count: 3))
        let (provider, _) = try resilient(base, fake)
        for _ in 0..<3 { _ = try? await provider.search(SearchRequest(query: "x")) }
        #expect(await provider.breaker.phase.suspendedUntil != nil)
    }

    @Test("the Retry-After date a provider's error carries reaches the breaker: one 503 cools it down until then")
    func retryAfterFromTheError() async throws {
        let fake = FakeResilienceClock()
        let until = fake.now + 300
        let base = ScriptedProvider(answers: [SeekError(.httpStatus(503), provider: "scripted", retryAfter: until)])
        let (provider, _) = try resilient(base, fake)
        await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "x")) }
        #expect(await provider.breaker.phase.suspendedUntil == until)
    }

    @Test("a 503 whose error carries no Retry-After date does not open the breaker on its own")
    func noRetryAfterInTheError() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(answers: [SeekError(.httpStatus(503), provider: "scripted")])
        let (provider, _) = try resilient(base, fake)
        await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "x")) }
        #expect(await provider.breaker.phase == .closed)
    }

    @Test("an error saying seek's own rate limit refused the request never opens the breaker")
    func throttledLocallyIsNeutral() async throws {
        let fake = FakeResilienceClock()
        let refused = SeekError(.rateLimited(retryAfterSeconds: 36), provider: "scripted", throttledLocally: true)
        let base = ScriptedProvider(answers: Array(repeating: refused, count: 5))
        let (provider, _) = try resilient(base, fake)
        for _ in 0..<5 { _ = try? await provider.search(SearchRequest(query: "x")) }
        #expect(base.calls == 5)
        #expect(await provider.breaker.phase == .closed)
    }

    @Test("an unconfigured provider is not guarded: it says 'no key' even while its breaker is open")
    func unconfiguredPassesThrough() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(answers: [SeekError(.missingKey(variable: "SEEK_X_KEY"), provider: "scripted")], configured: false)
        let (provider, _) = try resilient(base, fake)
        await provider.breaker.record(.failure(reason: "rate limited", retryAfter: 60, rateLimited: true), probe: false)
        await #expect(throws: SeekError(.missingKey(variable: "SEEK_X_KEY"), provider: "scripted")) {
            try await provider.search(SearchRequest(query: "x"))
        }
    }

    @Test("a call cancelled by the search's deadline counts as a timeout in the stats and the breaker")
    func deadlineCountsAsTimeout() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(delay: .seconds(30))
        let (provider, stats) = try resilient(base, fake)
        await #expect(throws: SeekError.self) {
            try await Deadline.race(.milliseconds(100)) { try await provider.search(SearchRequest(query: "x")) }
        }
        // The deadline does not wait for the cancelled call to wind down; its outcome is recorded as it does.
        var records: [ProviderCallRecord] = []
        for _ in 0..<100 where records.isEmpty {
            records = stats.records()["scripted"] ?? []
            if records.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(records.map(\.status) == [.timeout])
        #expect(await provider.breaker.state.consecutiveFailures == 1)
    }

    @Test("every call's outcome, time and count go to the stats")
    func recordsStats() async throws {
        let fake = FakeResilienceClock()
        let base = ScriptedProvider(answers: [nil, SeekError(.httpStatus(500), provider: "scripted", detail: "boom"), nil])
        let (provider, stats) = try resilient(base, fake)
        for _ in 0..<3 { _ = try? await provider.search(SearchRequest(query: "x")) }
        let summary = stats.summary(for: "scripted")
        #expect(summary.calls == 3)
        #expect(summary.successes == 2)
        #expect(summary.lastError == "HTTP 500: boom")
        #expect(summary.p50Ms != nil && summary.p95Ms != nil)
    }

    @Test("a 429 with Retry-After as an HTTP date suspends the provider until that date")
    func retryAfterHTTPDate() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let fake = FakeResilienceClock(start: Date())
        let until = Date(timeIntervalSince1970: (fake.now.timeIntervalSince1970 + 120).rounded(.down))
        server.route("/api", fault: .status(429, body: "{}", headers: [("Retry-After", HTTPDate.format(until))]))
        let retrying = RetryingTransport(transport, clock: fake.clock)
        let base = ClientBackedProvider(url: server.url("/api"), transport: retrying)
        let (provider, _) = try resilient(base, fake)
        await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "x")) }
        let suspendedUntil = try #require(await provider.breaker.phase.suspendedUntil)
        #expect(abs(suspendedUntil.timeIntervalSince(until)) < 1)
        let second = await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "x")) }
        #expect(second.map { ProviderStatus(error: $0) } == .suspended)
        #expect(server.requestCount(path: "/api") == 1)
        try await transport.shutdown()
        try await server.shutdown()
    }

    @Test("a 503 whose Retry-After is too long to wait for cools the provider down for that long")
    func retryAfterOn503() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let fake = FakeResilienceClock(start: Date())
        server.route("/api", fault: .status(503, body: "maintenance", headers: [("Retry-After", "45")]))
        let base = ClientBackedProvider(url: server.url("/api"), transport: RetryingTransport(transport, clock: fake.clock))
        let (provider, _) = try resilient(base, fake)
        await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "x")) }
        let until = try #require(await provider.breaker.phase.suspendedUntil)
        #expect(abs(until.timeIntervalSince(fake.now) - 45) < 2)
        #expect(server.requestCount(path: "/api") == 1)
        try await transport.shutdown()
        try await server.shutdown()
    }
}

/// A provider seen through the resilience middleware alone, with the breaker the middleware keeps for it.
struct ResilientProvider: SearchProvider {
    let calls: PipelinedProvider
    let breaker: CircuitBreaker

    var descriptor: ProviderDescriptor { calls.descriptor }
    var isConfigured: Bool { calls.isConfigured }
    var endpoint: String { calls.endpoint }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        try await calls.search(request, options: options)
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        try await calls.detail(id, options: options)
    }

    func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        try await calls.trending(limit: limit, options: options)
    }

    func suggest(_ prefix: String, limit: Int, options: CallOptions) async throws -> [String] {
        try await calls.suggest(prefix, limit: limit, options: options)
    }
}
