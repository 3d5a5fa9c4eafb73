import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekLoopback
import SeekWeb
import SeekRuntime
import SeekTesting
import Testing

/// Every route of DESIGN's table, answered through the router (no sockets).
@Suite("seek serve: the JSON API")
struct ServerRouteTests {
    @Test("a search answers the CLI's search document: the same book from two providers is one item")
    func searchMergesAcrossProviders() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let json = try await harness.withRouter { client in
            try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary,aladin", method: .get) { $0 }
        }.json
        try await harness.stop()
        let items = try #require(json?["items"] as? [[String: Any]])
        let merged = try #require(items.first { ($0["isbn13"] as? [String])?.contains("9791130605210") == true })
        #expect((merged["sources"] as? [[String: Any]])?.count == 2)
        #expect(json?["query"] as? String == "harbor")
        #expect(outcomes(json)["openlibrary"]?["status"] as? String == "ok")
        #expect(outcomes(json)["aladin"]?["status"] as? String == "ok")
    }

    @Test("bad parameters are 400 with a JSON error naming the parameter", arguments: [
        ("/api/v1/search", "missing_parameter"),
        ("/api/v1/search?q=", "missing_parameter"),
        ("/api/v1/search?q=x&limit=0", "invalid_parameter"),
        ("/api/v1/search?q=x&limit=101", "invalid_parameter"),
        ("/api/v1/search?q=x&limit=-1", "invalid_parameter"),
        ("/api/v1/search?q=x&limit=abc", "invalid_parameter"),
        ("/api/v1/search?q=x&limit=1e309", "invalid_parameter"),
        ("/api/v1/search?q=x&limit=99999999999999999999999", "invalid_parameter"),
        ("/api/v1/search?q=x&page=0", "invalid_parameter"),
        ("/api/v1/search?q=x&page=1000000000000000000", "invalid_parameter"),
        ("/api/v1/search?q=x&page=5001&limit=100", "invalid_parameter"),
        ("/api/v1/search?q=x&page=2&cursor=abc", "invalid_parameter"),
        ("/api/v1/search?q=x&cursor=not-a-cursor", "invalid_cursor"),
        ("/api/v1/search?q=x&providers=nope", "unknown_provider"),
        ("/api/v1/search?q=x&rank=best", "invalid_parameter"),
        ("/api/v1/search?q=x&rating=nc-17", "invalid_parameter"),
        ("/api/v1/search?q=x&explain=maybe", "invalid_parameter"),
        ("/api/v1/search/stream?q=x&limit=0", "invalid_parameter"),
        ("/api/v1/items/nocolon", "invalid_id"),
        ("/api/v1/items/nope:1", "unknown_provider"),
        ("/api/v1/items/openlibrary:OL1W/image?size=huge", "invalid_parameter"),
        ("/api/v1/trending?limit=500", "invalid_parameter"),
        ("/api/v1/suggest", "missing_parameter"),
        ("/api/v1/suggest?q=ca&providers=openlibrary,nope", "unknown_provider"),
    ])
    func badParameter(uri: String, code: String) async throws {
        let harness = try await ServerHarness.start()
        let (status, response) = try await harness.withRouter { client in
            try await client.execute(uri: uri, method: .get) { ($0.status, $0) }
        }
        let json = response.json
        try await harness.stop()
        #expect(status == .badRequest)
        let error = try #require(json?["error"] as? [String: Any])
        #expect(error["code"] as? String == code)
        #expect((error["message"] as? String)?.isEmpty == false)
    }

    @Test("no route is a 404 and a wrong method a 405, both as JSON errors")
    func unknownRoutes() async throws {
        let harness = try await ServerHarness.start()
        let (missing, wrongMethod) = try await harness.withRouter { client in
            let missing = try await client.execute(uri: "/api/v2/nothing", method: .get) { ($0.status, $0) }
            let wrong = try await client.execute(uri: "/api/v1/search?q=x", method: .post) { ($0.status, $0) }
            return (missing, wrong)
        }
        try await harness.stop()
        #expect(missing.0 == .notFound)
        #expect((missing.1.json?["error"] as? [String: Any])?["code"] as? String == "not_found")
        #expect([.methodNotAllowed, .notFound].contains(wrongMethod.0))
        #expect(wrongMethod.1.json?["error"] != nil)
    }

    @Test("next is a short token that continues the search without repeating an item")
    func cursorContinues() async throws {
        let harness = try await ServerHarness.start()
        ProviderSamples.serveManyWorks(harness.fixtures, count: 250)
        let pages = try await harness.withRouter { client in
            let first = try await client.execute(uri: "/api/v1/search?q=works&providers=openlibrary&limit=100", method: .get) { $0 }
            let next = try #require(first.json?["next"] as? String)
            let second = try await client.execute(uri: "/api/v1/search?q=works&providers=openlibrary&limit=100&cursor=\(next)", method: .get) { $0 }
            return (first, second)
        }
        let (first, second) = (pages.0.json, pages.1.json)
        try await harness.stop()
        let next = try #require(first?["next"] as? String)
        #expect(next.utf8.count < 64)
        let firstIDs = Set((first?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        let secondIDs = Set((second?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        #expect(firstIDs.count == 100 && secondIDs.count == 100)
        #expect(firstIDs.isDisjoint(with: secondIDs))
        #expect(second?["page"] as? Int == 2)
    }

    @Test("the stream sends a batch line per provider, then the summary; every line parses")
    func streamLines() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let body = try await harness.withRouter { client in
            try await client.execute(uri: "/api/v1/search/stream?q=harbor&providers=openlibrary,aladin", method: .get) { response in
                #expect(response.headers[.contentType]?.hasPrefix("application/x-ndjson") == true)
                return response.text
            }
        }
        try await harness.stop()
        let lines = body.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0 != nil })
        #expect(Set(lines.prefix(2).compactMap { $0?["provider"] as? String }) == ["openlibrary", "aladin"])
        #expect(lines.last??["type"] as? String == "summary")
        #expect((lines.last??["items"] as? [[String: Any]])?.count == 2)
    }

    @Test("detail answers the item document with its full fields")
    func detail() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        let json = try await harness.withRouter { client in
            try await client.execute(uri: "/api/v1/items/openlibrary:OL45804W", method: .get) { $0 }
        }.json
        try await harness.stop()
        #expect(json?["id"] as? String == "openlibrary:OL45804W")
        #expect(json?["title"] as? String == "Fantastic Mr Fox")
        #expect(json?["description"] as? String == "The main character of Fantastic Mr. Fox is a fox.")
        #expect((json?["sources"] as? [[String: Any]])?.count == 1)
    }

    @Test("a provider failure on detail is a JSON error naming the provider, with its status")
    func detailFailure() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL9W.json", .json("{}", status: 404))
        harness.fixtures.route("/ol/works/OL8W.json", .json("oops", status: 500))
        let (missing, broken) = try await harness.withRouter { client in
            let missing = try await client.execute(uri: "/api/v1/items/openlibrary:OL9W", method: .get) { ($0.status, $0) }
            let broken = try await client.execute(uri: "/api/v1/items/openlibrary:OL8W?no_cache=true", method: .get) { ($0.status, $0) }
            return (missing, broken)
        }
        try await harness.stop()
        #expect(missing.0 == .notFound)
        #expect(broken.0 == .badGateway)
        let message = (broken.1.json?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.hasPrefix("openlibrary:"))
    }

    @Test("an image comes through the cache with its type, an ETag and Cache-Control; If-None-Match gets 304")
    func imageWithValidators() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        harness.fixtures.route("/covers/b/id/6498519-M.jpg", FixtureResponse(
            headers: [("Content-Type", "image/jpeg")], body: OpenLibrarySamples.coverBytes))
        let (first, again) = try await harness.withRouter { client in
            let first = try await client.execute(uri: "/api/v1/items/openlibrary:OL45804W/image", method: .get) { $0 }
            let tag = first.headers[.eTag] ?? ""
            let again = try await client.execute(
                uri: "/api/v1/items/openlibrary:OL45804W/image?size=medium", method: .get, headers: [.ifNoneMatch: tag]) { $0 }
            return (first, again)
        }
        try await harness.stop()
        #expect(first.status == .ok)
        #expect(Array(first.body.readableBytesView) == OpenLibrarySamples.coverBytes)
        #expect(first.headers[.contentType] == "image/jpeg")
        #expect(first.headers[.cacheControl]?.contains("max-age") == true)
        #expect(first.headers[.eTag]?.hasPrefix("\"") == true)
        #expect(again.status == .notModified)
        #expect(again.body.readableBytes == 0)
    }

    @Test("concurrent requests for one image make one upstream fetch")
    func imageCoalesces() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        harness.fixtures.route("/covers/b/id/6498519-M.jpg", FixtureResponse(
            headers: [("Content-Type", "image/jpeg")], body: OpenLibrarySamples.coverBytes))
        harness.fixtures.route("/covers/b/id/6498519-M.jpg", fault: .delay(.milliseconds(300)))
        let statuses = try await harness.withRouter { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.execute(uri: "/api/v1/items/openlibrary:OL45804W/image", method: .get) { $0.status } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let fetches = harness.fixtures.requestCount(path: "/covers/b/id/6498519-M.jpg")
        try await harness.stop()
        #expect(statuses.allSatisfy { $0 == .ok })
        #expect(fetches == 1)
    }

    @Test("favourites round-trip: PUT adds a snapshot, GET lists it, DELETE removes it")
    func favoritesRoundTrip() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        let responses = try await harness.withRouter { client in
            let added = try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .put) { $0 }
            let listed = try await client.execute(uri: "/api/v1/favorites", method: .get) { $0 }
            let removed = try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .delete) { $0 }
            return (added, listed, removed)
        }
        let (added, listed, removed) = (responses.0.json, responses.1.json, responses.2.json)
        try await harness.stop()
        let entries = try #require(listed?["entries"] as? [[String: Any]])
        #expect((added?["entries"] as? [[String: Any]])?.count == 1)
        #expect(entries.first?["id"] as? String == "openlibrary:OL45804W")
        #expect(entries.first?["title"] as? String == "Fantastic Mr Fox")
        #expect((removed?["entries"] as? [[String: Any]])?.isEmpty == true)
    }

    @Test("a search is recorded in the history; DELETE clears it")
    func history() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let responses = try await harness.withRouter { client in
            _ = try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get) { $0.status }
            let listed = try await client.execute(uri: "/api/v1/history", method: .get) { $0 }
            let cleared = try await client.execute(uri: "/api/v1/history", method: .delete) { $0 }
            let after = try await client.execute(uri: "/api/v1/history", method: .get) { $0 }
            return (listed, cleared, after)
        }
        let (listed, cleared, after) = (responses.0.json, responses.1.json, responses.2.json)
        try await harness.stop()
        let entries = try #require(listed?["entries"] as? [[String: Any]])
        #expect(entries.first?["query"] as? String == "harbor")
        #expect(entries.first?["providers"] as? [String] == ["openlibrary"])
        #expect((cleared?["entries"] as? [Any])?.isEmpty == true)
        #expect((after?["entries"] as? [Any])?.isEmpty == true)
    }

    @Test("trending, suggest, providers, stats and healthz answer their documents")
    func serviceDocuments() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/giphy/v1/gifs/trending", .json(ProviderSamples.giphy(["t1", "t2"])))
        harness.fixtures.route("/giphy/v1/gifs/search/tags", .json(#"{"data": [{"name": "cats"}, {"name": "cat dance"}], "meta": {"status": 200, "msg": "OK"}}"#))
        let responses = try await harness.withRouter { client in
            let trending = try await client.execute(uri: "/api/v1/trending?providers=giphy&limit=2", method: .get) { $0 }
            let suggest = try await client.execute(uri: "/api/v1/suggest?q=cat&providers=giphy", method: .get) { $0 }
            let providers = try await client.execute(uri: "/api/v1/providers", method: .get) { $0 }
            let stats = try await client.execute(uri: "/api/v1/stats", method: .get) { $0 }
            let health = try await client.execute(uri: "/healthz", method: .get) { $0.status }
            return (trending, suggest, providers, stats, health)
        }
        let (trending, suggest, providers, stats) = (responses.0.json, responses.1.json, responses.2.json, responses.3.json)
        let health = responses.4
        try await harness.stop()
        #expect((trending?["items"] as? [Any])?.count == 2)
        #expect(trending?["query"] == nil)
        #expect(suggest?["prefix"] as? String == "cat")
        #expect((suggest?["suggestions"] as? [String])?.isEmpty == false)
        #expect((providers?["providers"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == CompositionRoot.builtInProviders.map(\.id))
        #expect(stats?["window"] != nil)
        #expect(health == .ok)
    }

    @Test("no key appears in any answer, even when the upstream error echoes the request URL")
    func keysNeverLeak() async throws {
        let harness = try await ServerHarness.start()
        let key = try #require(ProviderSamples.keys["SEEK_GIPHY_API_KEY"])
        harness.fixtures.route(ProviderSamples.giphyPath, .json(#"{"meta": {"status": 500, "msg": "failed for api_key=\#(key)"}}"#, status: 500))
        let texts = try await harness.withRouter { client in
            [
                try await client.execute(uri: "/api/v1/search?q=cat&providers=giphy&no_cache=1", method: .get) { $0.text },
                try await client.execute(uri: "/api/v1/providers", method: .get) { $0.text },
                try await client.execute(uri: "/api/v1/stats", method: .get) { $0.text },
            ]
        }
        try await harness.stop()
        for text in texts { #expect(!text.contains(key)) }
    }

    @Test("the OpenAPI document's paths are exactly the routes the server answers")
    func openAPIMatchesRoutes() async throws {
        let harness = try await ServerHarness.start()
        let yaml = try await harness.withRouter { client in
            try await client.execute(uri: "/openapi.yaml", method: .get) { $0.text }
        }
        try await harness.stop()
        // Path keys sit two spaces in under `paths:`, each with its methods four spaces in.
        var documented: Set<String> = []
        var path: String?
        var inPaths = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.hasPrefix(" "), !line.isEmpty { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") { path = String(line.dropFirst(2).dropLast()); continue }
            for method in ["get", "put", "delete", "post"] where line == "    \(method):" {
                documented.insert("\(method.uppercased()) \(path ?? "")")
            }
        }
        let routed = Set(SeekServerRoutes.all.map { "\($0.method) \($0.path)" })
        #expect(!routed.isEmpty)
        #expect(documented == routed)
    }
}

/// `POST /mcp`: the MCP server on the server's session, over Streamable HTTP.
@Suite("seek serve: MCP over Streamable HTTP")
struct MCPRouteTests {
    static var headers: HTTPFields {
        var fields: HTTPFields = [.contentType: "application/json", .accept: "application/json, text/event-stream"]
        if let version = HTTPField.Name("MCP-Protocol-Version") { fields[version] = "2025-06-18" }
        return fields
    }

    func post(_ client: any TestClientProtocol, _ json: String) async throws -> TestResponse {
        try await client.execute(uri: "/mcp", method: .post, headers: Self.headers, body: ByteBuffer(string: json)) { $0 }
    }

    @Test("initialize, then tools/list names Seek's eight tools")
    func listsTools() async throws {
        let harness = try await ServerHarness.start()
        let (initialized, listed) = try await harness.withRouter { client in
            let initialized = try await post(client, #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#)
            let listed = try await post(client, #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
            return (initialized, listed)
        }
        try await harness.stop()
        #expect(initialized.status == .ok)
        #expect((initialized.json?["result"] as? [String: Any])?["serverInfo"] != nil)
        let tools = ((listed.json?["result"] as? [String: Any])?["tools"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(Set(tools) == ["search", "detail", "trending", "suggest", "providers", "favorites_list", "favorites_add", "favorites_remove"])
    }

    @Test("a tool call answers the CLI's document as structured content; a bad id is isError")
    func callsTools() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let (search, bad) = try await harness.withRouter { client in
            _ = try await post(client, #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#)
            let search = try await post(client, #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"harbor","providers":["openlibrary","aladin"]}}}"#)
            let bad = try await post(client, #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"detail","arguments":{"id":"nocolon"}}}"#)
            return (search, bad)
        }
        try await harness.stop()
        let result = try #require(search.json?["result"] as? [String: Any])
        let structured = try #require(result["structuredContent"] as? [String: Any])
        #expect((structured["items"] as? [Any])?.count == 2)
        #expect(result["isError"] as? Bool == false)
        #expect((bad.json?["result"] as? [String: Any])?["isError"] as? Bool == true)
    }
}
