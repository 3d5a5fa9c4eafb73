import ArgumentParser
import SeekCLI
import SeekMCP

/// `seek mcp [--demo]`: Seek's tools for an AI assistant over the Model Context Protocol on stdio.
struct McpCommand: AsyncParsableCommand {
    static let configuration = McpOptions.configuration

    @OptionGroup var options: McpOptions

    func run() async throws {
        try await CommandContext.with(demo: options.demo) { session in
            let context = session.context
            let server = SeekMCPServer(session: session.core) { line in context.err("seek: " + line) }
            try await server.serveStandardIO()
            return ExitStatus.success
        }
    }
}
