import Foundation
import GRDB
import NIOConcurrencyHelpers
import SeekKit
import SeekLoopback
@testable import SeekStore
import SeekTesting
import Testing

@Suite("Response cache store")
struct ResponseCacheTests {
    func entry(_ key: String, at seconds: TimeInterval) -> CacheEntry {
        CacheEntry(key: key, provider: "openlibrary", kind: .search, body: Data("[\"\(key)\"]".utf8),
                   storedAt: Date(timeIntervalSince1970: seconds))
    }

    @Test("an entry is read back as stored, and a new one replaces it")
    func roundTrip() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        try await cache.store(entry("a", at: 1_000))
        #expect(try await cache.entry(forKey: "a") == entry("a", at: 1_000))
        try await cache.store(entry("a", at: 2_000))
        #expect(try await cache.entry(forKey: "a")?.storedAt == Date(timeIntervalSince1970: 2_000))
        #expect(try await cache.entry(forKey: "b") == nil)
    }

    @Test("a look-up in an open database runs on the caller's thread without suspending")
    func lookupDoesNotSuspend() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        try await cache.store(entry("a", at: 1_000))
        let queued = NIOLockedValueBox(0)
        let executor = OneThreadExecutor { queued.withLockedValue { $0 += 1 } }
        defer { executor.stop() }
        // A provider call's look-up comes before its request: a suspension there would send the
        // request only after the work queued meanwhile (issue 30).
        let (found, queuedDuringLookUp) = try await withTaskExecutorPreference(executor) {
            let before = queued.withLockedValue { $0 }
            let found = try await cache.entry(forKey: "a")
            return (found, queued.withLockedValue { $0 } - before)
        }
        #expect(found == entry("a", at: 1_000))
        #expect(queuedDuringLookUp == 0)
    }

    @Test("a look-up is answered while another connection holds the writer, without its uncommitted change")
    func lookupWhileWriterHeld() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        try await cache.store(entry("a", at: 1_000))
        let other = try DatabaseQueue(path: store.path)
        let phase = NIOLockedValueBox("starting")
        let release = DispatchSemaphore(value: 0)
        // The write transaction is held on a thread of its own until the look-up has been answered: a
        // look-up that waited for the writer would wait out the busy timeout and fail.
        Thread {
            try? other.inTransaction(.immediate) { db in
                try db.execute(sql: "UPDATE responseCache SET storedAt = 2000 WHERE key = 'a'")
                phase.withLockedValue { $0 = "holding" }
                _ = release.wait(timeout: .now() + 10)
                return .commit
            }
            phase.withLockedValue { $0 = "committed" }
        }.start()
        try await waitFor(phase, "holding")
        #expect(try await cache.entry(forKey: "a")?.storedAt == Date(timeIntervalSince1970: 1_000))
        #expect(phase.withLockedValue { $0 } == "holding")
        release.signal()
        try await waitFor(phase, "committed")
        #expect(try await cache.entry(forKey: "a")?.storedAt == Date(timeIntervalSince1970: 2_000))
    }

    private func waitFor(_ phase: NIOLockedValueBox<String>, _ wanted: String) async throws {
        let clock = ContinuousClock(), start = clock.now
        while phase.withLockedValue({ $0 }) != wanted, clock.now - start < .seconds(10) {
            try await Task.sleep(for: .milliseconds(2))
        }
        try #require(phase.withLockedValue { $0 } == wanted)
    }

    @Test("storing drops entries older than the retention")
    func retention() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database, retention: 100)
        try await cache.store(entry("old", at: 1_000))
        try await cache.store(entry("kept", at: 1_050))
        try await cache.store(entry("new", at: 1_120))
        #expect(try await cache.entry(forKey: "old") == nil)
        #expect(try await cache.entry(forKey: "kept") != nil)
    }

    func entry(_ key: String, at seconds: TimeInterval, bytes: Int) -> CacheEntry {
        CacheEntry(key: key, provider: "openlibrary", kind: .search, body: Data(repeating: UInt8(ascii: "x"), count: bytes),
                   storedAt: Date(timeIntervalSince1970: seconds))
    }

    @Test("bounding by bytes forgets the oldest entries until the rest fit, and keeps an exact fit")
    func boundByBytes() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database, retention: 1e9)
        for (index, key) in ["a", "b", "c", "d"].enumerated() {
            try await cache.store(entry(key, at: 1_000 + Double(index), bytes: 1_000))
        }
        #expect(try await cache.removeEntries(beyondBytes: 4_000) == 0)
        #expect(try await cache.removeEntries(beyondBytes: 2_999) == 2)
        #expect(try await cache.entry(forKey: "a") == nil)
        #expect(try await cache.entry(forKey: "b") == nil)
        #expect(try await cache.entry(forKey: "c") != nil)
        #expect(try await cache.entry(forKey: "d") != nil)
        #expect(try await cache.removeEntries(beyondBytes: Int.max) == 0)
    }

    @Test("a bound of 0, negative or smaller than the newest entry forgets every entry")
    func boundBelowOneEntry() async throws {
        for limit in [0, -1, Int.min, 999] {
            let store = TemporaryStore()
            defer { store.remove() }
            let cache = SQLiteResponseCache(database: store.database, retention: 1e9)
            try await cache.store(entry("a", at: 1_000, bytes: 1_000))
            try await cache.store(entry("b", at: 1_001, bytes: 1_000))
            #expect(try await cache.removeEntries(beyondBytes: limit) == 2, "limit \(limit)")
        }
    }

    @Test("storing past the bound trims the answers to seven eighths of it, the newest kept")
    func storingKeepsTheBound() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database, retention: 1e9, diskLimitBytes: 16_000)
        // 2,000 bytes each, an eighth of the bound: every store checks it, all within a minute of now.
        let now = Date().timeIntervalSince1970
        for index in 0..<9 {
            try await cache.store(entry("k\(index)", at: now + Double(index) / 100, bytes: 2_000))
        }
        #expect(try await storedBytes(store) == 14_000)
        #expect(try await cache.entry(forKey: "k1") == nil)
        #expect(try await cache.entry(forKey: "k2") != nil)
        #expect(try await cache.entry(forKey: "k8") != nil)
    }

    @Test("small answers stored within a minute leave the bound unchecked until an eighth of it was stored")
    func smallStoresWait() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database, retention: 1e9, diskLimitBytes: 16_000)
        let now = Date().timeIntervalSince1970
        // 600 bytes each: the bound is checked at every fourth store (2,400 bytes since the last check).
        for index in 0..<27 {
            try await cache.store(entry("k\(index)", at: now + Double(index) / 100, bytes: 600))
        }
        #expect(try await storedBytes(store) == 16_200)  // past the bound, by less than an eighth
        try await cache.store(entry("k27", at: now + 0.27, bytes: 600))
        #expect(try await storedBytes(store) == 13_800)  // checked: 23 of 600 bytes fit in 14,000
        #expect(try await cache.entry(forKey: "k5") != nil)
        #expect(try await cache.entry(forKey: "k4") == nil)
    }

    @Test("a trim of more entries than one batch forgets them over several transactions, the newest kept to seven eighths")
    func trimInBatches() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let unbounded = SQLiteResponseCache(database: store.database, retention: 1e9, diskLimitBytes: Int.max)
        let now = Date().timeIntervalSince1970
        for index in 0..<500 {
            try await unbounded.store(entry("k\(index)", at: now + Double(index) / 1_000, bytes: 100))
        }
        #expect(try await storedBytes(store) == 50_000)
        // A new cache's first store of an eighth of its bound checks it: 380 entries go, six batches' worth.
        #expect(380 > 5 * SQLiteResponseCache.trimBatch)
        let bounded = SQLiteResponseCache(database: store.database, retention: 1e9, diskLimitBytes: 16_000)
        try await bounded.store(entry("new", at: now + 1, bytes: 2_000))
        #expect(try await storedBytes(store) == 14_000)
        #expect(try await bounded.entry(forKey: "k379") == nil)
        #expect(try await bounded.entry(forKey: "k380") != nil)
        #expect(try await bounded.entry(forKey: "new") != nil)
    }

    /// The bytes of answers a store's database holds, read apart from the cache.
    private func storedBytes(_ store: TemporaryStore) async throws -> Int {
        try await DatabaseQueue(path: store.path).read { db in
            try Int.fetchOne(db, sql: "SELECT coalesce(sum(length(body)), 0) FROM responseCache") ?? -1
        }
    }

    @Test("the bound is checked a minute after the last check, or once an eighth of it was stored since")
    func boundSchedule() {
        let start = Date(timeIntervalSince1970: 1_000)
        let bound = DiskBound(limitBytes: 8_000, since: start)
        #expect(!bound.isDue(storing: 500, at: start.addingTimeInterval(1)))
        #expect(bound.isDue(storing: 500, at: start.addingTimeInterval(2)))  // 1,000 bytes: an eighth
        #expect(!bound.isDue(storing: 10, at: start.addingTimeInterval(61)))
        #expect(bound.isDue(storing: 10, at: start.addingTimeInterval(62)))  // a minute after the last check
        #expect(bound.isDue(storing: 0, at: start))  // the clock set back
        #expect(bound.isDue(storing: Int.max, at: start))
        #expect(bound.isDue(storing: Int.max, at: start))  // no overflow
        #expect(!bound.isDue(storing: -5, at: start))
        #expect(DiskBound(limitBytes: -3, since: start).limitBytes == 1)
    }

    @Test("prune and clear remove entries")
    func pruneAndClear() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        try await cache.store(entry("a", at: 1_000))
        try await cache.store(entry("b", at: 2_000))
        #expect(try await cache.removeEntries(storedBefore: Date(timeIntervalSince1970: 1_500)) == 1)
        try await cache.removeAll()
        #expect(try await cache.entry(forKey: "b") == nil)
    }
}
