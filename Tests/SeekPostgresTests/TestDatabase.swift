import Foundation
import SeekPostgres
import SeekTesting
import Testing

/// The test server's databases for the shared-store suites (`TestPostgres`).
enum TestDatabase {
    static var url: String? { TestPostgres.url }

    static let skipReason: Comment = "SEEK_TEST_DATABASE_URL is not set: start a PostgreSQL server (Tests/support/postgres.sh) and set it to run these"

    /// A new, empty database on the test server, named after `label`; returns its URL.
    static func fresh(_ label: String) async throws -> String {
        try TestPostgres.freshDatabase(label)
    }

    /// A shared database on a new, empty database of the test server.
    static func open(_ label: String) async throws -> SharedDatabase {
        try await connect(try await fresh(label))
    }

    /// The shared database at `url`, with deadlines that a busy test machine meets: these suites test
    /// what is shared, not how fast (the unreachable-database suite tests the deadlines).
    /// The schema is brought up to date first (a fresh database's migration takes a while when many
    /// suites make databases at once).
    static func connect(_ url: String) async throws -> SharedDatabase {
        let database = try SharedDatabase(url: url, coordinationTimeout: .seconds(2))
        await database.prepare(announce: false)
        return database
    }
}
