import Foundation
import NIOSSL
import PostgresNIO
import SeekCore

/// `SEEK_DATABASE_URL` read as libpq reads it: `postgres://user[:password]@host[:port]/database`, with
/// `?host=/socket/dir` (a Unix socket folder) and `sslmode=` (disable, allow, prefer, require,
/// verify-ca, verify-full) accepted.
struct DatabaseURL: Sendable {
    let configuration: PostgresClient.Configuration
    /// The URL without its password.
    let redacted: String

    init(_ text: String) throws {
        func invalid(_ why: String) -> SeekError {
            SeekError(.configuration, detail: "SEEK_DATABASE_URL \(why); expected postgres://user[:password]@host[:port]/database")
        }
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
              let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else { throw invalid("is not a postgres:// URL") }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { _, last in last }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? query["user"] ?? "postgres"
        guard !user.isEmpty else { throw invalid("names no user") }
        let password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding } ?? query["password"]
        let path = components.percentEncodedPath.removingPercentEncoding ?? ""
        let database = path.hasPrefix("/") ? String(path.dropFirst()) : path
        guard !database.contains("/") else { throw invalid("has a database name with '/'") }
        let port: Int
        if let given = components.port {
            guard (1...65_535).contains(given) else { throw invalid("has a port out of 1-65535") }
            port = given
        } else if let text = query["port"] {
            guard let given = Int(text), (1...65_535).contains(given) else { throw invalid("has a port out of 1-65535") }
            port = given
        } else {
            port = 5432
        }
        let socketFolder = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let host = socketFolder == nil ? (query["host"] ?? components.host ?? "localhost") : nil
        let tls: PostgresClient.Configuration.TLS
        switch query["sslmode"]?.lowercased() ?? "prefer" {
        case "disable": tls = .disable
        case "allow", "prefer": tls = .prefer(.makeClientConfiguration())
        case "require":
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .none
            tls = .require(settings)
        case "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        default: throw invalid("has an sslmode other than disable, allow, prefer, require, verify-ca or verify-full")
        }
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            let socket = socketFolder.hasSuffix("/") ? socketFolder : socketFolder + "/"
            configuration = .init(
                unixSocketPath: socket + ".s.PGSQL.\(port)", username: user, password: password, database: database.isEmpty ? nil : database)
        } else {
            let name = host ?? "localhost"
            let unbracketed = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
            configuration = .init(
                host: unbracketed, port: port, username: user, password: password, database: database.isEmpty ? nil : database, tls: tls)
        }
        configuration.options.tlsServerName = nil
        self.configuration = configuration
        let place = socketFolder.map { "socket \($0)" } ?? "\(host ?? "localhost"):\(port)"
        redacted = "postgres://\(user)@\(place)/\(database)"
    }
}
