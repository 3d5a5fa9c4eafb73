import Foundation
import Logging
import MCP
import SeekCore
import SeekRuntime
import SeekStore

/// `seek mcp`: Seek's tools and resources for an AI assistant, over one session that stays open
/// while the client is connected (caches warm, connections kept). The host opens and closes the session.
package struct SeekMCPServer: Sendable {
    package let session: SeekSession
    private let calls: ToolCalls
    private let tools: [Tool]
    private let resources: UserStateResources
    private let logger: Logger

    /// - Parameter diagnostics: told, one line at a time, what the user should know that is not a
    ///   result (a history that cannot be written); the CLI sends it to stderr.
    package init(session: SeekSession, diagnostics: @escaping @Sendable (String) -> Void = { _ in }) {
        self.session = session
        let tools = ToolCatalog.tools(providerIDs: session.providerIDs)
        self.tools = tools
        calls = ToolCalls(session: session, tools: Dictionary(tools.map { ($0.name, $0) }) { first, _ in first }, diagnostics: diagnostics)
        resources = UserStateResources(session: session)
        var logger = Logger(label: "seek.mcp") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        self.logger = logger
    }

    /// Starts answering on `transport` and returns the running server (`stop()` ends it).
    package func start(on transport: any Transport) async throws -> Server {
        let server = Server(
            name: "seek", version: SeekVersion.current, title: "Seek",
            instructions: """
                Seek searches several sources at once (books: Open Library and Aladin; GIFs: GIPHY) and \
                returns one merged, ranked list; the same book from two sources is one item with two sources. \
                Use search, then detail or favorites_add with an item's id (PROVIDER:ID).
                """,
            capabilities: .init(resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false)))
        let (tools, calls, resources) = (self.tools, self.calls, self.resources)
        await server.withMethodHandler(ListTools.self) { _ in ListTools.Result(tools: tools) }
        await server.withMethodHandler(CallTool.self) { params in
            try await calls.call(params.name, arguments: params.arguments)
        }
        await server.withMethodHandler(ListResources.self) { _ in ListResources.Result(resources: UserStateResources.listed) }
        await server.withMethodHandler(ReadResource.self) { params in
            ReadResource.Result(contents: [try await resources.read(params.uri)])
        }
        try await server.start(transport: transport)
        return server
    }

    /// Serves over stdin and stdout until the client closes stdin and every request read has been
    /// answered. Only protocol messages go to stdout; the SDK's warnings go to stderr.
    package func serveStandardIO() async throws {
        let transport = AnsweringTransport(StdioTransport(logger: logger), logger: logger)
        let server = try await start(on: transport)
        await server.waitUntilCompleted()
        await server.stop()
    }
}

/// `seek://favorites` and `seek://history`: the CLI's `{ "entries": [...] }` documents.
struct UserStateResources: Sendable {
    let session: SeekSession

    static let favorites = "seek://favorites"
    static let history = "seek://history"

    static let listed = [
        Resource(
            name: "favorites", uri: favorites, title: "Favourites",
            description: "The favourites, most recently added first (as `seek favorites list --format json`).",
            mimeType: "application/json"),
        Resource(
            name: "history", uri: history, title: "Search history",
            description: "Recent searches, most recent first (as `seek history --format json`).",
            mimeType: "application/json"),
    ]

    func read(_ uri: String) async throws -> Resource.Content {
        let text: String
        do {
            switch uri {
            case Self.favorites:
                text = JSONText.pretty(EntriesDocument(entries: try await session.favorites(of: .instanceOwner).map(FavoriteDocument.init)))
            case Self.history:
                text = JSONText.pretty(EntriesDocument(entries: try await session.history(of: .instanceOwner).map(HistoryDocument.init)))
            default:
                // MCP's "resource not found".
                throw MCPError.serverError(code: -32002, message: "resource not found: \(uri) (resources: \(Self.favorites), \(Self.history))")
            }
        } catch let error as MCPError {
            throw error
        } catch {
            throw MCPError.internalError("user state: \(error)")
        }
        return .text(text, uri: uri, mimeType: "application/json")
    }
}
