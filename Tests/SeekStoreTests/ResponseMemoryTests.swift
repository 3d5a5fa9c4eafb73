import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekStore
import SeekTesting
import Testing

/// A response cache that counts its reads.
final class CountingCache: ResponseCache {
    let base: any ResponseCache
    private let reads = NIOLockedValueBox(0)

    init(_ base: any ResponseCache) {
        self.base = base
    }

    var readCount: Int { reads.withLockedValue { $0 } }

    func entry(forKey key: String) async throws -> CacheEntry? {
        reads.withLockedValue { $0 += 1 }
        return try await base.entry(forKey: key)
    }

    func store(_ entry: CacheEntry) async throws { try await base.store(entry) }
    func removeEntries(storedBefore cutoff: Date) async throws -> Int { try await base.removeEntries(storedBefore: cutoff) }
    func removeAll() async throws { try await base.removeAll() }
}

@Suite("The response cache's memory tier")
struct ResponseMemoryTests {
    let request = SearchRequest(query: "fox", limit: 2)

    func provider(_ fixture: CacheFixture, cache: CountingCache, memory: ResponseMemory?) -> PipelinedProvider {
        PipelinedProvider(fixture.upstream, through: [
            CachingMiddleware(cache: cache, memory: memory, now: fixture.clock.closure),
        ])
    }

    @Test("a repeated search within the TTL is answered from memory, without reading the database")
    func memoryHitSkipsTheDatabase() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = CountingCache(SQLiteResponseCache(database: fixture.store.database))
        let provider = provider(fixture, cache: cache, memory: ResponseMemory())
        let first = try await provider.search(request)
        let readsAfterFirst = cache.readCount
        let second = try await provider.search(request)
        #expect(second == first)
        #expect(cache.readCount == readsAfterFirst)
        #expect(fixture.upstream.searchCalls == 1)
    }

    @Test("an answer in memory past its TTL is not served: the provider is asked again")
    func expiredMemoryEntryIsNotServed() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = CountingCache(SQLiteResponseCache(database: fixture.store.database))
        let provider = provider(fixture, cache: cache, memory: ResponseMemory())
        _ = try await provider.search(request)
        fixture.clock.advance(601)
        _ = try await provider.search(request)
        #expect(fixture.upstream.searchCalls == 2)
    }

    @Test("a call with no-cache skips the memory too")
    func noCacheSkipsMemory() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = CountingCache(SQLiteResponseCache(database: fixture.store.database))
        let provider = provider(fixture, cache: cache, memory: ResponseMemory())
        _ = try await provider.search(request)
        _ = try await provider.search(request, options: CallOptions(noCache: true))
        #expect(fixture.upstream.searchCalls == 2)
    }

    @Test("the memory keeps at most its count limit, dropping the least recently used")
    func boundedByCount() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = CountingCache(SQLiteResponseCache(database: fixture.store.database))
        let provider = provider(fixture, cache: cache, memory: ResponseMemory(countLimit: 2))
        for query in ["a", "b", "a", "c"] { _ = try await provider.search(SearchRequest(query: query, limit: 2)) }
        let reads = cache.readCount
        _ = try await provider.search(SearchRequest(query: "a", limit: 2))  // kept: used after b
        #expect(cache.readCount == reads)
        _ = try await provider.search(SearchRequest(query: "b", limit: 2))  // dropped for c
        #expect(cache.readCount == reads + 1)
    }

    @Test("the memory keeps at most its byte limit of stored JSON, dropping the least recently used")
    func boundedByBytes() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = CountingCache(SQLiteResponseCache(database: fixture.store.database))
        let memory = ResponseMemory(limitBytes: 1_000_000)
        let provider = provider(fixture, cache: cache, memory: memory)
        _ = try await provider.search(SearchRequest(query: "a", limit: 2))
        let oneAnswer = memory.usage.bytes
        #expect(oneAnswer > 0)
        // Room for two answers of this size, not three.
        let small = ResponseMemory(limitBytes: oneAnswer * 2 + oneAnswer / 2)
        let bounded = self.provider(fixture, cache: cache, memory: small)
        for query in ["a", "b", "c"] { _ = try await bounded.search(SearchRequest(query: query, limit: 2)) }
        #expect(small.usage.entries == 2)
        #expect(small.usage.bytes <= small.limitBytes)
        let reads = cache.readCount
        _ = try await bounded.search(SearchRequest(query: "c", limit: 2))  // the newest: in memory
        #expect(cache.readCount == reads)
        _ = try await bounded.search(SearchRequest(query: "a", limit: 2))  // the oldest: dropped
        #expect(cache.readCount == reads + 1)
    }

    @Test("a zero byte limit keeps nothing in memory, and an answer over the limit is not kept")
    func zeroLimitKeepsNothing() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let cache = CountingCache(SQLiteResponseCache(database: fixture.store.database))
        for limit in [0, 10] {
            let memory = ResponseMemory(limitBytes: limit)
            _ = try await provider(fixture, cache: cache, memory: memory).search(SearchRequest(query: "q\(limit)", limit: 2))
            #expect(memory.usage.entries == 0 && memory.usage.bytes == 0)
        }
    }
}
