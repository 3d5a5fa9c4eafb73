import Foundation
import GiphyProvider
import SeekKit
import SeekCore
import SeekLoopback
import SeekTesting
import Testing

@Suite("GIPHY provider")
struct GiphyProviderTests {
    // MARK: - Descriptor and configuration

    @Test("describes itself as GIPHY: gif kind, offset paging, key needed, `gif` shortcut")
    func descriptor() async throws {
        try await withGiphy { provider, _ in
            let descriptor = provider.descriptor
            #expect(descriptor.id == "giphy")
            #expect(descriptor.name == "GIPHY")
            #expect(descriptor.kinds == [.gif])
            #expect(descriptor.capabilities == [.search, .detail, .image, .trending, .suggest])
            #expect(descriptor.paging == .offset)
            #expect(descriptor.needsKey)
            #expect(descriptor.shortcuts == ["gif"])
            #expect(GiphyProvider.factory.id == "giphy")
        }
    }

    @Test("reads URL, key and rating from the environment")
    func environmentSettings() async throws {
        try await withTransport { transport in
            let settings = Settings(environment: [
                "SEEK_GIPHY_URL": "http://127.0.0.1:9/giphy",
                "SEEK_GIPHY_API_KEY": fakeKey,
                "SEEK_GIPHY_RATING": "PG-13",
            ])
            let provider = try GiphyProvider(environment: ProviderEnvironment(settings: settings, transport: transport))
            #expect(provider.isConfigured)
            #expect(provider.endpoint == "http://127.0.0.1:9/giphy")
            #expect(provider.rating == "pg-13")
            #expect(!provider.endpoint.contains(fakeKey))
        }
    }

    @Test("reads the key and rating from the config file's providers.giphy section; its timeout and weight are the engine's")
    func configFileSettings() async throws {
        try await withTransport { transport in
            let file = JSONValue.object([
                "providers": .object(["giphy": .object([
                    "apiKey": .string(fakeKey), "rating": .string("g"), "timeout": .number(4), "weight": .number(1.5),
                ])]),
            ])
            let provider = try GiphyProvider(environment: ProviderEnvironment(settings: Settings(file: file), transport: transport))
            #expect(provider.isConfigured)
            #expect(provider.rating == "g")
            #expect(provider.endpoint == "https://api.giphy.com")
            // The provider declares its defaults; the engine's tuning, one bounded reader for every provider, applies the file's.
            #expect(provider.descriptor.defaultTimeout == .seconds(10))
            #expect(provider.descriptor.weight == 1)
            let tuning = try ProviderTuning.load(from: Settings(file: file), providers: [GiphyProvider.id])
            #expect(tuning[GiphyProvider.id] == ProviderTuning(timeout: .seconds(4), weight: 1.5))
        }
    }

    @Test("an unknown rating in the settings is a configuration error")
    func invalidRating() async throws {
        try await withTransport { transport in
            let settings = Settings(environment: ["SEEK_GIPHY_API_KEY": fakeKey, "SEEK_GIPHY_RATING": "nc-17"])
            #expect(throws: SeekError(.configuration, provider: "giphy", detail: "SEEK_GIPHY_RATING must be one of g, pg, pg-13, r (got nc-17)")) {
                try GiphyProvider(environment: ProviderEnvironment(settings: settings, transport: transport))
            }
        }
    }

    // MARK: - Missing key

    @Test("without a key it is unconfigured and every call throws missingKey without a request", arguments: [nil, "", "  "])
    func missingKey(key: String?) async throws {
        try await withGiphy(key: key) { provider, server in
            #expect(!provider.isConfigured)
            let expected = SeekError(
                .missingKey(variable: "SEEK_GIPHY_API_KEY"), provider: "giphy",
                detail: "export SEEK_GIPHY_API_KEY=… or set providers.giphy.apiKey in the config file")
            #expect(await seekError { _ = try await provider.search(SearchRequest(query: "cat")) } == expected)
            #expect(await seekError { _ = try await provider.trending(limit: 5) } == expected)
            #expect(await seekError { _ = try await provider.suggest("ca", limit: 5) } == expected)
            #expect(await seekError { _ = try await provider.detail(ItemID(provider: "giphy", value: "abc")) } == expected)
            #expect(server.totalRequestCount == 0)
        }
    }

    // MARK: - Search requests

    @Test("search sends api_key, q, the clamped limit, offset, rating and lang")
    func searchParameters() async throws {
        try await withGiphy(rating: "PG") { provider, server in
            server.route("/v1/gifs/search", body(listJSON(gifs(3), total: 3)))
            _ = try await provider.search(SearchRequest(query: "happy cat", limit: 80, language: "ko"))
            let sent = try #require(server.requests.last)
            #expect(sent.path == "/v1/gifs/search")
            #expect(sent.queryValue("api_key") == fakeKey)
            #expect(sent.queryValue("q") == "happy cat")
            #expect(sent.queryValue("limit") == "50")
            #expect(sent.queryValue("offset") == "0")
            #expect(sent.queryValue("rating") == "pg")
            #expect(sent.queryValue("lang") == "ko")
        }
    }

    @Test("search leaves rating and lang out when none is set")
    func searchWithoutRating() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON(gifs(1), total: 1)))
            _ = try await provider.search(SearchRequest(query: "cat"))
            let sent = try #require(server.requests.last)
            #expect(sent.queryValue("rating") == nil)
            #expect(sent.queryValue("lang") == nil)
            #expect(sent.queryValue("limit") == "20")
        }
    }

    @Test("page 2 with limit 10 asks for offset 10")
    func pageToOffset() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON(gifs(10), total: 100, offset: 10)))
            let page = try await provider.search(SearchRequest(query: "cat", page: 2, limit: 10))
            #expect(server.requests.last?.queryValue("offset") == "10")
            #expect(server.requests.last?.queryValue("limit") == "10")
            #expect(page.next == "20")
            #expect(page.total == 100)
        }
    }

    @Test("a cursor from a previous page is the offset sent")
    func cursorIsOffset() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON(gifs(5), total: 100, offset: 35)))
            let page = try await provider.search(SearchRequest(query: "cat", cursor: "35", limit: 5))
            #expect(server.requests.last?.queryValue("offset") == "35")
            #expect(page.next == "40")
        }
    }

    @Test("there is no next page once total_count is reached")
    func noNextAfterTotal() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON(gifs(10), total: 20, offset: 10)))
            let page = try await provider.search(SearchRequest(query: "cat", page: 2, limit: 10))
            #expect(page.items.count == 10)
            #expect(page.next == nil)
        }
    }

    @Test("paging stops at GIPHY's offset cap of 4999 even when total_count is larger")
    func noNextPastOffsetCap() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON(gifs(10), total: 100_000, offset: 4990)))
            let page = try await provider.search(SearchRequest(query: "cat", cursor: "4990", limit: 10))
            #expect(page.next == nil)
        }
    }

    @Test("a page beyond the offset cap is empty and costs no request")
    func pageBeyondCap() async throws {
        try await withGiphy { provider, server in
            let page = try await provider.search(SearchRequest(query: "cat", page: 600, limit: 10))
            #expect(page.items.isEmpty)
            #expect(page.next == nil)
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("an empty or over-long query is invalid input and costs no request")
    func invalidQueries() async throws {
        try await withGiphy { provider, server in
            let empty = await seekError { _ = try await provider.search(SearchRequest(query: "  ")) }
            #expect(empty?.kind == .invalidInput)
            let long = await seekError { _ = try await provider.search(SearchRequest(query: String(repeating: "a", count: 51))) }
            #expect(long?.kind == .invalidInput)
            #expect(long?.provider == "giphy")
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("an empty data array is an empty page, not an error")
    func emptyData() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON([], total: 0)))
            let page = try await provider.search(SearchRequest(query: "zzzzqqq"))
            #expect(page.items.isEmpty)
            #expect(page.total == 0)
            #expect(page.next == nil)
        }
    }

    // MARK: - Mapping

    @Test("a size skips a rendition without a usable web URL and takes the next one it prefers")
    func unusableRenditionFallsThrough() async throws {
        let gif = """
        {"type":"gif","id":"fall1","url":"https://giphy.com/gifs/fall1","title":"Fall",
         "images":{"fixed_width_small":{"url":"ftp://media0.giphy.com/media/fall1/100w.gif","width":"100","height":"56"},
                   "fixed_height_small":{"url":"https://media0.giphy.com/media/fall1/100.gif","width":"178","height":"100"},
                   "original":{"url":"","width":"480","height":"270"}},
         "image_original_url":"https://media0.giphy.com/media/fall1/giphy-flat.gif","image_width":"480","image_height":"270"}
        """
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON([gif], total: 1)))
            let item = try #require(try await provider.search(SearchRequest(query: "fall")).items.first)
            #expect(item.images[.small]?.url.absoluteString == "https://media0.giphy.com/media/fall1/100.gif")
            #expect(item.images[.small]?.height == 100)
            // `original` in `images` has no URL: the flat field of the older shape stands in for it.
            #expect(item.images[.original]?.url.absoluteString == "https://media0.giphy.com/media/fall1/giphy-flat.gif")
            #expect(item.images[.large]?.url.absoluteString == "https://media0.giphy.com/media/fall1/giphy-flat.gif")
            #expect(item.images[.medium] == nil)
        }
    }

    @Test("maps a GIF to an item: id, title, creator, year, identifiers, url and sized images")
    func itemMapping() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON([gifJSON(id: "abc123", title: "Dancing Cat", username: "catlover")], total: 1)))
            let item = try #require(try await provider.search(SearchRequest(query: "cat")).items.first)
            #expect(item.id == ItemID(provider: "giphy", value: "abc123"))
            #expect(item.kind == .gif)
            #expect(item.title == "Dancing Cat")
            #expect(item.creators == ["catlover"])
            #expect(item.year == 2021)
            #expect(item.identifiers.other["giphy"] == "abc123")
            #expect(item.url?.absoluteString == "https://giphy.com/gifs/abc123")
            #expect(item.images[.small]?.url.absoluteString == "https://media0.giphy.com/media/abc123/100w.gif")
            #expect(item.images[.small]?.width == 100)
            #expect(item.images[.small]?.height == 56)
            #expect(item.images[.medium]?.url.absoluteString == "https://media0.giphy.com/media/abc123/200w.gif?cid=abc&rid=200w.gif&ct=g")
            #expect(item.images[.medium]?.width == 200)
            #expect(item.images[.large]?.url.absoluteString == "https://media0.giphy.com/media/abc123/giphy.gif")
            #expect(item.images[.original]?.width == 480)
            #expect(item.images[.original]?.height == 270)
            #expect(provider.imageURL(for: item, size: .original)?.absoluteString == "https://media0.giphy.com/media/abc123/giphy.gif")
        }
    }

    @Test("an empty title falls back to the readable slug, then to the id")
    func titleFallback() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON([
                gifJSON(id: "s1", title: "", slug: "funny-dog-jump-s1"),
                gifJSON(id: "s2", title: "", slug: "s2"),
            ], total: 2)))
            let items = try await provider.search(SearchRequest(query: "dog")).items
            #expect(items.map(\.title) == ["funny dog jump", "s2"])
            #expect(items.allSatisfy { $0.creators.isEmpty })
        }
    }

    @Test("sentinel and unparsable import dates give no year; zero or blank sizes give no dimension")
    func lenientValues() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(listJSON([
                gifJSON(id: "d1", imported: "0000-00-00 00:00:00", width: "0"),
                gifJSON(id: "d2", imported: "1970-01-01 00:00:00", width: ""),
                gifJSON(id: "d3", imported: "soon"),
            ], total: 3)))
            let items = try await provider.search(SearchRequest(query: "x")).items
            #expect(items.map(\.year) == [nil, nil, nil])
            #expect(items[0].images[.medium]?.width == nil)
            #expect(items[1].images[.medium]?.width == nil)
            #expect(items[0].images[.medium]?.height == 113)
        }
    }

    @Test("GIFs without an id or without any usable image URL are dropped, and paging still counts them")
    func unusableGIFsDropped() async throws {
        try await withGiphy { provider, server in
            let blank = #"{"id":"blank","images":{"original":{"url":"","width":"0","height":"0"},"looping":{"mp4":"x"}}}"#
            let noID = #"{"title":"orphan","images":{"original":{"url":"https://media.giphy.com/o.gif"}}}"#
            server.route("/v1/gifs/search", body(listJSON([gifJSON(id: "ok"), blank, noID], total: 10)))
            let page = try await provider.search(SearchRequest(query: "x", limit: 3))
            #expect(page.items.map(\.id.value) == ["ok"])
            #expect(page.next == "3")
        }
    }

    // MARK: - Trending, suggest, detail

    @Test("trending calls /v1/gifs/trending with limit, offset 0 and rating, and pages under the 499 cap")
    func trending() async throws {
        try await withGiphy(rating: "g") { provider, server in
            server.route("/v1/gifs/trending", body(listJSON(gifs(5), total: 4235)))
            let page = try await provider.trending(limit: 5)
            let sent = try #require(server.requests.last)
            #expect(sent.path == "/v1/gifs/trending")
            #expect(sent.queryValue("limit") == "5")
            #expect(sent.queryValue("offset") == "0")
            #expect(sent.queryValue("rating") == "g")
            #expect(sent.queryValue("q") == nil)
            #expect(page.items.count == 5)
            #expect(page.next == "5")
        }
    }

    @Test("suggest calls /v1/gifs/search/tags and returns the term names")
    func suggest() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search/tags", body(#"""
                {"data":[{"name":"cat"},{"name":"cats"},{"name":""},{"name":"cat"},{"analytics":{}}],
                 "meta":{"status":200,"msg":"OK","response_id":"x1"}}
                """#))
            let names = try await provider.suggest("ca", limit: 99)
            #expect(names == ["cat", "cats"])
            let sent = try #require(server.requests.last)
            #expect(sent.queryValue("q") == "ca")
            #expect(sent.queryValue("limit") == "50")
            #expect(sent.queryValue("api_key") == fakeKey)
        }
    }

    @Test("detail reads the single GIF object of /v1/gifs/{id}")
    func detail() async throws {
        try await withGiphy(rating: "r") { provider, server in
            let gif = gifJSON(id: "xyz789", title: "Wave", username: "waver")
            server.route("/v1/gifs/xyz789", body(#"{"data":\#(gif),"meta":{"status":200,"msg":"OK","response_id":"abc"}}"#))
            let detail = try await provider.detail(ItemID(provider: "giphy", value: "xyz789"))
            #expect(detail.item.id.description == "giphy:xyz789")
            #expect(detail.item.title == "Wave")
            #expect(detail.contributors == [Contributor(name: "waver", role: "uploader")])
            #expect(detail.attributes["rating"] == "g")
            #expect(detail.attributes["mp4"] == "https://media0.giphy.com/media/xyz789/giphy.mp4")
            #expect(detail.attributes["trending"] == nil)
            #expect(detail.publishDate == "2021-05-06")
            #expect(server.requests.last?.queryValue("rating") == "r")
        }
    }

    @Test("detail of a missing GIF (404 with data []) is notFound")
    func detailNotFound() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/gone", body(#"{"data":[],"meta":{"msg":"Not Found","status":404,"response_id":"r1","error_code":"404"}}"#, status: 404))
            let error = await seekError { _ = try await provider.detail(ItemID(provider: "giphy", value: "gone")) }
            #expect(error?.kind == .notFound)
            #expect(error?.provider == "giphy")
            #expect(error?.detail.contains("Not Found") == true)
        }
    }

    @Test("detail with an id that is not a GIPHY id is invalid input and costs no request")
    func detailInvalidID() async throws {
        try await withGiphy { provider, server in
            let slash = await seekError { _ = try await provider.detail(ItemID(provider: "giphy", value: "../v1/x?y")) }
            #expect(slash?.kind == .invalidInput)
            let foreign = await seekError { _ = try await provider.detail(ItemID(provider: "aladin", value: "9788937462627")) }
            #expect(foreign?.kind == .invalidInput)
            #expect(server.totalRequestCount == 0)
        }
    }

    // MARK: - Errors

    @Test("a rejected key (401 with meta.msg) is unauthorized with GIPHY's message")
    func rejectedKey() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(#"{"data":[],"meta":{"status":401,"msg":"Unauthorized","response_id":""}}"#, status: 401))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            #expect(error?.kind == .unauthorized)
            #expect(error?.provider == "giphy")
            #expect(error?.detail.hasPrefix("Unauthorized") == true)
        }
    }

    @Test("an error status inside meta of an HTTP 200 body is still a typed error")
    func errorInMetaOf200() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(#"{"data":[],"meta":{"status":403,"msg":"Forbidden"}}"#))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            #expect(error?.kind == .unauthorized)
        }
    }

    @Test("429 with Retry-After: 30 is rateLimited(retryAfterSeconds: 30)")
    func rateLimited() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", fault: .status(429, body: #"{"message":"API rate limit exceeded"}"#, headers: [("Retry-After", "30")]))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            #expect(error?.kind == .rateLimited(retryAfterSeconds: 30))
            #expect(error?.detail.contains("API rate limit exceeded") == true)
        }
    }

    @Test("a server error status is httpStatus")
    func serverError() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", fault: .status(503, body: "upstream unavailable"))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            #expect(error?.kind == .httpStatus(503))
            #expect(error?.detail.contains("upstream unavailable") == true)
        }
    }

    @Test("GIPHY's synthetic empty response (200, empty response_id, no data) is an error")
    func syntheticResponse() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", body(#"{"data":[],"meta":{"status":200,"msg":"OK","response_id":""}}"#))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            #expect(error?.kind == .network)
            #expect(error?.detail.contains("synthetic") == true)
        }
    }

    @Test("malformed, HTML, empty or data-less bodies are undecodable and name GIPHY", arguments: [
        FixtureFault.malformedJSON, .html, .empty, .status(200, body: #"{"meta":{"status":200,"msg":"OK"}}"#),
        .status(200, body: "[1,2,3]"),
    ])
    func undecodable(fault: FixtureFault) async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", fault: fault)
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            #expect(error?.kind == .undecodable)
            #expect(error?.provider == "giphy")
            #expect(error?.description.hasPrefix("giphy: undecodable response") == true)
        }
    }

    @Test("a truncated body is a network error or undecodable, naming GIPHY")
    func truncated() async throws {
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", fault: .truncated)
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            #expect(error?.kind == .network || error?.kind == .undecodable)
            #expect(error?.provider == "giphy")
        }
    }

    @Test("the API key never appears in any error text, even when the server echoes it")
    func keyNeverLeaks() async throws {
        try await withGiphy { provider, server in
            let echo: @Sendable (Int, String) -> FixtureResponse = { status, shape in
                FixtureResponse(status: status, body: Array(shape.utf8))
            }
            server.route("/v1/gifs/search", handler: { request in
                let key = request.queryValue("api_key") ?? ""
                switch request.queryValue("q") {
                case "e401": return echo(401, #"{"data":[],"meta":{"status":401,"msg":"Unauthorized key \#(key)"}}"#)
                case "e403": return echo(403, #"{"message":"Invalid authentication credentials: \#(key)"}"#)
                case "e429": return echo(429, #"{"data":[],"meta":{"status":429,"msg":"limit for \#(key)"}}"#)
                case "e500": return echo(500, "boom at \(request.uri)")
                case "meta": return echo(200, #"{"data":[],"meta":{"status":401,"msg":"bad \#(key)"}}"#)
                case "html": return echo(200, "<html>proxy saw \(request.uri)</html>")
                case "json": return echo(200, #"{"data":"\#(key)","meta":"#)
                default: return echo(404, #"{"message":"no route for \#(request.uri)"}"#)
                }
            })
            server.route("/v1/gifs/loop", fault: .redirectLoop)
            var errors: [SeekError] = []
            for query in ["e401", "e403", "e429", "e500", "meta", "html", "json", "e404"] {
                if let error = await seekError({ _ = try await provider.search(SearchRequest(query: query)) }) {
                    errors.append(error)
                }
            }
            if let error = await seekError({ _ = try await provider.detail(ItemID(provider: "giphy", value: "nope")) }) {
                errors.append(error)
            }
            errors.append(contentsOf: [await seekError({ _ = try await provider.detail(ItemID(provider: "giphy", value: "loop")) })].compactMap { $0 })
            #expect(errors.count == 10)
            try await server.shutdown()
            if let refused = await seekError({ _ = try await provider.search(SearchRequest(query: "cat")) }) {
                #expect(refused.kind == .network)
                errors.append(refused)
            }
            for error in errors {
                for text in [String(describing: error), String(reflecting: error), error.detail, error.cause] {
                    #expect(!text.contains(fakeKey), "key leaked in: \(text)")
                    #expect(!text.contains("gphTESTKEY"), "key leaked in: \(text)")
                }
            }
        }
    }
}
