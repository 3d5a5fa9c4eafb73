import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekIdentity
import SeekKit
import SeekLoopback
import SeekStore
import SeekTesting
import Testing

/// A caching provider over a scripted upstream, with a hand-moved clock.
struct CacheFixture {
    let store = TemporaryStore()
    let upstream = ScriptedProvider()
    let clock = TestClock()
    let events = EventLog()

    func provider(_ policy: CachePolicy = CachePolicy()) -> CachingProvider {
        provider(policy, cache: SQLiteResponseCache(database: store.database, retention: policy.retention))
    }

    /// A provider whose cache writes wait at a gate until it opens, and the writes it leaves pending.
    func providerWithGatedWrites() -> (CachingProvider, GatedCache, PendingCacheWrites) {
        let gated = GatedCache(SQLiteResponseCache(database: store.database))
        let writes = PendingCacheWrites()
        return (CachingProvider(wrapping: upstream, cache: gated, writes: writes, now: clock.closure), gated, writes)
    }

    func provider(_ policy: CachePolicy, cache: any ResponseCache, staleAfter: Duration? = nil) -> CachingProvider {
        let events = self.events
        return CachingProvider(
            wrapping: upstream, cache: cache, policy: policy, staleAfter: staleAfter, now: clock.closure
        ) { event in
            let text: String
            switch event {
            case .servedStaleDetail(let id, let error): text = "stale \(id): \(error.cause)"
            case .unavailable(let error): text = "unavailable: \(error)"
            }
            events.append(text)
        }
    }

    var reported: [String] { events.lines }

    func countByRemovingAll() async throws -> Int {
        try await SQLiteResponseCache(database: store.database).removeEntries(storedBefore: .distantFuture)
    }
}

/// What the caching provider reported, in order.
final class EventLog: Sendable {
    private let storage = NIOLockedValueBox<[String]>([])
    func append(_ line: String) { storage.withLockedValue { $0.append(line) } }
    var lines: [String] { storage.withLockedValue { $0 } }
}

@Suite("Caching provider")
struct CachingProviderTests {
    let request = SearchRequest(query: "fox", limit: 2)

    @Test("a second identical search within the TTL makes no upstream call")
    func freshHit() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        let first = try await provider.search(request)
        fixture.upstream.bumpVersion()
        fixture.clock.advance(599)
        let second = try await provider.search(request)
        #expect(fixture.upstream.searchCalls == 1)
        #expect(second == first)
        #expect(second.staleBecause == nil)
        #expect(second.total == 40 && second.next == "2")
    }

    @Test("the cache survives a new connection, as in the next process")
    func sharedAcrossConnections() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        _ = try await fixture.provider().search(request)
        let other = CachingProvider(
            wrapping: fixture.upstream, cache: SQLiteResponseCache(database: fixture.store.secondConnection()),
            now: fixture.clock.closure)
        _ = try await other.search(request)
        #expect(fixture.upstream.searchCalls == 1)
    }

    @Test("with pending writes, a fresh answer returns before it is stored, and is stored once they are waited for",
          .timeLimit(.minutes(1)))
    func deferredWrites() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let (provider, gated, writes) = fixture.providerWithGatedWrites()
        _ = try await provider.search(request)
        #expect(try await gated.base.entry(forKey: CacheKey.search(provider: provider.descriptor.id, endpoint: provider.answerScope, request: request)) == nil)
        gated.open()
        await writes.wait()
        _ = try await fixture.provider().search(request)
        #expect(fixture.upstream.searchCalls == 1)
    }

    @Test("a finished cache write is forgotten: a long-lived server holds only the writes under way",
          .timeLimit(.minutes(1)))
    func finishedWritesAreForgotten() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let (provider, gated, writes) = fixture.providerWithGatedWrites()
        for page in 1...5 {
            _ = try await provider.search(SearchRequest(query: "harbor", page: page))
        }
        #expect(writes.count == 5)
        gated.open()
        await writes.wait()
        #expect(writes.count == 0)
    }

    @Test("waiting for pending writes with none tracked returns at once", .timeLimit(.minutes(1)))
    func noPendingWrites() async {
        let writes = PendingCacheWrites()
        let waited = await ContinuousClock().measure { await writes.wait() }
        #expect(waited < .seconds(1), "waited \(waited) with nothing to wait for")
        #expect(writes.count == 0)
    }

    @Test("queries differing only in case and spacing share an entry; page, cursor and limit do not")
    func keys() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        _ = try await provider.search(SearchRequest(query: "Fantastic  Fox", limit: 2))
        _ = try await provider.search(SearchRequest(query: " fantastic fox", limit: 2))
        #expect(fixture.upstream.searchCalls == 1)
        _ = try await provider.search(SearchRequest(query: "fantastic fox", page: 2, limit: 2))
        _ = try await provider.search(SearchRequest(query: "fantastic fox", cursor: "20", limit: 2))
        _ = try await provider.search(SearchRequest(query: "fantastic fox", limit: 3))
        _ = try await provider.search(SearchRequest(query: "fantastic fox", limit: 2, language: "ko"))
        #expect(fixture.upstream.searchCalls == 5)
    }

    @Test("an expired entry is fetched again and replaced")
    func expired() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        _ = try await provider.search(request)
        fixture.upstream.bumpVersion()
        fixture.clock.advance(601)
        let refreshed = try await provider.search(request)
        #expect(fixture.upstream.searchCalls == 2)
        #expect(refreshed.items.first?.title == "fox 1 v2")
        _ = try await provider.search(request)
        #expect(fixture.upstream.searchCalls == 2)
    }

    @Test("when upstream fails, an expired entry is served marked stale with the failure")
    func staleOnFailure() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        let original = try await provider.search(request)
        fixture.clock.advance(3 * 86_400)
        let failure = SeekError(.httpStatus(503), provider: "scripted")
        fixture.upstream.fail(with: failure)
        let stale = try await provider.search(request)
        #expect(stale.items == original.items)
        #expect(stale.staleBecause == failure)
    }

    @Test("the engine reports a stale page as the failure's status, marked stale, with its items")
    func engineOutcome() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        let engine = SearchEngine(registry: try ProviderRegistry([provider]), merger: ResultMerger())
        _ = try await engine.search(SearchOptions(query: "fox", limit: 2))
        fixture.clock.advance(700)
        fixture.upstream.fail(with: SeekError(.network, provider: "scripted", detail: "connection refused"))
        let result = try await engine.search(SearchOptions(query: "fox", limit: 2))
        let outcome = try #require(result.outcomes.first)
        #expect(outcome.stale)
        #expect(outcome.status == .error)
        #expect(outcome.count == 2)
        #expect(result.results.count == 2)
    }

    @Test("with a stale copy in hand, a slow upstream is abandoned after staleAfter and the copy served as a timeout")
    func staleAfterTimeout() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = SQLiteResponseCache(database: fixture.store.database)
        let provider = fixture.provider(CachePolicy(), cache: cache, staleAfter: .milliseconds(200))
        let original = try await provider.search(request)
        fixture.clock.advance(601)
        fixture.upstream.slow(.seconds(30))
        let started = ContinuousClock.now
        let stale = try await provider.search(request)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(stale.items == original.items)
        let failure = try #require(stale.staleBecause)
        #expect(failure.kind == .timeout(seconds: 0.2))
        #expect(failure.provider == "scripted")
    }

    @Test("without a stale copy, a slow upstream is waited for")
    func noStaleNoRace() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = SQLiteResponseCache(database: fixture.store.database)
        let provider = fixture.provider(CachePolicy(), cache: cache, staleAfter: .milliseconds(50))
        fixture.upstream.slow(.milliseconds(300))
        let page = try await provider.search(request)
        #expect(page.items.count == 2 && page.staleBecause == nil)
    }

    @Test("an entry older than the max stale age is not served; the failure is thrown")
    func tooOldForStale() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider(CachePolicy(maxStaleAge: 86_400))
        _ = try await provider.search(request)
        fixture.clock.advance(86_401)
        fixture.upstream.fail(with: SeekError(.network, provider: "scripted"))
        await #expect(throws: SeekError(.network, provider: "scripted")) { try await provider.search(request) }
    }

    @Test("not found, invalid input and cancellation are not answered from a stale entry")
    func authoritativeFailures() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        _ = try await provider.search(request)
        fixture.clock.advance(601)
        for kind in [SeekError.Kind.notFound, .invalidInput, .cancelled] {
            let failure = SeekError(kind, provider: "scripted")
            fixture.upstream.fail(with: failure)
            await #expect(throws: failure) { try await provider.search(request) }
        }
    }

    @Test("a TTL of 0 turns the cache off: no reads, no writes, no stale fallback")
    func ttlZero() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        // An entry stored while caching was on must not be read once the TTL is 0.
        _ = try await fixture.provider().search(request)
        let off = fixture.provider(CachePolicy(searchTTL: 0))
        _ = try await off.search(request)
        #expect(fixture.upstream.searchCalls == 2)
        _ = try await off.search(SearchRequest(query: "new", limit: 2))
        #expect(try await fixture.countByRemovingAll() == 1)
        fixture.upstream.fail(with: SeekError(.network, provider: "scripted"))
        await #expect(throws: SeekError.self) { try await off.search(request) }
    }

    @Test("bypassing reads (--no-cache) calls upstream and refreshes the entry, but serves nothing stale")
    func bypass() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        _ = try await fixture.provider().search(request)
        fixture.upstream.bumpVersion()
        let bypassing = fixture.provider(CachePolicy(bypassReads: true))
        _ = try await bypassing.search(request)
        #expect(fixture.upstream.searchCalls == 2)
        let cached = try await fixture.provider().search(request)
        #expect(cached.items.first?.title == "fox 1 v2")
        #expect(fixture.upstream.searchCalls == 2)
        fixture.upstream.fail(with: SeekError(.network, provider: "scripted"))
        await #expect(throws: SeekError.self) { try await bypassing.search(request) }
    }

    @Test("a detail is cached for its TTL and served stale when upstream fails, with a report")
    func detail() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        let id = ItemID(provider: "scripted", value: "OL1W")
        let first = try await provider.detail(id)
        fixture.clock.advance(86_399)
        #expect(try await provider.detail(id) == first)
        #expect(fixture.upstream.detailCalls == 1)
        fixture.clock.advance(2)
        fixture.upstream.fail(with: SeekError(.timeout(seconds: 10), provider: "scripted"))
        #expect(try await provider.detail(id) == first)
        #expect(fixture.upstream.detailCalls == 2)
        #expect(fixture.reported == ["stale scripted:OL1W: timed out after 10s"])
    }

    @Test("a detail TTL of 0 leaves search caching on, and the other way round")
    func separateTTLs() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider(CachePolicy(searchTTL: 600, detailTTL: 0))
        let id = ItemID(provider: "scripted", value: "OL1W")
        _ = try await provider.detail(id)
        _ = try await provider.detail(id)
        _ = try await provider.search(request)
        _ = try await provider.search(request)
        #expect(fixture.upstream.detailCalls == 2)
        #expect(fixture.upstream.searchCalls == 1)
    }

    @Test("a broken cache never fails a call; it is reported")
    func brokenCache() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider(CachePolicy(), cache: BrokenCache())
        let page = try await provider.search(request)
        #expect(page.items.count == 2)
        #expect(fixture.reported.count == 2)
        #expect(fixture.reported.allSatisfy { $0.contains("disk I/O error") })
    }

    @Test("an undecodable entry is a miss")
    func undecodableEntry() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = SQLiteResponseCache(database: fixture.store.database)
        let key = CacheKey.search(provider: "scripted", endpoint: fixture.upstream.endpoint, request: request)
        try await cache.store(CacheEntry(key: key, provider: "scripted", kind: .search, body: Data("{".utf8),
                                         storedAt: fixture.clock.now))
        let page = try await fixture.provider().search(request)
        #expect(page.items.count == 2)
        #expect(fixture.upstream.searchCalls == 1)
    }

    @Test("the wrapper keeps the upstream's descriptor, endpoint and image URLs")
    func forwards() throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        #expect(provider.descriptor == fixture.upstream.descriptor)
        #expect(provider.endpoint == fixture.upstream.endpoint)
        #expect(provider.isConfigured)
        let url = try #require(URL(string: "https://img.example/1.jpg"))
        let item = Item(id: ItemID(provider: "scripted", value: "1"), kind: .book, title: "t",
                        images: [.small: ImageReference(url: url, size: .small)])
        #expect(provider.imageURL(for: item, size: .large) == url)
    }
}

/// A response cache whose writes wait until `open()` is called.
final class GatedCache: ResponseCache {
    let base: any ResponseCache
    private let gate = NIOLockedValueBox<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    init(_ base: any ResponseCache) { self.base = base }

    func open() {
        let waiting = gate.withLockedValue { gate in
            gate.open = true
            defer { gate.waiting = [] }
            return gate.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func entry(forKey key: String) async throws -> CacheEntry? { try await base.entry(forKey: key) }

    func store(_ entry: CacheEntry) async throws {
        await withCheckedContinuation { continuation in
            let proceed = gate.withLockedValue { gate in
                if gate.open { return true }
                gate.waiting.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
        try await base.store(entry)
    }

    func removeEntries(storedBefore cutoff: Date) async throws -> Int { try await base.removeEntries(storedBefore: cutoff) }
    func removeAll() async throws { try await base.removeAll() }
}
