import Foundation
import GRDB
import NIOConcurrencyHelpers

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
    /// Stores `entries` (a search's answers) together, each replacing any entry with its key.
    func store(_ entries: [CacheEntry]) async throws
    /// Forgets entries stored before `cutoff`; returns how many.
    @discardableResult
    func removeEntries(storedBefore cutoff: Date) async throws -> Int
    /// Forgets every entry.
    func removeAll() async throws
}

extension ResponseCache {
    /// One at a time, in order.
    public func store(_ entries: [CacheEntry]) async throws {
        for entry in entries { try await store(entry) }
    }
}

/// The response cache in Seek's SQLite database.
public struct SQLiteResponseCache: ResponseCache {
    public let database: SeekDatabase
    /// How long an entry is kept after it was stored: the longest it can serve as a stale fallback.
    public let retention: TimeInterval
    /// When the stored answers are next brought back under their byte bound.
    public let diskBound: DiskBound

    public init(
        database: SeekDatabase, retention: TimeInterval = CachePolicy.defaultMaxStaleAge,
        diskLimitBytes: Int = CachePolicy.defaultDiskLimitBytes
    ) {
        self.database = database
        self.retention = retention
        self.diskBound = DiskBound(limitBytes: diskLimitBytes)
    }

    public func entry(forKey key: String) async throws -> CacheEntry? {
        try await database.lookUpInPlace("read cached response") { db in
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

    /// Stores `entry` and, in the same transaction, drops entries older than the retention; then, when
    /// the bound is due (`DiskBound`) and passed, trims the oldest entries past seven eighths of it.
    public func store(_ entry: CacheEntry) async throws {
        try await store([entry])
    }

    /// Stores `entries` in one transaction: a search's answers share its commit, and the pages every
    /// insert touches (the table's and the indexes' last leaves, the header) are written once, not once
    /// an answer (issue 30: a miss's three commits wrote 29 WAL pages, 8 of them new).
    public func store(_ entries: [CacheEntry]) async throws {
        guard let oldest = entries.map(\.storedAt).min(), let newest = entries.map(\.storedAt).max() else { return }
        // Older than the oldest answer stored here by the retention: none of these goes at once.
        let cutoff = oldest.addingTimeInterval(-retention).timeIntervalSince1970
        let bytes = entries.reduce(0) { $0 &+ $1.body.count }
        let boundDue = diskBound.isDue(storing: bytes, at: newest)
        try await database.write("store cached response") { db in
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO responseCache (key, provider, kind, body, storedAt, bytes) VALUES (?, ?, ?, ?, ?, ?)")
            for entry in entries {
                try insert.execute(arguments: [
                    entry.key, entry.provider, entry.kind.rawValue, entry.body, entry.storedAt.timeIntervalSince1970, entry.body.count,
                ])
            }
            try db.cachedStatement(sql: "DELETE FROM responseCache WHERE storedAt < ?").execute(arguments: [cutoff])
        }
        if boundDue { try await trim(toBytes: diskBound.limitBytes) }
    }

    /// Forgets the oldest entries until the answers kept take at most `limit` bytes; returns how many.
    @discardableResult
    public func removeEntries(beyondBytes limit: Int) async throws -> Int {
        try await database.write("bound cached responses") { db in try Self.removeEntries(db, beyondBytes: limit) }
    }

    /// How many entries one transaction of a trim forgets at most.
    static let trimBatch = 64

    /// Past `limit` bytes, trims the answers to seven eighths of it, the oldest first, `trimBatch` at a
    /// time: the next checks are a sum over an index (2 ms for 200 MB of answers), not a trim. One
    /// transaction for a whole trim (an eighth of the bound) held every other write, the search
    /// history a request awaits among them, for long enough to double a loaded server's p99 (issue 30:
    /// 240 against 400–460 ms at 300 misses a second); between batches they go on.
    private func trim(toBytes limit: Int) async throws {
        let kept = try await database.read("measure cached responses") { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT coalesce(sum(bytes), 0) FROM responseCache")) ?? 0
        }
        guard kept > limit else { return }
        var excess = kept - (limit - limit / 8)
        while excess > 0 {
            let owed = excess
            let batch = try await database.write("bound cached responses") { db in try Self.removeOldest(db, bytes: owed) }
            guard batch.entries > 0 else { break }  // nothing left to forget
            excess -= batch.bytes
        }
    }

    /// Forgets the oldest entries, at most `trimBatch`, until they add up to `bytes`; returns how many
    /// went and their bytes.
    private static func removeOldest(_ db: Database, bytes: Int) throws -> (entries: Int, bytes: Int) {
        let oldest = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT rowid, bytes FROM responseCache ORDER BY storedAt, rowid LIMIT ?"), arguments: [trimBatch])
        var freed = 0
        var rowids: [Int64] = []
        for row in oldest where freed < bytes {
            rowids.append(try row.decode(Int64.self, atIndex: 0))
            freed += max(0, try row.decode(Int.self, atIndex: 1))
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM responseCache WHERE rowid = ?")
        for rowid in rowids { try delete.execute(arguments: [rowid]) }
        return (rowids.count, freed)
    }

    @discardableResult
    private static func removeEntries(_ db: Database, beyondBytes limit: Int) throws -> Int {
        // The newest first, each with the bytes of every entry up to it; past `limit`, the rest go. The
        // sizes come from the index on (storedAt, bytes), which also holds each row's id.
        try db.execute(
            sql: """
                DELETE FROM responseCache WHERE rowid IN (
                    SELECT rowid FROM (
                        SELECT rowid, SUM(bytes) OVER (ORDER BY storedAt DESC, rowid DESC ROWS UNBOUNDED PRECEDING) AS upTo
                        FROM responseCache)
                    WHERE upTo > ?)
                """,
            arguments: [max(0, limit)])
        return db.changesCount
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

/// When a response cache next brings its stored answers back under their byte bound: a minute after it
/// last did (or was made), or sooner once an eighth of the bound has been stored since. Measuring the
/// bytes kept reads every entry's size, too much for every store (or for a short command's one search);
/// between checks the cache may pass its bound by an eighth, or by what one minute stores.
public final class DiskBound: Sendable {
    /// The most bytes of stored answers the cache keeps.
    public let limitBytes: Int
    private let state: NIOLockedValueBox<(last: Date, stored: Int)>

    public init(limitBytes: Int, since start: Date = Date()) {
        self.limitBytes = max(1, limitBytes)
        state = NIOLockedValueBox((start, 0))
    }

    /// Counts `bytes` stored at `now`, and says whether the bound is to be checked with this store.
    public func isDue(storing bytes: Int, at now: Date) -> Bool {
        state.withLockedValue { state in
            let (sum, overflow) = state.stored.addingReportingOverflow(max(0, bytes))
            state.stored = overflow ? Int.max : sum
            let elapsed = now.timeIntervalSince(state.last)
            // A clock set back counts as a minute passed, so that a bound is never put off for good.
            let minutePassed = !(0..<60).contains(elapsed)
            guard minutePassed || state.stored >= limitBytes / 8 else { return false }
            state = (now, 0)
            return true
        }
    }
}
