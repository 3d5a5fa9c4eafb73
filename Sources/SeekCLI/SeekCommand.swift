import ArgumentParser
import Foundation
import SeekKit
import SeekCore
import SeekRuntime

/// `seek`: one search over several sources.
package struct SeekCommand: AsyncParsableCommand {
    static let name = "seek"

    /// `serve` and `mcp` replace this process with `seek-hosts` (see `HostExecutable`).
    package static let configuration = rootConfiguration(hosts: [ServeLauncher.self, McpLauncher.self])

    /// `seek`'s configuration with `hosts` as its `serve` and `mcp` commands.
    package static func rootConfiguration(hosts: [any ParsableCommand.Type]) -> CommandConfiguration {
        CommandConfiguration(
            commandName: name,
            abstract: "Search several sources at once and print one merged, ranked list.",
            version: SeekVersion.current,
            subcommands: [
                SearchCommand.self, DetailCommand.self, ImageCommand.self, TrendingCommand.self,
                SuggestCommand.self, ProvidersCommand.self, StatsCommand.self, FavoritesCommand.self,
                HistoryCommand.self, CacheCommand.self, DatabaseCommand.self,
            ] + hosts
        )
    }

    package init() {}
}

/// Runs `seek` in-process: parses `arguments`, runs the command, and returns the exit code.
public enum SeekMain {
    /// Entry point for `seek`, whose `serve` and `mcp` run in `seek-hosts`. An executable that adds
    /// providers and serves them links the hosts instead: `SeekHostsMain.main(extraProviders:)`.
    public static func main(extraProviders: [ProviderFactory] = []) async -> Never {
        await main(root: SeekCommand.self, extraProviders: extraProviders)
    }

    /// Runs the command line with `root` as the top command (`seek`, or `seek` with the hosts linked).
    package static func main(root: any ParsableCommand.Type, extraProviders: [ProviderFactory]) async -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let environment = CLIContext.processEnvironment()
        let context = CLIContext(
            environment: environment, stdout: FileDescriptorSink.standardOutput,
            stderr: FileDescriptorSink.standardError, extraProviders: extraProviders,
            isTerminal: isatty(STDERR_FILENO) == 1, terminalColumns: CLIContext.terminalColumns(of: STDOUT_FILENO))
        let code = await run(arguments: arguments, context: context, root: root)
        exit(code)
    }

    package static func run(arguments: [String], context: CLIContext) async -> Int32 {
        await run(arguments: arguments, context: context, root: SeekCommand.self)
    }

    package static func run(arguments: [String], context: CLIContext, root: any ParsableCommand.Type) async -> Int32 {
        await CLIContext.$current.withValue(context) {
            do {
                var command = try root.parseAsRoot(arguments)
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
                return ExitStatus.success
            } catch let error as CLIError {
                context.err("seek: " + error.message)
                return error.exitCode
            } catch let error as RequestError {
                // The session refused the request: a usage error, in the session's words.
                context.err("seek: " + error.message)
                return ExitStatus.usage
            } catch {
                let code = root.exitCode(for: error)
                let message = root.fullMessage(for: error)
                if code == .success {
                    if !message.isEmpty { context.out(message) }
                } else if !message.isEmpty {
                    context.err(message)
                }
                return code.rawValue
            }
        }
    }
}

/// Output formats; each command accepts the ones it can print.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, ndjson, csv
}

/// Options every fan-out command shares.
struct SelectionOptions: ParsableArguments {
    @Option(help: "Comma-separated provider ids (default: SEEK_PROVIDERS, else all).")
    var providers: String?

    @Option(help: "Seconds each provider may take before it counts as timed out.")
    var timeout: Double?

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    var demo = false

    @Flag(help: "Ask the providers even when a cached answer is fresh (the fresh answers are still cached).")
    var noCache = false

    @Option(help: "Content rating for GIF providers: g, pg, pg-13 or r (default: config, else none).")
    var rating: String?

    func validate() throws {
        try TimeoutOption.validate(timeout)
    }

    var timeoutDuration: Duration? { Duration(timeoutSeconds: timeout) }

    /// A trending or suggest call of these options, as the session takes it.
    func fanOut(_ text: String = "", limit: Int) -> FanOutQuery {
        FanOutQuery(text: text, providers: providers, limit: limit, rating: rating, noCache: noCache, timeout: timeoutDuration)
    }
}

/// `--timeout SECONDS`, shared by every command that calls providers: the session's bound, refused
/// before anything runs (exit 64 in the session's words).
enum TimeoutOption {
    static func validate(_ timeout: Double?) throws {
        do {
            _ = try SeekSession.providerTimeout(seconds: timeout)
        } catch {
            throw ValidationError("--timeout: \(error.message)")
        }
    }
}

extension Duration {
    /// A `--timeout` in seconds as the session takes it: nil when none was given (or, never reached,
    /// one `TimeoutOption.validate` refused).
    init?(timeoutSeconds seconds: Double?) {
        guard let duration = try? SeekSession.providerTimeout(seconds: seconds) else { return nil }
        self = duration
    }
}
