import ArgumentParser
import SeekCore
import SeekSupport

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

    @Option(name: .customLong("base-path"), help: "Serve everything under this path (/books), for a proxy's location /books/; also SEEK_BASE_PATH.")
    package var basePath: String?

    package init() {}

    package func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard !host.trimmed().isEmpty else { throw ValidationError("--host must not be empty") }
        guard !(isPublic && personal) else { throw ValidationError("--public and --personal cannot both be given") }
    }

    /// The options as arguments again, for the host executable.
    var arguments: [String] {
        ["--host", host, "--port", String(port)] + (demo ? ["--demo"] : []) + (isPublic ? ["--public"] : []) + (personal ? ["--personal"] : [])
            + (basePath.map { ["--base-path", $0] } ?? [])
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
        let command = arguments.first ?? "this command"
        guard let path = expectedPath(), access(path, X_OK) == 0 else {
            throw CLIError.hostUnavailable(
                "\(command) runs in \(name), and there is no executable one beside seek (\(expectedPath() ?? name)); build it with \(rebuildHint)")
        }
        switch build(of: path) {
        case .same:
            break
        case .other(let id):
            throw CLIError.hostUnavailable(
                "\(path) is another build of \(name) (build \(id), this seek is build \(SeekBuild.id)), so \(command) is not handed to it; "
                    + "rebuild both from one tree with \(rebuildHint)")
        case .foreign:
            throw CLIError.hostUnavailable(
                "\(path) is not a \(name) built with this seek (it carries no seek build id), so it is not run; "
                    + "build it beside seek with \(rebuildHint)")
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = context.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(path, argv, envp)
        let cause = String(cString: strerror(errno))
        (argv + envp).forEach { free($0) }
        throw CLIError.hostUnavailable("cannot run \(path): \(cause)")
    }

    /// The commands that build `seek-hosts` for this `seek`: the same configuration (a debug `seek` looks
    /// for its host in `.build/debug`, a release one in `.build/release`).
    static var rebuildHint: String {
        #if DEBUG
        "`swift build` (debug: it builds seek and \(name))"
        #else
        "`swift build -c release --product seek --static-swift-stdlib && swift build -c release --product \(name) --static-swift-stdlib`"
        #endif
    }

    /// Which build a `seek-hosts` file is, read from its bytes (never by running it).
    enum Build: Equatable {
        /// It carries this `seek`'s build id.
        case same
        /// It carries another tree's build id (a stale build).
        case other(id: String)
        /// It carries no build id: not a `seek-hosts` (or one older than build ids).
        case foreign
    }

    /// The marker every `seek-hosts` carries, `seek-build-id:` and the build id, looked for in the mapped file.
    static let markerPrefix = "seek-build-id:"

    static func build(of path: String) -> Build {
        MappedFile.reading(path) { file -> Build in
            // The marker is a string literal: in an ELF executable it sits in a data section, a fifth of the file.
            let regions = ELFFile.dataSections(of: file) ?? [file]
            // Built here rather than written as one literal, so that `seek` itself never carries the marker.
            let prefix = Array(markerPrefix.utf8)
            let own = prefix + Array(SeekBuild.id.utf8)
            // Anchored on the prefix's `:`, a byte six times rarer in an executable than its `s`.
            let anchor = prefix.count - 1
            if regions.contains(where: { $0.firstOffset(of: own, anchoredAt: anchor) != nil }) { return .same }
            // Another build's marker: the prefix followed by a whole id (the prefix alone may be a literal of seek's own code).
            let isHexDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) }
            let idLength = SeekBuild.id.utf8.count
            for region in regions {
                var from = 0
                while let found = region.firstOffset(of: prefix, anchoredAt: anchor, from: from) {
                    let start = found + prefix.count
                    let id = region.array(start..<min(region.count, start + idLength))
                    if id.count == idLength, id.allSatisfy(isHexDigit) { return .other(id: String(decoding: id, as: UTF8.self)) }
                    from = start
                }
            }
            return .foreign
        } ?? .foreign
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
