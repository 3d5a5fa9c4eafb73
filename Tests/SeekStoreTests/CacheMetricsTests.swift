import Foundation
import Metrics
import MetricsTestKit
import SeekCore
import SeekStore
import SeekTesting
import Testing

/// `seek_cache_lookups_total{result}` from the caching middleware, seen through a test metrics
/// factory (task-local, so nothing here touches the process's registry).
@Suite("Caching provider: lookup metrics")
struct CacheMetricsTests {
    let request = SearchRequest(query: "fox", limit: 2)

    func lookups(_ metrics: TestMetrics, _ result: String) -> Int64 {
        metrics.counterTotal(label: "seek_cache_lookups_total", dimensions: [("result", result)])
    }

    @Test("a first search is a miss, the same search again a hit")
    func missThenHit() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            _ = try await provider.search(request)
            _ = try await provider.search(request)
        }
        #expect(lookups(metrics, "miss") == 1)
        #expect(lookups(metrics, "hit") == 1)
        #expect(metrics.counterTotal(label: "seek_cache_lookups_total") == 2)
    }

    @Test("an answer from the memory tier is a hit")
    func memoryHit() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = PipelinedProvider(fixture.upstream, through: [
            CachingMiddleware(cache: SQLiteResponseCache(database: fixture.store.database), memory: ResponseMemory(), now: fixture.clock.closure),
        ])
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            _ = try await provider.search(request)
            _ = try await provider.search(request)
        }
        #expect(lookups(metrics, "miss") == 1)
        #expect(lookups(metrics, "hit") == 1)
    }

    @Test("an expired entry served because the provider failed is a stale lookup, not a miss")
    func staleServed() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        _ = try await provider.search(request)
        fixture.clock.advance(3 * 86_400)
        fixture.upstream.fail(with: SeekError(.httpStatus(503), provider: "scripted"))
        let metrics = TestMetrics()
        let page = try await withMetricsFactory(metrics) { try await provider.search(request) }
        #expect(page.staleBecause != nil)
        #expect(lookups(metrics, "stale") == 1)
        #expect(metrics.counterTotal(label: "seek_cache_lookups_total") == 1)
    }

    @Test("a failed call with no copy to serve is a miss")
    func failedMiss() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        fixture.upstream.fail(with: SeekError(.httpStatus(503), provider: "scripted"))
        let metrics = TestMetrics()
        await withMetricsFactory(metrics) { _ = try? await fixture.provider().search(request) }
        #expect(lookups(metrics, "miss") == 1)
        #expect(metrics.counterTotal(label: "seek_cache_lookups_total") == 1)
    }

    @Test("a call that skips the cache (no_cache) looks nothing up, so counts nothing")
    func noCacheCountsNothing() async throws {
        let fixture = CacheFixture()
        defer { fixture.store.remove() }
        let provider = fixture.provider()
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            _ = try await provider.search(request, options: CallOptions(noCache: true))
        }
        #expect(fixture.upstream.searchCalls == 1)
        #expect(metrics.counterTotal(label: "seek_cache_lookups_total") == 0)
    }
}
