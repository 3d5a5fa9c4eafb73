import ArgumentParser
import SeekCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `seek serve`'s options, parsed by `seek` (so help and validation are the same) and by the host
/// that runs the server.
package struct ServeOptions: ParsableArguments {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the JSON API and the web UI on one long-lived session (SIGTERM or SIGINT stops it gracefully).")

    @Option(help: "The address to listen on.")
    package var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port, printed on stderr).")
    package var port = 8080

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    package var demo = false

    @Flag(name: .customLong("public"), help: "Serve visitors who do not know each other: each gets their own favourites and history (needs SEEK_SECRET); also SEEK_PUBLIC=1.")
    package var isPublic = false

    @Flag(help: "Serve one owner's favourites and history on an address other than loopback (only for an address no one else can reach).")
    package var personal = false

    package init() {}

    package func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard !host.trimmed().isEmpty else { throw ValidationError("--host must not be empty") }
        guard !(isPublic && personal) else { throw ValidationError("--public and --personal cannot both be given") }
    }

    /// The options as arguments again, for the host executable.
    var arguments: [String] {
        ["--host", host, "--port", String(port)] + (demo ? ["--demo"] : []) + (isPublic ? ["--public"] : []) + (personal ? ["--personal"] : [])
    }
}

/// `seek mcp`'s options, shared the same way.
package struct McpOptions: ParsableArguments {
    package static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve Seek to an AI assistant over MCP on stdin/stdout (until the client closes stdin).",
        discussion: """
            Tools: search, detail, trending, suggest, providers, favorites_list, favorites_add, favorites_remove; \
            resources: seek://favorites, seek://history. stdout carries only protocol messages; diagnostics go to stderr. \
            Client configuration: {"command": "seek", "args": ["mcp"]}.
            """)

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    package var demo = false

    package init() {}

    var arguments: [String] { demo ? ["--demo"] : [] }
}

/// `seek serve` in `seek`: runs the server in the host executable.
struct ServeLauncher: ParsableCommand {
    static let configuration = ServeOptions.configuration

    @OptionGroup var options: ServeOptions

    func run() throws { try HostExecutable.replaceProcess(with: ["serve"] + options.arguments, context: .current) }
}

/// `seek mcp` in `seek`: runs the MCP server in the host executable.
struct McpLauncher: ParsableCommand {
    static let configuration = McpOptions.configuration

    @OptionGroup var options: McpOptions

    func run() throws { try HostExecutable.replaceProcess(with: ["mcp"] + options.arguments, context: .current) }
}

/// `seek-hosts`, the executable beside `seek` that runs the long-lived hosts (`serve`, `mcp`).
///
/// The hosts bring Hummingbird, swift-mustache and the MCP SDK (with FoundationNetworking and the
/// thirty shared libraries of libcurl), which every short `seek` start would otherwise load and scan:
/// BENCHMARKS.md ("One session, many hosts") has the figures.
package enum HostExecutable {
    package static let name = "seek-hosts"

    /// Replaces this process with `seek-hosts arguments…`: the same pid, stdio, environment and signal
    /// handling, so a supervisor, an MCP client or a `kill` sees one process. Returns only by throwing.
    static func replaceProcess(with arguments: [String], context: CLIContext) throws {
        guard context.extraProviders.isEmpty else {
            throw CLIError.hostUnavailable(
                "this executable adds providers but does not link the hosts, so \(name) would serve without them; "
                    + "call SeekHostsMain.main(extraProviders:) (module SeekHosts) to serve them")
        }
        guard context.stdout is FileDescriptorSink, context.stderr is FileDescriptorSink else {
            throw CLIError.hostUnavailable(
                "\(arguments.first ?? "this command") runs in \(name), a process of its own; "
                    + "a run whose output is captured in memory (SeekMain.run in-process) cannot hand its process over")
        }
        guard let path = expectedPath(), access(path, X_OK) == 0 else {
            throw CLIError.hostUnavailable(
                "\(arguments.first ?? "this command") runs in \(name), and there is no executable one beside seek (\(expectedPath() ?? name))"
                    + "; build it with `swift build -c release --product \(name) --static-swift-stdlib`")
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = context.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(path, argv, envp)
        let cause = String(cString: strerror(errno))
        (argv + envp).forEach { free($0) }
        throw CLIError.hostUnavailable("cannot run \(path): \(cause)")
    }

    /// Where `seek-hosts` belongs: in the directory of the running executable, symbolic links resolved
    /// (so a linked `seek` finds the one it was built with).
    static func expectedPath() -> String? {
        guard let executable = currentExecutable(), let slash = executable.lastIndex(of: "/") else { return nil }
        return String(executable[...slash]) + name
    }

    private static func currentExecutable() -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 { return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        // No /proc (a bare container): the path the process was started by, when it names one.
        guard let first = CommandLine.arguments.first, first.contains("/"), let real = realpath(first, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
        #else
        var size: UInt32 = 4096
        var buffer = [CChar](repeating: 0, count: Int(size))
        guard _NSGetExecutablePath(&buffer, &size) == 0, let real = realpath(buffer, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
        #endif
    }
}
