import Foundation
import OpenLibraryProvider
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting
import Testing

/// Search behaviour against small responses of our own (always run).
@Suite("Open Library search")
struct OpenLibrarySearchTests {
    static let oneWork = """
        {"numFound": 120, "start": 0, "num_found": 120, "q": "dune", "offset": 0, "docs": [
          {"key": "/works/OL893415W", "title": "Dune", "subtitle": "A novel",
           "author_name": ["Frank Herbert", "Frank Herbert", " "], "author_key": ["OL79034A", "OL79034A"],
           "first_publish_year": 1965, "cover_i": 11481354, "cover_edition_key": "OL26242482M",
           "isbn": ["0441013597", "9780441013593", "not-an-isbn", "0-441-17271-7"], "edition_count": 92,
           "publisher": ["Ace"], "language": ["eng"]}
        ]}
        """

    @Test("sends q, the explicit field list, limit, offset and lang")
    func sendsQueryParameters() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(Self.oneWork))
            _ = try await provider.search(SearchRequest(query: "dune messiah", page: 3, limit: 10, language: "fr"))
            let request = try #require(server.requests.first)
            #expect(request.path == "/search.json")
            #expect(request.queryValue("q") == "dune messiah")
            #expect(request.queryValue("fields") == OpenLibraryProvider.searchFields.joined(separator: ","))
            #expect(request.queryValue("fields")?.contains("isbn") == true)
            #expect(request.queryValue("fields")?.contains("publisher") == true)
            #expect(request.queryValue("limit") == "10")
            #expect(request.queryValue("offset") == "20")
            #expect(request.queryValue("lang") == "fr")
            #expect(request.queryValue("page") == nil)
        }
    }

    @Test("leaves lang out when no language is asked for, and caps limit at 100")
    func omitsLanguageAndCapsLimit() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(Self.oneWork))
            _ = try await provider.search(SearchRequest(query: "dune", limit: 500))
            let request = try #require(server.requests.first)
            #expect(request.queryValue("lang") == nil)
            #expect(request.queryValue("limit") == "100")
            #expect(request.queryValue("offset") == "0")
        }
    }

    @Test("a cover store URL's own query follows default=false after the file name; its slash and fragment are not kept")
    func coverStoreQueryKept() async throws {
        try await withOpenLibrary { server, _ in
            server.route("/search.json", .json(Self.oneWork))
            let covers = try #require(URL(string: server.baseURL.absoluteString + "/covers/?key=a%26b#top"))
            let transport = AsyncHTTPTransport()
            let provider = OpenLibraryProvider(baseURL: server.baseURL, coversURL: covers, transport: transport)
            let page = try await provider.search(SearchRequest(query: "dune"))
            try await transport.shutdown()
            let item = try #require(page.items.first)
            let stem = server.baseURL.absoluteString + "/covers/b/id/11481354"
            #expect(item.images[.small]?.url.absoluteString == stem + "-S.jpg?default=false&key=a%26b")
            #expect(item.images[.original]?.url.absoluteString == stem + ".jpg?default=false&key=a%26b")
            #expect(item.images[.large]?.url.query == "default=false&key=a%26b")
        }
    }

    @Test("maps a doc to a book item: id, creators de-duplicated, year, ISBN-13s, covers, url")
    func mapsDocToItem() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(Self.oneWork))
            let page = try await provider.search(SearchRequest(query: "dune"))
            let item = try #require(page.items.first)
            #expect(item.id.description == "openlibrary:OL893415W")
            #expect(item.kind == .book)
            #expect(item.title == "Dune")
            #expect(item.subtitle == "A novel")
            #expect(item.creators == ["Frank Herbert"])
            #expect(item.year == 1965)
            #expect(item.identifiers.isbn13 == ["9780441013593", "9780441172719"])
            #expect(item.identifiers.isbn10 == ["0441013597", "0441172717"])
            #expect(item.identifiers.other["openlibraryWork"] == "OL893415W")
            let covers = server.baseURL.absoluteString + "/covers/b/id/11481354"
            #expect(item.images[.small]?.url.absoluteString == covers + "-S.jpg?default=false")
            #expect(item.images[.medium]?.url.absoluteString == covers + "-M.jpg?default=false")
            #expect(item.images[.large]?.url.absoluteString == covers + "-L.jpg?default=false")
            #expect(item.images[.original]?.url.absoluteString == covers + ".jpg?default=false")
            #expect(provider.imageURL(for: item, size: .medium) == item.images[.medium]?.url)
            #expect(item.url?.absoluteString == server.baseURL.absoluteString + "/works/OL893415W")
            #expect(page.total == 120)
        }
    }

    @Test("normalises bare 2013 keys and orphaned-edition keys, and skips docs with no Open Library key")
    func normalisesKeys() async throws {
        let body = """
            {"start": 0, "num_found": 4, "numFound": 4, "docs": [
              {"key": "OL27448W", "title": "The Lord of the Rings"},
              {"key": "/works/OL10910782M", "title": "Denver, Co Vicinity"},
              {"key": "ia:capitalismfreedo00frie", "title": "Capitalism and freedom"},
              {"title": "No key at all"},
              "not even an object"
            ]}
            """
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(body))
            let page = try await provider.search(SearchRequest(query: "rings"))
            #expect(page.items.map(\.id.description) == ["openlibrary:OL27448W", "openlibrary:OL10910782M"])
            let edition = try #require(page.items.last)
            #expect(edition.identifiers.other["openlibraryEdition"] == "OL10910782M")
            #expect(edition.url?.path == "/books/OL10910782M")
            #expect(page.items.first?.images.isEmpty == true)
        }
    }

    @Test("tolerates fields of unexpected types and docs without a title")
    func toleratesOddFields() async throws {
        let body = """
            {"numFound": 1, "docs": [{"key": "/works/OL1W", "first_publish_year": "1999", "cover_i": -1,
              "author_name": "Someone", "isbn": [9780441013593, "9780441013593"]}]}
            """
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(body))
            let item = try #require(try await provider.search(SearchRequest(query: "odd")).items.first)
            #expect(item.title == "(untitled)")
            #expect(item.year == nil)
            #expect(item.images.isEmpty)
            #expect(item.creators.isEmpty)
            #expect(item.identifiers.isbn13 == ["9780441013593"])
        }
    }

    @Test("an empty result is an empty page without a next cursor, not an error")
    func emptyResult() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(#"{"numFound":0,"docs":[]}"#))
            let page = try await provider.search(SearchRequest(query: "qwxzqwxz"))
            #expect(page.items.isEmpty)
            #expect(page.total == 0)
            #expect(page.next == nil)
        }
    }

    @Test("the next cursor is the offset after this page, and continues from a cursor")
    func pagesByOffset() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(Self.oneWork))
            let first = try await provider.search(SearchRequest(query: "dune", limit: 1))
            #expect(first.next == "1")
            let second = try await provider.search(SearchRequest(query: "dune", cursor: "119", limit: 1))
            #expect(server.requests.last?.queryValue("offset") == "119")
            #expect(second.next == nil)
        }
    }

    @Test("reads the total from num_found when numFound is missing, and stops on a short page without one")
    func totalFallbacks() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(#"{"num_found": 7, "docs": [{"key": "/works/OL1W", "title": "A"}]}"#))
            #expect(try await provider.search(SearchRequest(query: "abc")).total == 7)
            server.route("/search.json", .json(#"{"docs": [{"key": "/works/OL1W", "title": "A"}]}"#))
            let page = try await provider.search(SearchRequest(query: "abc", limit: 5))
            #expect(page.total == nil)
            #expect(page.next == nil)
        }
    }

    @Test("a body reporting a search failure is an undecodable error naming the cause")
    func searchFailureBody() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(#"{"error":"solr_request_failed","docs":[],"num_found":0}"#))
            let error = await #expect(throws: SeekError.self) {
                try await provider.search(SearchRequest(query: "dune"))
            }
            #expect(error?.kind == .undecodable)
            #expect(error?.provider == "openlibrary")
            #expect(error?.detail.contains("solr_request_failed") == true)
        }
    }

    @Test("a 422 validation answer is invalid input with the server's message")
    func validationError() async throws {
        let body = #"{"detail":[{"type":"value_error","loc":["query","q"],"msg":"Query too short, must be at least 3 characters"}]}"#
        try await withOpenLibrary { server, provider in
            server.route("/search.json", .json(body, status: 422))
            let error = await #expect(throws: SeekError.self) {
                try await provider.search(SearchRequest(query: "ab"))
            }
            #expect(error?.kind == .invalidInput)
            #expect(error?.detail.contains("Query too short") == true)
        }
    }

    @Test("HTTP 500 is an httpStatus(500) error")
    func serverError() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", fault: .status(500, body: "Internal Server Error"))
            let error = await #expect(throws: SeekError.self) {
                try await provider.search(SearchRequest(query: "dune"))
            }
            #expect(error?.kind == .httpStatus(500))
            #expect(error?.provider == "openlibrary")
        }
    }

    @Test("HTTP 429 is a rate-limited error")
    func rateLimited() async throws {
        try await withOpenLibrary { server, provider in
            let body = #"{"status": 429, "message": "Too Many Requests."}"#
            server.route("/search.json", fault: .status(429, body: body))
            let error = await #expect(throws: SeekError.self) {
                try await provider.search(SearchRequest(query: "dune"))
            }
            #expect(error?.kind == .rateLimited(retryAfterSeconds: nil))
        }
    }

    @Test("malformed JSON, an HTML page or a non-search body is undecodable, naming openlibrary")
    func undecodableBodies() async throws {
        try await withOpenLibrary { server, provider in
            for fault in [FixtureFault.malformedJSON, .html, .empty] {
                server.route("/search.json", fault: fault)
                let error = await #expect(throws: SeekError.self) {
                    try await provider.search(SearchRequest(query: "dune"))
                }
                #expect(error?.kind == .undecodable)
                #expect(error?.provider == "openlibrary")
                #expect(error?.description.hasPrefix("openlibrary: undecodable response") == true)
            }
            server.route("/search.json", .json(#"{"entries": [], "size": 0}"#))
            let error = await #expect(throws: SeekError.self) {
                try await provider.search(SearchRequest(query: "dune"))
            }
            #expect(error?.kind == .undecodable)
        }
    }

    @Test("a base URL with a path keeps it")
    func baseURLWithPath() async throws {
        try await withOpenLibrary(apiPath: "/ol") { server, provider in
            server.route("/ol/search.json", .json(Self.oneWork))
            let page = try await provider.search(SearchRequest(query: "dune"))
            #expect(page.items.count == 1)
            #expect(server.requestCount(path: "/ol/search.json") == 1)
            #expect(page.items.first?.url?.path == "/ol/works/OL893415W")
        }
    }

    @Test("an empty query is invalid input and makes no request")
    func emptyQuery() async throws {
        try await withOpenLibrary { server, provider in
            let error = await #expect(throws: SeekError.self) {
                try await provider.search(SearchRequest(query: "   "))
            }
            #expect(error?.kind == .invalidInput)
            #expect(server.totalRequestCount == 0)
        }
    }
}
