import ArgumentParser
import Logging
import SeekCLI
import SeekKit
import SeekCore
import SeekWeb
import SeekRuntime

/// `seek serve`: the JSON API and the web UI over one session for the server's life.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = ServeOptions.configuration

    @OptionGroup var options: ServeOptions

    func run() async throws {
        // Who the server is for is settled before anything is opened: a refusal is exit 64, naming the fix.
        let access: ServerAccess
        let basePath: BasePath
        do {
            let settings = try Settings.load(environment: CLIContext.current.environment)
            access = try ServerAccess.resolve(
                host: options.host, publicFlag: options.isPublic, personalFlag: options.personal, settings: settings)
            basePath = try BasePath.resolve(flag: options.basePath, settings: settings)
        } catch let error as SeekError {
            throw CLIError.configuration(error)
        }
        try await CommandContext.with(demo: options.demo) { session in
            let context = session.context
            var server = SeekServer(session: session.core, host: options.host, port: options.port, logger: Self.logger())
            server.access = access
            server.basePath = basePath
            server.demoQueries = session.demo?.sampleQueries
            if access.isPublic { context.err("seek: public mode: each visitor's favourites and history are their own") }
            do {
                try await server.run { address in
                    context.err("seek: serving on \(address)\(basePath.isRoot ? "" : basePath.description) (SIGTERM or Ctrl-C stops it)")
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
