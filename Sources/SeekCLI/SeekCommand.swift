import ArgumentParser
import Foundation
import SeekCore

/// `seek`: one search over several sources.
public struct SeekCommand: AsyncParsableCommand {
    static let name = "seek"

    public static let configuration = CommandConfiguration(
        commandName: name,
        abstract: "Search several sources at once and print one merged, ranked list.",
        version: SeekVersion.current,
        subcommands: [
            SearchCommand.self, DetailCommand.self, ImageCommand.self, TrendingCommand.self,
            SuggestCommand.self, ProvidersCommand.self, StatsCommand.self, FavoritesCommand.self,
            HistoryCommand.self, CacheCommand.self,
        ]
    )

    public init() {}

    /// Parses a command line. The commands that call providers parse as roots of their own when
    /// named first (their configurations name `seek` as the super-command, so help and errors read
    /// the same): that skips the rest of the command tree and the root's check for
    /// `--generate-completion-script`, about 1.5 ms of every search. Help, the root's own flags and
    /// any command line that does not parse take the long way, so what they print is the whole tree's.
    static func parse(commandLine arguments: [String]) throws -> any ParsableCommand {
        let rootOnly = arguments.contains {
            ["--version", "--help", "-h"].contains($0) || $0.hasPrefix("--generate-completion-script")
                || $0.hasPrefix("--experimental")
        }
        if !rootOnly, let command = providerCommand(arguments) {
            if let parsed = try? command.parseAsRoot(Array(arguments.dropFirst())) { return parsed }
        }
        return try parseAsRoot(arguments)
    }

    /// The command that calls providers named first on the command line, if one is.
    static func providerCommand(_ arguments: [String]) -> (any ParsableCommand.Type)? {
        guard let name = arguments.first else { return nil }
        return configuration.subcommands.first {
            $0.configuration.commandName == name && $0.configuration._superCommandName == Self.name
        }
    }
}

/// Runs `seek` in-process: parses `arguments`, runs the command, and returns the exit code.
public enum SeekMain {
    /// Entry point for `seek` and for executables that add providers (`seek-itbook`).
    public static func main(extraProviders: [ProviderFactory] = []) async -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // While the arguments are parsed, the other core starts the event loops and, for a command
        // that calls providers, pays the first request's one-time set-up on loopback.
        let callsProviders = SeekCommand.providerCommand(arguments) != nil
        Task.detached(priority: .high) {
            if callsProviders { await AsyncHTTPTransport.warmUp() } else { AsyncHTTPTransport.startEventLoops() }
        }
        let environment = CLIContext.processEnvironment()
        let context = CLIContext(
            environment: environment, stdout: FileDescriptorSink.standardOutput,
            stderr: FileDescriptorSink.standardError, extraProviders: extraProviders,
            isTerminal: isatty(STDERR_FILENO) == 1, processLifetime: ProcessLifetime())
        let code = await run(arguments: arguments, context: context)
        exit(code)
    }

    public static func run(arguments: [String], context: CLIContext) async -> Int32 {
        await CLIContext.$current.withValue(context) {
            do {
                var command = try SeekCommand.parse(commandLine: arguments)
                // `--no-cache` and `--timeout` reach the composition root (UserState.swift).
                try await CommandScope.run(command, context: context) {
                    if var asyncCommand = command.cast(to: (any AsyncParsableCommand).self) {
                        try await asyncCommand.run()
                    } else {
                        try command.run()
                    }
                }
                return ExitStatus.success
            } catch let error as CLIError {
                context.err("seek: " + error.message)
                return error.exitCode
            } catch {
                let code = SeekCommand.exitCode(for: error)
                let message = SeekCommand.fullMessage(for: error)
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

extension ParsableCommand {
    /// `self as? T`, cast from the command's own type. A cast from `any ParsableCommand` first asks
    /// whether the existential type itself conforms, and each such question that the runtime has
    /// not answered before searches every protocol conformance in the process (~70 µs).
    func cast<T>(to type: T.Type) -> T? { self as? T }
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
        if let rating, !CompositionRoot.contentRatings.contains(rating.lowercased()) {
            throw ValidationError("--rating must be one of \(CompositionRoot.contentRatings.sorted().joined(separator: ", "))")
        }
        if let timeout, !(timeout > 0 && timeout <= 3600) {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    var timeoutDuration: Duration? { timeout.map { .milliseconds(Int64($0 * 1000)) } }
}
