import Foundation
import GRDB
import NIOConcurrencyHelpers
import SeekKit
import SeekLoopback
import SeekStore
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
