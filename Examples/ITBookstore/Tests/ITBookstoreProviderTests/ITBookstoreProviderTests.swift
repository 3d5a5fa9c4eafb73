import Foundation
import ITBookstoreProvider
import SeekKit
import SeekHTTPClient
import SeekCore
import SeekLoopback
import SeekTesting
import Testing

@Suite("IT Bookstore provider")
struct ITBookstoreProviderTests {
    @Test("search reads the books, the string total and offers the next page")
    func search() async throws {
        let (page, path) = try await withITBook { provider, server in
            server.route("/itbook/search/*", .json(ITBookSamples.search))
            let page = try await provider.search(SearchRequest(query: "devops"))
            return (page, server.requests.first?.path)
        }
        #expect(path == "/itbook/search/devops/1")
        #expect(page.total == 48)
        #expect(page.next == "2")
        let first = try #require(page.items.first)
        #expect(first.id.description == "itbook:9781617294136")
        #expect(first.kind == .book)
        #expect(first.title == "Securing DevOps")
        #expect(first.subtitle == "Security in the Cloud")
        #expect(first.identifiers.isbn13 == ["9781617294136"])
        #expect(first.image(.large)?.url.absoluteString == "https://itbook.store/img/books/9781617294136.png")
        #expect(first.url?.absoluteString == "https://itbook.store/books/9781617294136")
    }

    @Test("the cursor is the page to ask for, and the last page offers no next")
    func paging() async throws {
        let (page, path) = try await withITBook { provider, server in
            server.route("/itbook/search/*", .json(ITBookSamples.search))
            let page = try await provider.search(SearchRequest(query: "devops", cursor: "5"))
            return (page, server.requests.first?.path)
        }
        #expect(path == "/itbook/search/devops/5")
        #expect(page.next == nil)  // 5 pages of 10 cover the 48 books.
    }

    @Test("a search that matched nothing (no page field) is an empty page, not an error")
    func empty() async throws {
        let page = try await withITBook { provider, server in
            server.route("/itbook/search/*", .json(ITBookSamples.empty))
            return try await provider.search(SearchRequest(query: "zzqxj"))
        }
        #expect(page.items.isEmpty)
        #expect(page.total == 0)
        #expect(page.next == nil)
    }

    @Test("the query travels as one percent-encoded path segment")
    func encoding() async throws {
        let path = try await withITBook { provider, server in
            server.route("/itbook/search/*", .json(ITBookSamples.empty))
            _ = try await provider.search(SearchRequest(query: "c# / go?"))
            return server.requests.first?.path
        }
        #expect(path == "/itbook/search/c%23%20%2F%20go%3F/1")
    }

    @Test("an error other than \"0\" sent with HTTP 200 is a typed error carrying the API's message")
    func apiError() async throws {
        let (searchError, detailError) = try await withITBook { provider, server in
            server.route("/itbook/search/*", .json(#"{"error": "[search] Invalid request"}"#))
            server.route("/itbook/books/*", .json(ITBookSamples.invalid))
            let search = await seekError { _ = try await provider.search(SearchRequest(query: "x")) }
            let detail = await seekError { _ = try await provider.detail(ItemID(provider: "itbook", value: "9780000000002")) }
            return (search, detail)
        }
        #expect(searchError?.kind == .invalidInput)
        #expect(searchError?.provider == "itbook")
        #expect(searchError?.detail.contains("[search] Invalid request") == true)
        #expect(detailError?.kind == .notFound)
        #expect(detailError?.detail.contains("Invalid request: 9780000000002") == true)
    }

    @Test("detail reads the full record and splits the comma-separated authors")
    func detail() async throws {
        let (detail, path) = try await withITBook { provider, server in
            server.route("/itbook/books/9781617294136", .json(ITBookSamples.book))
            let detail = try await provider.detail(ItemID(provider: "itbook", value: "9781617294136"))
            return (detail, server.requests.first?.path)
        }
        #expect(path == "/itbook/books/9781617294136")
        #expect(detail.item.creators == ["Julien Vehent", "Jane Q. Reviewer"])
        #expect(detail.contributors.map(\.name) == ["Julien Vehent", "Jane Q. Reviewer"])
        #expect(detail.item.year == 2018)
        #expect(detail.item.identifiers.isbn10 == ["1617294136"])
        #expect(detail.publishers == ["Manning"])
        #expect(detail.pageCount == 384)
        #expect(detail.description?.hasPrefix("An application running in the cloud") == true)
        #expect(detail.attributes["price"] == "$26.98")
        #expect(detail.attributes["rating"] == "5")
    }

    @Test("detail refuses an id that is not an IT Bookstore ISBN-13, without a request")
    func badID() async throws {
        let (error, count) = try await withITBook { provider, server in
            let error = await seekError { _ = try await provider.detail(ItemID(provider: "itbook", value: "../new")) }
            return (error, server.totalRequestCount)
        }
        #expect(error?.kind == .invalidInput)
        #expect(count == 0)
    }

    @Test("new releases are its trending, cut to the limit")
    func trending() async throws {
        let (page, path) = try await withITBook { provider, server in
            server.route("/itbook/new", .json(ITBookSamples.new))
            let page = try await provider.trending(limit: 2)
            return (page, server.requests.first?.path)
        }
        #expect(path == "/itbook/new")
        #expect(page.items.map(\.title) == ["Learning Go", "Fluent Python, 2nd Edition"])
        #expect(page.items.first?.subtitle == nil)  // "" is no subtitle.
    }

    @Test("SEEK_ITBOOK_URL chooses the server; a URL that is not http(s) is a configuration error")
    func configuration() async throws {
        let transport = AsyncHTTPTransport()
        let settings = Settings(environment: ["SEEK_ITBOOK_URL": "http://127.0.0.1:9/itbook"])
        let provider = try ITBookstoreProvider(environment: ProviderEnvironment(settings: settings, transport: transport))
        #expect(provider.endpoint == "http://127.0.0.1:9/itbook")
        #expect(try ITBookstoreProvider(environment: ProviderEnvironment(settings: Settings(), transport: transport))
            .endpoint == ITBookstoreProvider.defaultBaseURL)
        let bad = Settings(environment: ["SEEK_ITBOOK_URL": "ftp://example.com"])
        #expect(throws: SeekError.self) {
            try ITBookstoreProvider(environment: ProviderEnvironment(settings: bad, transport: transport))
        }
        try await transport.shutdown()
    }
}
