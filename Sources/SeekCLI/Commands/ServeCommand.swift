import ArgumentParser
import Foundation
import Logging
import SeekCore
import SeekServer
import SeekSession

/// `seek serve`: the JSON API (and, later, the web UI) over one session for the server's life.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the JSON API on one long-lived session (SIGTERM or SIGINT stops it gracefully).")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed on stderr).")
    var port = 8080

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    var demo = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard !host.trimmed().isEmpty else { throw ValidationError("--host must not be empty") }
    }

    func run() async throws {
        try await Session.with(demo: demo) { session in
            let context = session.context
            let server = SeekServer(session: session.core, host: host, port: port, logger: Self.logger())
            do {
                try await server.run { address in
                    context.err("seek: serving on \(address) (SIGTERM or Ctrl-C stops it)")
                }
            } catch {
                throw CLIError.usage("cannot serve on \(host):\(port): \(error)")
            }
            return ExitStatus.success
        }
    }

    /// Access and error logs, one line each, on stderr (stdout is left for nothing: the server
    /// writes no results there).
    static func logger() -> Logger {
        var logger = Logger(label: "seek.serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .info
        return logger
    }
}
