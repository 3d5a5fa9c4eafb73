import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import SeekCore
import Testing
@testable import SeekPostgres

/// The PostgreSQL server the tests use: `SEEK_TEST_DATABASE_URL` (`.ci/run` starts one and sets it).
/// Without it the suites that need a server are skipped, saying so.
enum TestDatabase {
    static let url: String? = {
        let value = ProcessInfo.processInfo.environment["SEEK_TEST_DATABASE_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    static let skipReason: Comment = "SEEK_TEST_DATABASE_URL is not set: start a PostgreSQL server (Tests/support/postgres.sh) and set it to run these"

    private static let counter = NIOLockedValueBox(0)

    /// A new, empty database on the test server, named after `label`; returns its URL.
    static func fresh(_ label: String) async throws -> String {
        guard let url = url, var components = URLComponents(string: url) else {
            throw SeekError(.configuration, detail: "SEEK_TEST_DATABASE_URL is not set")
        }
        let number = counter.withLockedValue { count -> Int in
            count += 1
            return count
        }
        let safe = String(label.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(30))
        let name = "seek_t_\(getpid())_\(number)_\(safe)"
        let admin = PostgresClient(configuration: try DatabaseURL(url).configuration)
        let running = Task { await admin.run() }
        defer { running.cancel() }
        _ = try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name)")).collect()
        _ = try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)")).collect()
        components.path = "/" + name
        return components.string ?? url
    }

    /// A shared database on a new, empty database of the test server.
    static func open(_ label: String) async throws -> SharedDatabase {
        try SharedDatabase(url: try await fresh(label))
    }
}
