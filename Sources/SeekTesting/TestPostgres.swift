import Foundation
import SeekCore

/// The PostgreSQL server the tests may use: `SEEK_TEST_DATABASE_URL` (`.ci/run` starts one with
/// Tests/support/postgres.sh and sets it). Suites that need it are skipped, saying so, without it.
public enum TestPostgres {
    /// The server's URL, or nil when none is set.
    public static var url: String? {
        let value = ProcessInfo.processInfo.environment["SEEK_TEST_DATABASE_URL"] ?? ""
        return value.isEmpty ? nil : value
    }

    /// Why a suite that needs the server did not run.
    public static let skipReason = "SEEK_TEST_DATABASE_URL is not set: start a PostgreSQL server (Tests/support/postgres.sh start DIR) and set it to its URL"

    /// A new, empty database on the server, named after `label` and this process; returns its URL.
    /// Made with `psql`, which comes with the server.
    public static func freshDatabase(_ label: String) throws -> String {
        guard let base = url, var components = URLComponents(string: base) else {
            throw SeekError(.configuration, detail: skipReason)
        }
        let safe = String(label.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(30))
        let name = "seek_t_\(getpid())_\(safe)_\(UInt32.random(in: 0...UInt32.max))"
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", base, "-q", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE \(name)"]
        try psql.run()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else {
            throw SeekError(.configuration, detail: "psql could not create the database \(name) on \(base)")
        }
        components.path = "/" + name
        return components.string ?? base
    }
}
