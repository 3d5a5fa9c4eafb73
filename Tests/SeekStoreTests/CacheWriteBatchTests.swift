import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekStore
import SeekTesting
import Testing

/// A response cache that records how answers reach it: one at a time, or as a search's batch.
final class StoreRecordingCache: ResponseCache {
    let base: any ResponseCache
    private let calls = NIOLockedValueBox<[[String]]>([])

    init(_ base: any ResponseCache) {
        self.base = base
    }

    /// The keys of each store call, in order; a single store is a call of one key.
    var storeCalls: [[String]] { calls.withLockedValue { $0 } }

    func entry(forKey key: String) async throws -> CacheEntry? { try await base.entry(forKey: key) }
    func store(_ entry: CacheEntry) async throws {
        calls.withLockedValue { $0.append([entry.key]) }
        try await base.store(entry)
    }
    func store(_ entries: [CacheEntry]) async throws {
        calls.withLockedValue { $0.append(entries.map(\.key)) }
        try await base.store(entries)
    }
    func removeEntries(storedBefore cutoff: Date) async throws -> Int { try await base.removeEntries(storedBefore: cutoff) }
    func removeAll() async throws { try await base.removeAll() }
}

@Suite("A search's cache writes, stored together")
struct CacheWriteBatchTests {
    func caching(_ fixture: CacheFixture, cache: any ResponseCache) -> CachingProvider {
        CachingProvider(wrapping: fixture.upstream, cache: cache, now: fixture.clock.closure)
    }

    /// A caching provider over `fixture`'s upstream whose cache records how it is stored to.
    func recorded(_ fixture: CacheFixture) -> (provider: CachingProvider, cache: StoreRecordingCache) {
        let cache = StoreRecordingCache(SQLiteResponseCache(database: fixture.store.database))
        return (caching(fixture, cache: cache), cache)
    }

    /// Searches `provider` for each of `queries`, one after the other, under `batch`.
    func search(_ queries: [String], with provider: CachingProvider, under batch: CacheWriteBatch) async throws {
        try await CacheWriteBatch.$current.withValue(batch) {
            for query in queries { _ = try await provider.search(SearchRequest(query: query, limit: 2)) }
        }
    }

    @Test("answers fetched under a batch are held until it is stored, then reach the cache in one call")
    func heldThenStoredTogether() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let (provider, cache) = recorded(fixture)
        let batch = CacheWriteBatch()
        try await search(["fox", "owl", "elk"], with: provider, under: batch)
        #expect(cache.storeCalls.isEmpty)
        await batch.store(in: cache, writes: nil) { _ in }
        #expect(cache.storeCalls.count == 1)
        #expect(cache.storeCalls.first?.count == 3)
        for key in cache.storeCalls.first ?? [] {
            #expect(try await cache.entry(forKey: key) != nil)
        }
        // Stored, so a new connection (the next process) answers from it without the upstream.
        let again = caching(fixture, cache: SQLiteResponseCache(database: fixture.store.secondConnection()))
        _ = try await again.search(SearchRequest(query: "owl", limit: 2))
        #expect(fixture.upstream.searchCalls == 3)
    }

    @Test("an answer that comes after its search's batch was stored is stored on its own")
    func lateAnswerStoredAlone() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let (provider, cache) = recorded(fixture)
        let batch = CacheWriteBatch()
        await batch.store(in: cache, writes: nil) { _ in }
        try await search(["fox"], with: provider, under: batch)
        #expect(cache.storeCalls.count == 1)
        #expect(cache.storeCalls.first?.count == 1)
    }

    @Test("a batch left running is written by the time the pending writes are waited for")
    func leftRunningThenWaited() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let (provider, cache) = recorded(fixture)
        let batch = CacheWriteBatch()
        try await search(["fox", "owl"], with: provider, under: batch)
        let writes = PendingCacheWrites()
        await batch.store(in: cache, writes: writes) { _ in }
        await writes.wait()
        #expect(cache.storeCalls.map(\.count) == [2])
    }

    @Test("a broken cache is reported once for the batch, and the search still had its answers")
    func brokenCacheReported() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = caching(fixture, cache: BrokenCache())
        let batch = CacheWriteBatch()
        try await search(["fox"], with: provider, under: batch)
        #expect(fixture.upstream.searchCalls == 1)
        let events = EventLog()
        await batch.store(in: BrokenCache(), writes: nil) { _ in events.append("unavailable") }
        #expect(events.lines == ["unavailable"])
    }

    @Test("a batch is stored whole: its retention cut removes older entries, never one of its own")
    func retentionKeepsTheBatch() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = SQLiteResponseCache(database: fixture.store.database, retention: 10)
        let start = Date(timeIntervalSince1970: 1_000_000)
        func entry(_ key: String, at offset: TimeInterval) -> CacheEntry {
            CacheEntry(key: key, provider: "scripted", kind: .search, body: Data(#"{"items":[]}"#.utf8), storedAt: start + offset)
        }
        try await cache.store(entry("old", at: -100))
        try await cache.store([entry("a", at: 0), entry("b", at: 5), entry("c", at: 20)])
        #expect(try await cache.entry(forKey: "old") == nil)
        for key in ["a", "b", "c"] { #expect(try await cache.entry(forKey: key) != nil, "\(key)") }
        try await cache.store([CacheEntry]())
        #expect(try await cache.entry(forKey: "a") != nil)
    }
}
