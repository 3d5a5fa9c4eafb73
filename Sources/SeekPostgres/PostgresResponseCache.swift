import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import SeekCore
import SeekStore

/// The response cache in the shared database: a query answered by one instance is a hit on every other.
/// Each instance keeps its memory tier in front (`CachingMiddleware`); entries past the retention are
/// pruned at most once a minute, and the oldest past the byte bound (to seven eighths of it) when
/// `DiskBound` says so.
package struct PostgresResponseCache: ResponseCache {
    package let database: SharedDatabase
    package let retention: TimeInterval
    package let diskBound: DiskBound
    private let lastPrune = NIOLockedValueBox<Date?>(nil)

    package init(
        database: SharedDatabase, retention: TimeInterval = CachePolicy.defaultMaxStaleAge,
        diskLimitBytes: Int = CachePolicy.defaultDiskLimitBytes
    ) {
        self.database = database
        self.retention = retention.isFinite ? max(0, retention) : CachePolicy.defaultMaxStaleAge
        diskBound = DiskBound(limitBytes: diskLimitBytes)
    }

    package func entry(forKey key: String) async throws -> CacheEntry? {
        let row = try await database.run("read cached response") { client in
            let rows = try await client.query("SELECT provider, kind, body, stored_at FROM seek_response_cache WHERE key = \(key)")
            for try await row in rows.decode((String, String, Data, Double).self) { return Optional(row) }
            return nil
        }
        guard let row else { return nil }
        return CacheEntry(
            key: key, provider: row.0, kind: CacheKind(rawValue: row.1) ?? .search, body: row.2,
            storedAt: Date(timeIntervalSince1970: row.3))
    }

    package func store(_ entry: CacheEntry) async throws {
        try await database.run("store cached response", timeout: SharedDatabase.writeTimeout) { client in
            try await client.perform(
                """
                INSERT INTO seek_response_cache (key, provider, kind, body, stored_at)
                VALUES (\(entry.key), \(entry.provider), \(entry.kind.rawValue), \(entry.body), \(entry.storedAt.timeIntervalSince1970))
                ON CONFLICT (key) DO UPDATE SET provider = excluded.provider, kind = excluded.kind, body = excluded.body,
                    stored_at = excluded.stored_at
                """
            )
        }
        let due = lastPrune.withLockedValue { last -> Bool in
            guard last.map({ entry.storedAt.timeIntervalSince($0) >= 60 }) ?? true else { return false }
            last = entry.storedAt
            return true
        }
        if due { try await removeEntries(storedBefore: entry.storedAt.addingTimeInterval(-retention)) }
        if diskBound.isDue(storing: entry.body.count, at: entry.storedAt) { try await bound(toBytes: diskBound.limitBytes) }
    }

    /// Past `limit` bytes, trims the answers to seven eighths of it: the next checks are a sum (4 ms for
    /// 250 MB of answers), not the trim itself (35 ms).
    private func bound(toBytes limit: Int) async throws {
        let kept = try await database.run("measure cached responses") { client in
            try await client.query("SELECT coalesce(sum(octet_length(body)), 0)::bigint FROM seek_response_cache").first(Int.self) ?? 0
        }
        guard kept > limit else { return }
        try await removeEntries(beyondBytes: limit - limit / 8)
    }

    /// Forgets the oldest entries until the answers kept take at most `limit` bytes; returns how many.
    @discardableResult
    package func removeEntries(beyondBytes limit: Int) async throws -> Int {
        let limit = max(0, limit)
        return try await database.run("bound cached responses", timeout: SharedDatabase.writeTimeout) { client in
            // The newest first, each with the bytes of every entry up to it; past `limit`, the rest go.
            // `octet_length` of a stored value reads its size, not the value.
            try await client.query(
                """
                WITH gone AS (
                    DELETE FROM seek_response_cache WHERE key IN (
                        SELECT key FROM (
                            SELECT key, SUM(octet_length(body)) OVER (ORDER BY stored_at DESC, key DESC ROWS UNBOUNDED PRECEDING) AS up_to
                            FROM seek_response_cache) AS ranked
                        WHERE up_to > \(limit))
                    RETURNING 1)
                SELECT count(*) FROM gone
                """
            ).first(Int.self) ?? 0
        }
    }

    @discardableResult
    package func removeEntries(storedBefore cutoff: Date) async throws -> Int {
        let seconds = cutoff.timeIntervalSince1970
        return try await database.run("prune cached responses", timeout: SharedDatabase.writeTimeout) { client in
            try await client.query("WITH gone AS (DELETE FROM seek_response_cache WHERE stored_at < \(seconds) RETURNING 1) SELECT count(*) FROM gone")
                .first(Int.self) ?? 0
        }
    }

    package func removeAll() async throws {
        try await database.run("clear cached responses", timeout: SharedDatabase.writeTimeout) { client in
            try await client.perform("DELETE FROM seek_response_cache")
        }
    }
}
