import ArgumentParser
import Logging
import SeekCLI
import SeekCore
import SeekServer

/// `seek serve`: the JSON API and the web UI over one session for the server's life.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = ServeOptions.configuration

    @OptionGroup var options: ServeOptions

    func run() async throws {
        try await Session.with(demo: options.demo) { session in
            let context = session.context
            let server = SeekServer(session: session.core, host: options.host, port: options.port, logger: Self.logger())
            do {
                try await server.run { address in
                    context.err("seek: serving on \(address) (SIGTERM or Ctrl-C stops it)")
                }
            } catch let error as SeekError where error.kind == .configuration {
                throw CLIError.configuration(error)  // a bad SEEK_HEADER_TIMEOUT or the like: exit 64, named
            } catch {
                throw CLIError.usage("cannot serve on \(options.host):\(options.port): \(error)")
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
