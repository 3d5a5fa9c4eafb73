import Foundation
import SeekKit
import SeekLoopback
import SeekStore
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
