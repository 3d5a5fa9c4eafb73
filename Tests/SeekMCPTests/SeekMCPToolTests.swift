import Foundation
import MCP
import SeekKit
import SeekLoopback
import SeekMCP
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek mcp: the tools list and their schemas")
struct ToolListTests {
    @Test("the server lists the eight tools DESIGN names")
    func toolNames() async throws {
        let harness = try await MCPHarness.start()
        let tools = try await harness.tools()
        try await harness.stop()
        #expect(Set(tools.keys) == [
            "search", "detail", "trending", "suggest", "providers", "favorites_list", "favorites_add", "favorites_remove",
        ])
    }

    @Test("search's input requires a query, bounds limit to 1–100 and enumerates providers and rankings")
    func searchInputSchema() async throws {
        let harness = try await MCPHarness.start()
        let search = try #require(try await harness.tools()["search"])
        try await harness.stop()
        let schema = try #require(search.inputSchema.objectValue)
        let properties = try #require(schema["properties"]?.objectValue)
        #expect(schema["required"] == ["query"])
        #expect(properties["query"]?.objectValue?["type"] == "string")
        #expect(properties["limit"]?.objectValue?["minimum"] == 1)
        #expect(properties["limit"]?.objectValue?["maximum"] == 100)
        #expect(properties["providers"]?.objectValue?["items"]?.objectValue?["enum"]
            == .array(CompositionRoot.builtInProviders.map { .string($0.id) }))
        #expect(properties["rank"]?.objectValue?["enum"] == ["searxng", "rrf"])
        #expect(properties["group"]?.objectValue?["enum"] == ["work", "edition"])
        #expect(properties["explain"]?.objectValue?["type"] == "boolean")
        #expect(Set(properties.keys) == ["query", "providers", "limit", "cursor", "language", "rank", "group", "explain"])
    }

    @Test("every tool has an object input schema and an output schema")
    func everyToolHasSchemas() async throws {
        let harness = try await MCPHarness.start()
        let tools = try await harness.tools()
        try await harness.stop()
        for (name, tool) in tools {
            #expect(tool.inputSchema.objectValue?["type"] == "object", "\(name)")
            #expect(tool.outputSchema?.objectValue?["type"] == "object", "\(name)")
            #expect(tool.description?.isEmpty == false, "\(name)")
        }
        #expect(tools["detail"]?.inputSchema.objectValue?["required"] == ["id"])
        #expect(tools["suggest"]?.inputSchema.objectValue?["required"] == ["prefix"])
    }

    @Test("only favorites_add and favorites_remove are marked as changing anything")
    func readOnlyAnnotations() async throws {
        let harness = try await MCPHarness.start()
        let tools = try await harness.tools()
        try await harness.stop()
        let writers = Set(tools.values.filter { $0.annotations.readOnlyHint == false }.map(\.name))
        #expect(writers == ["favorites_add", "favorites_remove"])
        #expect(tools.values.allSatisfy { $0.annotations.readOnlyHint != nil && $0.annotations.openWorldHint != nil })
        #expect(tools["providers"]?.annotations.openWorldHint == false)
        #expect(tools["search"]?.annotations.openWorldHint == true)
        #expect(tools["favorites_remove"]?.annotations.destructiveHint == true)
        #expect(tools["favorites_add"]?.annotations.idempotentHint == true)
    }
}

@Suite("seek mcp: search")
struct SearchToolTests {
    @Test("a book Open Library and Aladin both have (same ISBN) is one item with two sources")
    func mergedItem() async throws {
        let harness = try await MCPHarness.start { Samples.serveQuiet(on: $0) }
        let result = try await harness.call("search", ["query": "quiet", "providers": ["openlibrary", "aladin"]])
        try await harness.stop()
        #expect(result.isError != true, "\(result.text)")
        #expect(result.items.count == 2)
        let quiet = try #require(result.items.first)
        let sources = try #require(quiet["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["id"] as? String } == ["openlibrary:OL1W", "aladin:9780307352149"])
        #expect(quiet["isbn13"] as? [String] == ["9780307352149"])
        #expect(result.text.contains("1. Quiet — "), "\(result.text)")
        #expect(result.text.contains("(2012) · openlibrary:OL1W [2 sources]"), "\(result.text)")
    }

    @Test("the structured content is the CLI's search document: query, page, items, providers, next")
    func documentShape() async throws {
        let harness = try await MCPHarness.start { Samples.serveQuiet(on: $0) }
        let result = try await harness.call("search", ["query": "quiet", "providers": ["openlibrary"]])
        try await harness.stop()
        let document = try #require(result.document)
        #expect(Set(document.keys) == ["query", "page", "items", "providers", "next"])
        #expect(document["query"] as? String == "quiet")
        #expect(document["page"] as? Int == 1)
        #expect(document["next"] is NSNull)
        let outcome = try #require((document["providers"] as? [[String: Any]])?.first)
        #expect(outcome["id"] as? String == "openlibrary")
        #expect(outcome["status"] as? String == "ok")
        #expect(outcome["count"] as? Int == 2)
        let item = try #require(result.items.first)
        #expect(Set(item.keys).isSuperset(of: ["id", "provider", "kind", "title", "subtitle", "creators", "year", "isbn13", "imageURL", "url", "score", "sources"]))
    }

    @Test("a search where one provider fails is a normal result that lists that provider's status")
    func someProvidersFail() async throws {
        let harness = try await MCPHarness.start { server in
            Samples.serveQuiet(on: server)
            server.route("/aladin/ttb/api/ItemSearch.aspx", .json(#"{"error": "down"}"#, status: 500))
        }
        let result = try await harness.call("search", ["query": "quiet", "providers": ["openlibrary", "aladin"]])
        try await harness.stop()
        #expect(result.isError != true, "\(result.text)")
        let outcomes = (result.document?["providers"] as? [[String: Any]]) ?? []
        #expect(outcomes.compactMap { $0["status"] as? String } == ["ok", "error"])
        #expect((outcomes.last?["error"] as? String)?.contains("500") == true)
        #expect(result.items.count == 2)
    }

    @Test("a search no provider answered is an error naming each provider and its cause")
    func noProviderAnswered() async throws {
        let harness = try await MCPHarness.start { server in
            server.route("/ol/search.json", .json(#"{"error": "down"}"#, status: 503))
        }
        let result = try await harness.call("search", ["query": "quiet", "providers": ["openlibrary"]])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text.contains("no provider answered"), "\(result.text)")
        #expect(result.text.contains("openlibrary: error: HTTP 503"), "\(result.text)")
    }

    @Test("an unknown provider is an error that lists the known ones")
    func unknownProvider() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("search", ["query": "quiet", "providers": ["nowhere"]])
        try await harness.stop()
        #expect(result.isError == true)
        let known = CompositionRoot.builtInProviders.map(\.id).joined(separator: ", ")
        #expect(result.text.contains("unknown provider 'nowhere' (known: \(known))"), "\(result.text)")
    }

    @Test("a limit outside 1–100 is an error")
    func limitOutOfRange() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("search", ["query": "quiet", "limit": 101])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text.contains("'limit' must be between 1 and 100 (got 101)"), "\(result.text)")
        #expect(harness.fixtures.totalRequestCount == 0)
    }

    @Test("a search without a query is an error")
    func missingQuery() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("search", ["limit": 5])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text.contains("'query' is required"), "\(result.text)")
    }

    @Test("a cursor seek did not make is an error")
    func malformedCursor() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("search", ["query": "quiet", "cursor": "not-a-cursor"])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text.contains("'cursor'"), "\(result.text)")
    }

    @Test("a misspelt argument is an error naming it and the arguments the tool takes")
    func unknownArgument() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("search", ["query": "quiet", "provider": "openlibrary"])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text.contains("unknown argument 'provider' (search takes cursor, explain, group, language, limit, providers, query, rank)"), "\(result.text)")
    }

    @Test("the server answers the next call after an error")
    func goesOnAfterError() async throws {
        let harness = try await MCPHarness.start { Samples.serveQuiet(on: $0) }
        let failed = try await harness.call("search", ["query": "", "providers": ["openlibrary"]])
        let next = try await harness.call("search", ["query": "quiet", "providers": ["openlibrary"]])
        try await harness.stop()
        #expect(failed.isError == true)
        #expect(next.isError != true)
        #expect(next.items.count == 2)
    }

    @Test("a search is recorded in the history, which the history resource lists")
    func recordsHistory() async throws {
        let harness = try await MCPHarness.start { Samples.serveQuiet(on: $0) }
        _ = try await harness.call("search", ["query": "quiet", "providers": ["openlibrary", "aladin"]])
        let contents = try await harness.client.readResource(uri: "seek://history")
        try await harness.stop()
        let text = try #require(contents.first?.text)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["query"] as? String == "quiet")
        #expect(entries.first?["providers"] as? [String] == ["openlibrary", "aladin"])
    }

    @Test("a 20-item search's text stays under 2,500 characters while its structured content holds all 20")
    func twentyItemSummary() async throws {
        let longTitle = String(repeating: "A very long title that goes on ", count: 6)
        let longAuthor = String(repeating: "Bartholomew Featherstonehaugh-", count: 4)
        let harness = try await MCPHarness.start { server in
            server.route("/ol/search.json", .json(Samples.openLibrary((1...20).map {
                Samples.olDoc(1_000_000 + $0, title: "\(longTitle)\($0)", year: 1999, author: longAuthor)
            })))
        }
        let result = try await harness.call("search", ["query": "long", "providers": ["openlibrary"], "limit": 20])
        try await harness.stop()
        #expect(result.isError != true, "\(result.text)")
        #expect(result.items.count == 20)
        #expect((result.items.first?["title"] as? String)?.hasPrefix(longTitle) == true)
        #expect(result.text.unicodeScalars.count < 2_500, "\(result.text.unicodeScalars.count) characters")
        #expect(result.text.split(separator: "\n").filter { $0.contains("openlibrary:OL100") }.count == 20)
    }
}

@Suite("seek mcp: detail, trending, suggest and providers")
struct ItemToolTests {
    @Test("detail returns the work with its author and description")
    func detail() async throws {
        let harness = try await MCPHarness.start { Samples.serveMrFox(on: $0) }
        let result = try await harness.call("detail", ["id": "openlibrary:OL45804W"])
        try await harness.stop()
        #expect(result.isError != true, "\(result.text)")
        let document = try #require(result.document)
        #expect(document["id"] as? String == "openlibrary:OL45804W")
        #expect(document["title"] as? String == "Fantastic Mr Fox")
        #expect(document["description"] as? String == "The main character of Fantastic Mr. Fox is a fox.")
        #expect((document["sources"] as? [[String: Any]])?.count == 1)
        #expect(result.text.hasPrefix("Fantastic Mr Fox — Roald Dahl"), "\(result.text)")
    }

    @Test("a malformed id is an error")
    func malformedID() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("detail", ["id": "OL45804W"])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text.contains("'OL45804W' is not a PROVIDER:ID item id"), "\(result.text)")
    }

    @Test("an item its provider does not have is an error saying so in words, naming the provider, with no URL")
    func notFound() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("detail", ["id": "openlibrary:OL999W"])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text == "Open Library no longer has this book.", "\(result.text)")
        #expect(!result.text.contains("http") && !result.text.contains("/works/"), "\(result.text)")
    }

    @Test("trending is the search document without a query")
    func trending() async throws {
        let harness = try await MCPHarness.start { server in
            server.route("/giphy/v1/gifs/trending", .json(ProviderSamples.giphy(["t1", "t2"])))
        }
        let result = try await harness.call("trending", ["providers": ["giphy"], "limit": 2])
        try await harness.stop()
        #expect(result.isError != true, "\(result.text)")
        #expect(result.document?["query"] == nil)
        #expect(result.items.compactMap { $0["id"] as? String } == ["giphy:t1", "giphy:t2"])
        #expect(result.text.hasPrefix("Trending: 2 results."), "\(result.text)")
    }

    @Test("suggest returns the prefix, the suggestions and each provider's status")
    func suggest() async throws {
        let harness = try await MCPHarness.start { server in
            server.route("/giphy/v1/gifs/search/tags", .json(#"{"data": [{"name": "cats"}, {"name": "cat memes"}], "meta": {"status": 200, "msg": "OK"}}"#))
        }
        let result = try await harness.call("suggest", ["prefix": "cat"])
        try await harness.stop()
        #expect(result.isError != true, "\(result.text)")
        #expect(result.document?["prefix"] as? String == "cat")
        #expect(result.document?["suggestions"] as? [String] == ["cats", "cat memes"])
        #expect((result.document?["providers"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["giphy"])
    }

    @Test("providers lists each provider's kinds, capabilities, configuration and status, and never a key")
    func providers() async throws {
        let harness = try await MCPHarness.start(keys: false)
        let result = try await harness.call("providers")
        try await harness.stop()
        let providers = try #require(result.document?["providers"] as? [[String: Any]])
        #expect(providers.compactMap { $0["id"] as? String } == CompositionRoot.builtInProviders.map(\.id))
        let giphy = try #require(providers.first { $0["id"] as? String == "giphy" })
        #expect(giphy["kinds"] as? [String] == ["gif"])
        #expect(giphy["configured"] as? Bool == false)
        #expect(giphy["status"] as? String == "no key")
        #expect(giphy["suspendedUntil"] is NSNull)
        #expect(result.text.contains("openlibrary (book; search, detail, image): ready"), "\(result.text)")
    }

    @Test("no key appears in the providers document or its text")
    func keysNeverShown() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("providers")
        try await harness.stop()
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        #expect(!json.contains(Samples.giphyKey))
        #expect(!json.contains(Samples.aladinKey))
        #expect(result.document?["providers"] != nil)
    }
}

@Suite("seek mcp: favourites and resources")
struct FavoriteToolTests {
    @Test("favorites_add stores the item's snapshot and favorites_list lists it")
    func addThenList() async throws {
        let harness = try await MCPHarness.start { Samples.serveMrFox(on: $0) }
        let added = try await harness.call("favorites_add", ["id": "openlibrary:OL45804W"])
        let listed = try await harness.call("favorites_list")
        try await harness.stop()
        #expect(added.isError != true, "\(added.text)")
        let entries = try #require(listed.document?["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["id"] as? String == "openlibrary:OL45804W")
        #expect(entries.first?["title"] as? String == "Fantastic Mr Fox")
        #expect(entries.first?["creators"] as? [String] == ["Roald Dahl"])
    }

    @Test("favorites_add answers with the favourites after the change")
    func addReturnsList() async throws {
        let harness = try await MCPHarness.start { Samples.serveMrFox(on: $0) }
        let added = try await harness.call("favorites_add", ["id": "openlibrary:OL45804W"])
        try await harness.stop()
        let entries = try #require(added.document?["entries"] as? [[String: Any]])
        #expect(entries.compactMap { $0["id"] as? String } == ["openlibrary:OL45804W"])
        #expect(added.text.hasPrefix("Added openlibrary:OL45804W (Fantastic Mr Fox)."), "\(added.text)")
    }

    @Test("favorites_add of an item its provider does not have is an error and stores nothing")
    func addUnknownItem() async throws {
        let harness = try await MCPHarness.start()
        let added = try await harness.call("favorites_add", ["id": "openlibrary:OL999W"])
        let listed = try await harness.call("favorites_list")
        try await harness.stop()
        #expect(added.isError == true)
        #expect(added.text.contains("openlibrary: not found"), "\(added.text)")
        #expect((listed.document?["entries"] as? [Any])?.isEmpty == true)
    }

    @Test("favorites_remove answers with the favourites without the item")
    func remove() async throws {
        let harness = try await MCPHarness.start { Samples.serveMrFox(on: $0) }
        _ = try await harness.call("favorites_add", ["id": "openlibrary:OL45804W"])
        let removed = try await harness.call("favorites_remove", ["id": "openlibrary:OL45804W"])
        try await harness.stop()
        #expect(removed.isError != true, "\(removed.text)")
        #expect((removed.document?["entries"] as? [Any])?.isEmpty == true)
        #expect(removed.text.hasPrefix("Removed openlibrary:OL45804W."), "\(removed.text)")
    }

    @Test("the resources are favourites and history, as JSON")
    func resourcesListed() async throws {
        let harness = try await MCPHarness.start()
        let resources = try await harness.client.listResources().resources
        try await harness.stop()
        #expect(resources.map(\.uri) == ["seek://favorites", "seek://history"])
        #expect(resources.allSatisfy { $0.mimeType == "application/json" })
    }

    @Test("the favourites resource is the document favorites_list gives")
    func favoritesResource() async throws {
        let harness = try await MCPHarness.start { Samples.serveMrFox(on: $0) }
        _ = try await harness.call("favorites_add", ["id": "openlibrary:OL45804W"])
        let listed = try await harness.call("favorites_list")
        let contents = try await harness.client.readResource(uri: "seek://favorites")
        try await harness.stop()
        let text = try #require(contents.first?.text)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
        #expect(document == (listed.document as NSDictionary?))
        #expect(contents.first?.mimeType == "application/json")
    }
}
