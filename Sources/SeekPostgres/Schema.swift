import Logging
import PostgresNIO

/// The shared database's schema: numbered migrations, applied in order at start under an advisory
/// lock, so several instances starting at once migrate it once. `seek_schema` lists those applied.
///
/// Coordination state (breakers, rate-limit buckets, instances, cursors, cached answers) lives in
/// UNLOGGED tables: fast, and losing it in a crash costs nothing that matters. Each of its
/// transitions is one function call, one atomic round trip timed by the database's clock.
/// The SQL is in `.sql` files (SQL/), the migrations' and the functions' (breaker.sql, bucket.sql).
enum Schema {
    /// The advisory lock that serialises migrations.
    static let lockKey: Int64 = 0x5EEC_5C4E_3A00

    struct Migration: Sendable {
        let version: Int
        let summary: String
        /// The SQL files it runs, in order, by their path under the target's folder.
        let files: [String]

        /// The statements of its files, in order.
        func statements() throws -> [String] {
            try files.flatMap { try SQLScript(embedded: $0).statements }
        }
    }

    /// The latest version; a database at it needs no lock.
    static var latest: Int { migrations.last?.version ?? 0 }

    /// Brings the database to `latest`: a read when it is there already, else the migrations still
    /// missing, each in a transaction, under the advisory lock.
    static func migrate(_ client: PostgresClient) async throws {
        if try await currentVersion(client) >= latest { return }
        try await client.withConnection { connection in
            _ = try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                for statement in try SQLScript(embedded: "SQL/schema-table.sql").statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM seek_schema", logger: logger)
                var current = 0
                for try await version in rows.decode(Int.self) { current = version }
                for migration in migrations where migration.version > current {
                    let statements = try migration.statements()
                    try await connection.withTransaction(logger: logger) { connection in
                        for statement in statements {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(
                            "INSERT INTO seek_schema (version, summary) VALUES (\(migration.version), \(migration.summary))", logger: logger)
                    }
                }
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
            _ = try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
        }
    }

    /// The applied version: 0 for a database Seek never used.
    static func currentVersion(_ client: PostgresClient) async throws -> Int {
        let exists = try await client.query("SELECT to_regclass('seek_schema') IS NOT NULL").first(Bool.self) ?? false
        guard exists else { return 0 }
        return try await client.query("SELECT coalesce(max(version), 0) FROM seek_schema").first(Int.self) ?? 0
    }

    private static let logger = Logger(label: "seek.postgres.schema", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Every migration, in order. Each runs its `.sql` files (SQL/, compiled into the binary by the
    /// EmbedFiles plugin); a file run by an applied migration is never edited again, except the
    /// functions' own files (breaker.sql, bucket.sql: `CREATE OR REPLACE`), which a new migration runs again.
    static let migrations: [Migration] = [
        Migration(
            version: 1, summary: "favourites, history, response cache, cursors, breakers, rate limits, instances",
            files: ["SQL/001-shared-stores.sql"]),
        Migration(version: 2, summary: "the reader's own copy a favourite keeps (issue 49)", files: ["SQL/002-favorite-owned.sql"]),
        Migration(
            version: 3, summary: "the breaker's and the bucket's functions take the time of the call (issue 51)",
            files: ["SQL/003-breaker-bucket-clock.sql", "SQL/breaker.sql", "SQL/bucket.sql"]),
    ]
}
