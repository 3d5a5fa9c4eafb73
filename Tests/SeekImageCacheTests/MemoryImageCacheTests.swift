import Foundation
import SeekKit
import SeekImageCache
import SeekLoopback
import Testing

@Suite("memory tier")
struct MemoryImageCacheTests {
    func image(_ bytes: Int) -> CachedImage {
        CachedImage(data: Data(repeating: 1, count: bytes), format: .jpeg, origin: .network)
    }

    @Test("over the byte limit, the least recently used entries go first")
    func evictsByCost() {
        let cache = MemoryImageCache(costLimit: 1000, countLimit: 100, entryCostFraction: 1)
        cache.store(image(400), for: "a")
        cache.store(image(400), for: "b")
        _ = cache.image(for: "a")                      // a is now more recent than b
        cache.store(image(400), for: "c")
        #expect(cache.image(for: "b") == nil)
        #expect(cache.image(for: "a") != nil)
        #expect(cache.image(for: "c") != nil)
        #expect(cache.statistics.bytes == 800)
    }

    @Test("over the count limit, the least recently used entries go first")
    func evictsByCount() {
        let cache = MemoryImageCache(costLimit: 1_000_000, countLimit: 3)
        for key in ["a", "b", "c"] { cache.store(image(10), for: key) }
        _ = cache.image(for: "a")
        cache.store(image(10), for: "d")
        #expect(cache.keysByRecency == ["c", "a", "d"])
        #expect(cache.statistics.entries == 3)
    }

    @Test("an entry larger than its share of the limit is not kept")
    func skipsHugeEntries() {
        let cache = MemoryImageCache(costLimit: 10_000, countLimit: 10, entryCostFraction: 0.1)
        #expect(cache.store(image(1000), for: "fits"))
        #expect(!cache.store(image(1001), for: "huge"))
        #expect(cache.image(for: "huge") == nil)
        #expect(cache.image(for: "fits") != nil)
    }

    @Test("hits come back marked as from memory, and hits and misses are counted")
    func countsHitsAndMisses() {
        let cache = MemoryImageCache(costLimit: 10_000)
        cache.store(image(10), for: "a")
        #expect(cache.image(for: "a")?.origin == .memory)
        #expect(cache.image(for: "zzz") == nil)
        let statistics = cache.statistics
        #expect(statistics.hits == 1 && statistics.misses == 1 && statistics.limitBytes == 10_000)
    }

    @Test("replacing an entry keeps the byte total right")
    func replaceKeepsTotals() {
        let cache = MemoryImageCache(costLimit: 10_000, entryCostFraction: 1)
        cache.store(image(100), for: "a")
        cache.store(image(300), for: "a")
        cache.remove("missing")
        #expect(cache.statistics.bytes == 300 && cache.statistics.entries == 1)
        cache.removeAll()
        #expect(cache.statistics.bytes == 0 && cache.statistics.entries == 0)
    }

    @Test("concurrent readers and writers keep the tier consistent")
    func concurrentUse() async {
        let cache = MemoryImageCache(costLimit: 50_000, countLimit: 40, entryCostFraction: 1)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<300 {
                        let key = "k\((worker * 31 + round) % 60)"
                        if round % 3 == 0 { cache.store(self.image(100 + round % 50), for: key) } else { _ = cache.image(for: key) }
                    }
                }
            }
        }
        let statistics = cache.statistics
        #expect(statistics.entries <= 40 && statistics.bytes <= 50_000)
        #expect(cache.keysByRecency.count == statistics.entries)
    }
}
