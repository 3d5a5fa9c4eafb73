import Foundation
@testable import GoogleBooksProvider
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("Google Books provider")
struct GoogleBooksProviderTests {
    @Test("publishedDate in every form gives its year", arguments: [
        ("2004", 2004), ("2004-10", 2004), ("2004-10-01", 2004), ("1954?", 1954), ("c1954", 1954), ("[1954]", 1954),
        ("1808", 1808),
    ])
    func years(date: String, year: Int) {
        #expect(GoogleBooksMapping.year(date) == year)
    }

    @Test("a publishedDate without a four-digit year gives none", arguments: ["", "abc", "19545", "0999", "20", "3000-01-01"])
    func noYear(date: String) {
        #expect(GoogleBooksMapping.year(date) == nil)
    }

    @Test("a missing key skips the provider, names the variable, and makes no call")
    func missingKey() async throws {
        try await withGoogleBooks(key: nil) { provider, server in
            #expect(!provider.isConfigured)
            #expect(provider.missingRequirements.map(\.variable) == ["SEEK_GOOGLEBOOKS_API_KEY"])
            let error = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "harry potter")) })
            #expect(error.kind == .missingKey(variable: "SEEK_GOOGLEBOOKS_API_KEY"))
            #expect(ProviderStatus(error: error) == .skipped)
            #expect(server.totalRequestCount == 0)
        }
        try await withGoogleBooks(key: "  ") { provider, _ in #expect(!provider.isConfigured) }
    }

    @Test("a search asks for books at the offset, at most 40 a page, with the key as `key=`")
    func searchRequest() async throws {
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, .json(volumesJSON((0..<40).map { volumeJSON(id: "vol\($0)AAAAJ") }, total: 300)))
            let page = try await provider.search(SearchRequest(query: "harry potter", page: 2, limit: 100))
            let asked = try #require(server.requests.first { $0.path == volumesPath })
            #expect(asked.queryValue("q") == "harry potter")
            #expect(asked.queryValue("maxResults") == "40")
            #expect(asked.queryValue("startIndex") == "100")
            #expect(asked.queryValue("printType") == "books")
            #expect(asked.queryValue("key") == fakeKey)
            #expect(page.items.count == 40)
            #expect(page.next == "140")
            #expect(provider.secrets == [fakeKey])
        }
    }

    @Test("paging stops on a short page whatever totalItems (an estimate) says")
    func shortPageEnds() async throws {
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, .json(volumesJSON([volumeJSON()], total: 1289)))
            let page = try await provider.search(SearchRequest(query: "harry", limit: 10))
            #expect(page.items.count == 1)
            #expect(page.next == nil)
        }
    }

    @Test("covers come over https without the page curl, smallest to largest")
    func covers() async throws {
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, .json(volumesJSON([volumeJSON()], total: 1)))
            let item = try #require(try await provider.search(SearchRequest(query: "beasts")).items.first)
            #expect(item.images[.small]?.url.absoluteString
                == "https://books.google.com/books/content?id=s77iyQEACAAJ&printsec=frontcover&img=1&zoom=5&source=gbs_api")
            #expect(item.images[.medium]?.url.absoluteString
                == "https://books.google.com/books/content?id=s77iyQEACAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api")
            #expect(item.creators == ["J. K. Rowling"])
            #expect(item.year == 2020)
            #expect(item.identifiers.isbn13 == ["9781408896945"])
        }
    }

    @Test("a language preference keeps volumes in that language (region tags too) and those without one")
    func languageFilter() async throws {
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, .json(volumesJSON([
                volumeJSON(id: "ptAAAAAAAAAJ", info: #""language": "pt-BR""#),
                volumeJSON(id: "enAAAAAAAAAJ", info: #""language": "en""#),
                volumeJSON(id: "noAAAAAAAAAJ"),
            ], total: 3)))
            let page = try await provider.search(SearchRequest(query: "x", language: "pt"))
            #expect(page.items.map(\.id.value) == ["ptAAAAAAAAAJ", "noAAAAAAAAAJ"])
            #expect(page.items.first?.identifiers.other["language"] == "pt-BR", "the language the merger reads")
        }
    }

    @Test("a detail description in HTML becomes text; the volume id must be a volume id")
    func detailDescriptionAndID() async throws {
        try await withGoogleBooks { provider, server in
            server.route(volumesPath + "/s77iyQEACAAJ", .json(volumeJSON(info: #""description": "<p>A <b>magical</b> book.<br>Second &amp; last.</p>", "publisher": "Bloomsbury", "pageCount": 128, "categories": ["Fiction"], "language": "en""#)))
            let detail = try await provider.detail(ItemID(provider: "googlebooks", value: "s77iyQEACAAJ"))
            #expect(detail.description == "A magical book.\nSecond & last.")
            #expect(detail.publishers == ["Bloomsbury"])
            #expect(detail.pageCount == 128)
            #expect(detail.subjects == ["Fiction"])
            #expect(detail.attributes["language"] == "en")
            let bad = try #require(await seekError { _ = try await provider.detail(ItemID(provider: "googlebooks", value: "../etc?x=1")) })
            #expect(bad.kind == .invalidInput)
            #expect(server.requests.allSatisfy { !$0.path.contains("etc") })
        }
    }

    @Test("a 404 for a volume is not found; malformed and truncated JSON are undecodable; 500 is an error")
    func failures() async throws {
        try await withGoogleBooks { provider, server in
            server.route(volumesPath + "/missingAAAAJ", .json(#"{"error": {"code": 404, "message": "The volume ID could not be found.", "errors": [{"reason": "notFound"}]}}"#, status: 404))
            let missing = try #require(await seekError { _ = try await provider.detail(ItemID(provider: "googlebooks", value: "missingAAAAJ")) })
            #expect(missing.kind == .notFound)
            server.route(volumesPath, .json(#"{"kind": "books#volumes", "totalItems": 3, "items": [{"id": "#))
            let truncated = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(truncated.kind == .undecodable)
            #expect(truncated.provider == "googlebooks")
            server.route(volumesPath, .json(#"{"kind": "books#volumes", "items": {"id": "x"}}"#))
            let shape = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(shape.kind == .undecodable)
            server.route(volumesPath, .json("<html>oops</html>", status: 500))
            let failed = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(failed.kind == .httpStatus(500))
            for error in [missing, truncated, shape, failed] { #expect(!error.description.contains(fakeKey)) }
        }
    }

    @Test("a daily quota is rate limited until midnight Pacific time, with no retry before it")
    func dailyQuota() async throws {
        let reset = Date(timeIntervalSince1970: 4_102_444_800)
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        defer { Task { try? await transport.shutdown(); try? await server.shutdown() } }
        let provider = GoogleBooksProvider(
            baseURL: server.baseURL, apiKey: fakeKey, transport: transport, dailyReset: { _ in reset })
        server.route(volumesPath, .json(#"{"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'books.googleapis.com' for consumer 'project_number:624717413613'.", "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMIT_EXCEEDED", "metadata": {"quota_limit_value": "0"}}]}}"#, status: 429))
        let error = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
        #expect(ProviderStatus(error: error) == .rateLimited)
        #expect(error.retryAfter == reset)
        #expect(server.requestCount(path: volumesPath) == 1)
        // A per-minute 429 waits a minute; a keyed quota reported as 400 is still the daily quota.
        server.route(volumesPath, .json(#"{"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute per user'", "status": "RESOURCE_EXHAUSTED"}}"#, status: 429))
        let minute = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
        #expect(minute.kind == .rateLimited(retryAfterSeconds: 60))
        server.route(volumesPath, .json(#"{"error": {"code": 400, "message": "Quota exceeded: Queries per day", "errors": [{"reason": "rateLimitExceeded"}]}}"#, status: 400))
        let keyed = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
        #expect(keyed.retryAfter == reset)
    }

    @Test("the next Pacific midnight is within a day and at a whole hour in UTC")
    func pacificMidnight() {
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        let reset = GoogleBooksError.nextPacificMidnight(after: now)
        #expect(reset > now)
        #expect(reset.timeIntervalSince(now) <= 86_400)
        #expect(Int(reset.timeIntervalSince1970) % 3600 == 0)
    }

    @Test("403s: a key the project may not use is unauthorized; an older daily limit is rate limited")
    func forbidden() async throws {
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, .json(#"{"error": {"code": 403, "message": "Books API has not been used in project 1 before or it is disabled.", "errors": [{"reason": "accessNotConfigured"}], "status": "PERMISSION_DENIED"}}"#, status: 403))
            let denied = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(denied.kind == .unauthorized)
            #expect(denied.detail.contains("SEEK_GOOGLEBOOKS_API_KEY"))
            server.route(volumesPath, .json(#"{"error": {"code": 403, "message": "Daily Limit for Unauthenticated Use Exceeded.", "errors": [{"reason": "dailyLimitExceededUnreg"}]}}"#, status: 403))
            let daily = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(ProviderStatus(error: daily) == .rateLimited)
        }
    }

    @Test("the demo answers a recorded search and a recorded detail in Google's shapes")
    func demo() throws {
        let demo = try #require(GoogleBooksProvider.factory.demo)
        let search = try #require(demo.routes.first { $0.path == "/books/v1/volumes" })
        let answer = search.answer(DemoRequest(path: "/books/v1/volumes", query: ["q": "Harry Potter", "maxResults": "5", "startIndex": "0"]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.count == 5)
        #expect(items.allSatisfy { ($0["volumeInfo"] as? [String: Any])?["imageLinks"] == nil }, "no cover URL: no image bytes are recorded")
        let none = search.answer(DemoRequest(path: "/books/v1/volumes", query: ["q": "zzqxj"]))
        #expect(String(decoding: none.body, as: UTF8.self).contains("\"totalItems\": 0"))
        let volume = try #require(demo.routes.first { $0.path == "/books/v1/volumes/*" })
        #expect(volume.answer(DemoRequest(path: "/books/v1/volumes/XkEvAAAAMAAJ")).status == 200)
        #expect(volume.answer(DemoRequest(path: "/books/v1/volumes/f280CwAAQBAJ")).status == 200)
        #expect(volume.answer(DemoRequest(path: "/books/v1/volumes/nothingAAAJ")).status == 404)
        #expect(demo.settings[GoogleBooksProvider.keyVariable] == .standInKey)
    }
}
