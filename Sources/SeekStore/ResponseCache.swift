import Foundation
import GRDB

/// What a cached response answers.
public enum CacheKind: String, Sendable, Codable, CaseIterable {
    case search, detail
}

/// One stored provider response: its key, the encoded answer, and when it was stored.
public struct CacheEntry: Sendable, Hashable {
    public var key: String
    public var provider: String
    public var kind: CacheKind
    public var body: Data
    public var storedAt: Date

    public init(key: String, provider: String, kind: CacheKind, body: Data, storedAt: Date) {
        self.key = key
        self.provider = provider
        self.kind = kind
        self.body = body
        self.storedAt = storedAt
    }
}

/// Stored provider responses by key. Freshness is the caller's business (`CachingProvider`); the
/// store only keeps entries, and forgets those older than its retention.
public protocol ResponseCache: Sendable {
    /// The entry stored under `key`, fresh or not.
    func entry(forKey key: String) async throws -> CacheEntry?
    /// Stores `entry`, replacing any entry with the same key.
    func store(_ entry: CacheEntry) async throws
    /// Forgets entries stored before `cutoff`; returns how many.
    @discardableResult
    func removeEntries(storedBefore cutoff: Date) async throws -> Int
    /// Forgets every entry.
    func removeAll() async throws
}

/// The response cache in Seek's SQLite database.
public struct SQLiteResponseCache: ResponseCache {
    public let database: SeekDatabase
    /// How long an entry is kept after it was stored: the longest it can serve as a stale fallback.
    public let retention: TimeInterval

    public init(database: SeekDatabase, retention: TimeInterval = CachePolicy.defaultMaxStaleAge) {
        self.database = database
        self.retention = retention
    }

    public func entry(forKey key: String) async throws -> CacheEntry? {
        try await database.readInPlace("read cached response") { db in
            // Cached statements: a search reads and writes this table several times, and preparing the
            // same SQL anew each time was most of the cost of each call (issue 30).
            let select = try db.cachedStatement(sql: "SELECT * FROM responseCache WHERE key = ?")
            guard let row = try Row.fetchOne(select, arguments: [key]) else {
                return nil
            }
            let kind = try row.decode(String.self, forColumn: "kind")
            return CacheEntry(
                key: key, provider: try row.decode(String.self, forColumn: "provider"),
                kind: CacheKind(rawValue: kind) ?? .search, body: try row.decode(Data.self, forColumn: "body"),
                storedAt: Date(timeIntervalSince1970: try row.decode(Double.self, forColumn: "storedAt")))
        }
    }

    /// Stores `entry` and, in the same transaction, drops entries older than the retention.
    public func store(_ entry: CacheEntry) async throws {
        let cutoff = entry.storedAt.addingTimeInterval(-retention).timeIntervalSince1970
        try await database.write("store cached response") { db in
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO responseCache (key, provider, kind, body, storedAt) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [entry.key, entry.provider, entry.kind.rawValue, entry.body, entry.storedAt.timeIntervalSince1970])
            try db.cachedStatement(sql: "DELETE FROM responseCache WHERE storedAt < ?").execute(arguments: [cutoff])
        }
    }

    @discardableResult
    public func removeEntries(storedBefore cutoff: Date) async throws -> Int {
        try await database.write("prune cached responses") { db in
            try db.execute(sql: "DELETE FROM responseCache WHERE storedAt < ?", arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }

    public func removeAll() async throws {
        try await database.write("clear cached responses") { db in
            try db.execute(sql: "DELETE FROM responseCache")
        }
    }
}
