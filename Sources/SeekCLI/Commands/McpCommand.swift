import ArgumentParser
import SeekMCP
import SeekSession

/// `seek mcp [--demo]`: Seek's tools for an AI assistant over the Model Context Protocol on stdio.
struct McpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve Seek to an AI assistant over MCP on stdin/stdout (until the client closes stdin).",
        discussion: """
            Tools: search, detail, trending, suggest, providers, favorites_list, favorites_add, favorites_remove; \
            resources: seek://favorites, seek://history. stdout carries only protocol messages; diagnostics go to stderr. \
            Client configuration: {"command": "seek", "args": ["mcp"]}.
            """)

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    var demo = false

    func run() async throws {
        try await Session.with(demo: demo) { session in
            let context = session.context
            let server = SeekMCPServer(session: session.core) { line in context.err("seek: " + line) }
            try await server.serveStandardIO()
            return ExitStatus.success
        }
    }
}
