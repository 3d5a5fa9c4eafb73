import Foundation
import GoogleBooksProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// The recorded real Google Books bodies in ../shared/fixtures/googlebooks, served at the real paths by a
/// loopback stand-in and read by the real provider over HTTP.
@Suite("Google Books shared fixtures", .enabled(if: SharedFixtures.directory != nil))
struct GoogleBooksSharedFixtureTests {
    struct SearchFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let count: Int
        let total: Int
        var testDescription: String { file }
    }

    static let searches = [
        SearchFixture(file: "search_q_harry_potter_2020-06_cmsanner.json", count: 10, total: 1289),
        SearchFixture(file: "search_q_faith_2020-06_cmsanner.json", count: 10, total: 2572),
        SearchFixture(file: "search_intitle_cragside_inauthor_fields_mask_2026-09_colophon.json", count: 2, total: 2),
        SearchFixture(file: "search_isbn_9784815602666_ja_2021-12_booklist.json", count: 1, total: 1),
        SearchFixture(file: "search_q_volume_id_other_identifiers_public_domain_chingu.json", count: 6, total: 6),
        SearchFixture(file: "search_isbn_9780000000000_unrelated_volumes_2026-09_colophon.json", count: 3, total: 3),
    ]

    @Test("every recorded search body maps to books with ids, titles, creators and https covers", arguments: searches)
    func searchDecodes(fixture: SearchFixture) async throws {
        let response = try #require(try sharedFixture(fixture.file))
        let raw = try #require(SharedFixtures.url("googlebooks", fixture.file))
        let recorded = try JSONSerialization.jsonObject(with: Data(contentsOf: raw)) as? [String: Any]
        let volumes = recorded?["items"] as? [[String: Any]] ?? []
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, response)
            let page = try await provider.search(SearchRequest(query: "recorded", limit: 40))
            #expect(page.items.count == fixture.count)
            #expect(page.total == fixture.total)
            #expect(page.next == nil, "a page shorter than maxResults is the last")
            for (item, volume) in zip(page.items, volumes) {
                let info = volume["volumeInfo"] as? [String: Any] ?? [:]
                #expect(item.id.provider == "googlebooks")
                #expect(item.id.value == volume["id"] as? String, "volume ids keep their case")
                #expect(item.kind == .book)
                #expect(item.title == (info["title"] as? String)?.trimmingCharacters(in: .whitespaces))
                #expect(item.creators == (info["authors"] as? [String] ?? []))
                for image in item.images.values {
                    #expect(image.url.scheme == "https")
                    #expect(!image.url.absoluteString.contains("edge=curl"))
                }
                #expect(item.identifiers.other["googleVolume"] == item.id.value)
                #expect(item.url?.scheme == "https")
            }
        }
    }

    @Test("OTHER identifiers are never ISBNs: the scanned books of the chingu recording have none")
    func otherIdentifiersAreNotISBNs() async throws {
        let response = try #require(try sharedFixture("search_q_volume_id_other_identifiers_public_domain_chingu.json"))
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, response)
            let items = try await provider.search(SearchRequest(query: "pnJZAAAAcAAJ", limit: 10)).items
            let school = try #require(items.first { $0.id.value == "PNJZAAAAcAAJ" })
            #expect(school.identifiers.isbn13.isEmpty)
            #expect(school.identifiers.isbn10.isEmpty)
            #expect(school.year == 1808)
            // Four ids that differ only by case are four books.
            #expect(Set(items.map(\.id.value)).count == 6)
            for item in items {
                for isbn in item.identifiers.isbn13 { #expect(ISBN.isValid13(isbn)) }
                #expect(!item.identifiers.isbn13.contains { $0.contains(":") })
            }
        }
    }

    @Test("the detail of an OTHER-only volume keeps its library ids apart, and its free e-book")
    func otherIdentifiersInDetail() async throws {
        let raw = try #require(SharedFixtures.url("googlebooks", "search_q_volume_id_other_identifiers_public_domain_chingu.json"))
        let recorded = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: raw)) as? [String: Any])
        let volume = try #require((recorded["items"] as? [[String: Any]])?.first)
        let body = try JSONSerialization.data(withJSONObject: volume)
        try await withGoogleBooks { provider, server in
            server.route(volumesPath + "/PNJZAAAAcAAJ", FixtureResponse(body: Array(body)))
            let detail = try await provider.detail(ItemID(provider: "googlebooks", value: "PNJZAAAAcAAJ"))
            #expect(detail.attributes["otherIdentifiers"] == "BL:A0018116962")
            #expect(detail.item.identifiers.isbn13.isEmpty)
            #expect(detail.attributes["publicDomain"] == "true")
            #expect(detail.attributes["epub"]?.hasPrefix("https://") == true)
            #expect(detail.pageCount == 92)
        }
    }

    @Test("the recorded detail (CRLF, six cover sizes) maps every field the reference lists")
    func recordedDetail() async throws {
        let response = try #require(try sharedFixture("volume_XkEvAAAAMAAJ_detail_2017-06_tamasfoldi.json"))
        try await withGoogleBooks { provider, server in
            server.route(volumesPath + "/XkEvAAAAMAAJ", response)
            let detail = try await provider.detail(ItemID(provider: "googlebooks", value: "XkEvAAAAMAAJ"))
            #expect(detail.item.id.description == "googlebooks:XkEvAAAAMAAJ")
            #expect(detail.item.title == "Query")
            #expect(Set(detail.item.images.keys) == [.small, .medium, .large, .original])
            for image in detail.item.images.values {
                #expect(image.url.absoluteString.hasPrefix("https://books.google.com/books/content?id=XkEvAAAAMAAJ"))
            }
            #expect(detail.item.images[.original]?.url.absoluteString.contains("zoom=6") == true)
            #expect(detail.publishers == ["Query Publications."])
            #expect(detail.publishDate == "1938")
            #expect(detail.item.year == 1938)
            #expect(detail.pageCount == 92)
            #expect(detail.item.creators.isEmpty, "the record names no author")
            let requests = server.requests.filter { $0.path == volumesPath + "/XkEvAAAAMAAJ" }
            #expect(requests.first?.queryValue("key") == fakeKey, "the key travels as `key=`")
        }
    }

    @Test("a Japanese ISBN search maps creators, year from `2020-11`, both ISBNs and the language")
    func japaneseISBNSearch() async throws {
        let response = try #require(try sharedFixture("search_isbn_9784815602666_ja_2021-12_booklist.json"))
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, response)
            let page = try await provider.search(SearchRequest(query: "isbn:9784815602666", limit: 10))
            let book = try #require(page.items.first)
            #expect(book.title == "宇宙の話をしよう")
            #expect(book.year == 2020)
            #expect(book.identifiers.isbn13 == ["9784815602666"])
            #expect(book.identifiers.isbn10 == ["4815602662"])
            #expect(book.creators == ["小野雅裕"])
            let asked = try #require(server.requests.first { $0.path == volumesPath })
            #expect(asked.queryValue("q") == "isbn:9784815602666")
        }
    }

    @Test("`isbn:` is a relevance search: volumes without the ISBN asked for are dropped, junk ISBNs never kept")
    func isbnSearchKeepsOnlyThatISBN() async throws {
        let response = try #require(try sharedFixture("search_isbn_9780000000000_unrelated_volumes_2026-09_colophon.json"))
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, response)
            let asked = try await provider.search(SearchRequest(query: "isbn:9780000000000", limit: 10))
            #expect(asked.items.isEmpty)
            let plain = try await provider.search(SearchRequest(query: "ecos", limit: 10))
            #expect(plain.items.count == 3)
            for item in plain.items {
                #expect(!item.identifiers.isbn13.contains("9780000000002"))
                #expect(!item.identifiers.isbn10.contains("0000000000"))
            }
        }
    }

    @Test("the empty answer (no `items` key at all) is an empty page")
    func emptyAnswer() async throws {
        let response = try #require(try sharedFixture("search_isbn_9789999999991_empty_2026-09_colophon_readme.json"))
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, response)
            let page = try await provider.search(SearchRequest(query: "isbn:9789999999991", limit: 10))
            #expect(page.items.isEmpty)
            #expect(page.next == nil)
            #expect(page.total == 0)
        }
    }

    struct ErrorFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let status: Int
        let expected: ProviderStatus
        let words: String
        var testDescription: String { file }
    }

    static let errors = [
        ErrorFixture(file: "error_400_api_key_invalid_inline.json", status: 400, expected: .unauthorized, words: "API key not valid"),
        ErrorFixture(file: "error_400_maxresults_100_invalid_parameter_2026-09_colophon.json", status: 400, expected: .error, words: "invalidParameter"),
        ErrorFixture(file: "error_429_daily_quota_anonymous_abridged_2026-05_enju_leaf_issue.json", status: 429, expected: .rateLimited, words: "per day"),
    ]

    @Test("every recorded error body gives the right status, naming Google Books, never the key", arguments: errors)
    func errorBodies(fixture: ErrorFixture) async throws {
        let response = try #require(try sharedFixture(fixture.file, status: fixture.status))
        try await withGoogleBooks { provider, server in
            server.route(volumesPath, response)
            let error = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(ProviderStatus(error: error) == fixture.expected, "\(error)")
            #expect(error.provider == "googlebooks")
            #expect(error.detail.contains("Google Books"))
            #expect(error.detail.contains(fixture.words), "\(error.detail)")
            #expect(!error.description.contains(fakeKey))
            #expect(error.detail.contains("key=REDACTED"))
            #expect(server.requests.first?.queryValue("key") == fakeKey)
        }
    }
}
