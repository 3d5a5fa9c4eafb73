import Foundation
import MCP
import SeekKit
import SeekCore
import SeekLoopback
import SeekMCP
import SeekRuntime
import SeekTesting
import Synchronization

/// A Seek MCP server on an in-memory transport with the SDK's client connected, over a session
/// whose providers all point at a loopback fixture server, with a private home.
struct MCPHarness {
    let fixtures: FixtureServer
    let home: URL
    let session: SeekSession
    let server: Server
    let client: Client
    let diagnostics: DiagnosticLines

    /// Starts the fixture server; `routes` installs its answers before the session opens.
    static func start(keys: Bool = true, _ routes: (FixtureServer) -> Void = { _ in }) async throws -> MCPHarness {
        let fixtures = try await FixtureServer.start()
        KeylessStandIns.serveNothing(on: fixtures)  // Crossref and Project Gutenberg answer with nothing found
        routes(fixtures)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-mcp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = [
            "HOME": home.path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path,
            "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
            "SEEK_OPENLIBRARY_URL": fixtures.url("/ol").absoluteString,
            "SEEK_OPENLIBRARY_COVERS_URL": fixtures.url("/covers").absoluteString,
            "SEEK_GIPHY_URL": fixtures.url("/giphy").absoluteString,
            "SEEK_ALADIN_URL": fixtures.url("/aladin/ttb/api").absoluteString,
        ].merging(KeylessStandIns.environment(fixtures)) { $1 }
        if keys {
            environment["SEEK_GIPHY_API_KEY"] = Samples.giphyKey
            environment["SEEK_ALADIN_TTB_KEY"] = Samples.aladinKey
        }
        let diagnostics = DiagnosticLines()
        let session = try await SeekSession.open(settings: try Settings.load(environment: environment)) { diagnostics.append($0) }
        let (clientSide, serverSide) = await InMemoryTransport.createConnectedPair()
        let server = try await SeekMCPServer(session: session) { diagnostics.append($0) }.start(on: serverSide)
        let client = Client(name: "seek-tests", version: "1")
        try await client.connect(transport: clientSide)
        return MCPHarness(fixtures: fixtures, home: home, session: session, server: server, client: client, diagnostics: diagnostics)
    }

    func stop() async throws {
        await client.disconnect()
        await server.stop()
        await session.close()
        try? FileManager.default.removeItem(at: home)
        try await fixtures.shutdown()
    }

    /// Calls `tool` and returns its whole result (content, structured content, isError).
    func call(_ tool: String, _ arguments: [String: Value] = [:]) async throws -> CallTool.Result {
        try await client.send(CallTool.request(.init(name: tool, arguments: arguments))).value
    }

    func tools() async throws -> [String: Tool] {
        let tools = try await client.listTools().tools
        return Dictionary(tools.map { ($0.name, $0) }) { first, _ in first }
    }
}

/// Lines the session and the server sent to their diagnostics.
final class DiagnosticLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

extension CallTool.Result {
    /// The text content, joined.
    var text: String {
        content.compactMap { if case .text(let text, _, _) = $0 { return text } else { return nil } }.joined(separator: "\n")
    }

    /// The structured content as Foundation JSON, for reading like the CLI tests read stdout.
    var document: [String: Any]? {
        guard let structuredContent, let data = try? JSONEncoder().encode(structuredContent) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    var items: [[String: Any]] { document?["items"] as? [[String: Any]] ?? [] }
}

/// Small bodies of the project's own in the real APIs' shapes (as the CLI tests' samples).
enum Samples {
    static let giphyKey = "giphy-test-key-3f9a"
    static let aladinKey = "aladin-test-key-77c1"

    static func olDoc(_ number: Int, title: String, isbns: [String] = [], year: Int? = nil, author: String? = nil) -> String {
        let isbnList = isbns.map { "\"\($0)\"" }.joined(separator: ",")
        return """
            {"key": "/works/OL\(number)W", "title": "\(title)", "author_name": ["\(author ?? "Author \(number)")"],
             "first_publish_year": \(year.map(String.init) ?? "null"), "isbn": [\(isbnList)]}
            """
    }

    static func openLibrary(_ docs: [String]) -> String {
        #"{"numFound": \#(docs.count), "start": 0, "docs": [\#(docs.joined(separator: ","))]}"#
    }




    static let work = """
        {"title": "Fantastic Mr Fox", "key": "/works/OL45804W",
         "authors": [{"author": {"key": "/authors/OL34184A"}, "type": {"key": "/type/author_role"}}],
         "type": {"key": "/type/work"}, "description": "The main character of Fantastic Mr. Fox is a fox.",
         "covers": [6498519], "subjects": ["Foxes", "Farmers"], "first_publish_date": "1970"}
        """
    static let author = #"{"name": "Roald Dahl", "key": "/authors/OL34184A", "type": {"key": "/type/author"}}"#

    /// "Quiet" at Open Library (ISBN-10 and -13) and at Aladin (its ISBN-13), plus one book each.
    static func serveQuiet(on server: FixtureServer) {
        server.route("/ol/search.json", .json(openLibrary([
            olDoc(1, title: "Quiet", isbns: ["0307352145", "9780307352149"], year: 2012, author: "Susan Cain"),
            olDoc(2, title: "Something Else", isbns: ["9780306406157"]),
        ])))
        server.route("/aladin/ttb/api/ItemSearch.aspx", .json(ProviderSamples.aladin([
            ProviderSamples.aladinItem(isbn13: "9780307352149", title: "콰이어트", itemId: 11, pubDate: "2013-01-05"),
        ])))
        server.route("/giphy/v1/gifs/search", .json(ProviderSamples.giphy([])))
    }

    /// Mr Fox's work and author at Open Library.
    static func serveMrFox(on server: FixtureServer) {
        server.route("/ol/works/OL45804W.json", .json(work))
        server.route("/ol/authors/OL34184A.json", .json(author))
    }
}
