import DeclaredProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// Project Gutenberg through Gutendex, shipped as the declaration Bundled/gutendex.json, against a
/// stand-in that speaks `/books/` and `/books/<id>/` with the recorded bodies. No key.
@Suite("Bundled declaration: Project Gutenberg", .enabled(if: SharedFixtures.directory != nil, "needs ../shared/fixtures"))
struct GutendexDeclarationTests {
    static let popular2022 = "books_page1_popular_2022-01_gmc2.json"
    static let popular2024 = "books_page1_popular_2024-10_zeptobooks.json"
    static let expectations = "search_great_expectations_duplicate_work_2022-04_jordanpastries.json"
    static let empty = "search_empty_no_matches_testliteral_progetto.json"

    static func search(_ file: String, query: String = "dickens") async throws -> SearchPage {
        try await withBundled("gutendex") { provider, server in
            server.route("/books/", .json(try recorded("gutendex", file)))
            return try await provider.search(SearchRequest(query: query))
        }
    }

    /// One book of a recorded list, as `/books/<id>/` answers it.
    static func record(_ id: Int, in file: String) throws -> String {
        let results = try #require(try recordedObject("gutendex", file)["results"] as? [[String: Any]])
        let book = try #require(results.first { ($0["id"] as? Int) == id })
        return String(decoding: try JSONSerialization.data(withJSONObject: book), as: UTF8.self)
    }

    @Test("every recorded success body maps to items with titles and \"First Last\" creators; audiobooks are left out")
    func everySuccessBody() async throws {
        let files = recordedFiles("gutendex", prefix: "books_") + recordedFiles("gutendex", prefix: "search_").filter { $0 != Self.empty }
        #expect(files.count >= 3)
        for file in files {
            let results = try #require(try recordedObject("gutendex", file)["results"] as? [[String: Any]])
            let texts = results.filter { ($0["media_type"] as? String) == "Text" }
            let page = try await Self.search(file)
            #expect(page.items.count == texts.count, "\(file)")
            #expect(page.items.allSatisfy { !$0.title.isEmpty && $0.url?.host == "www.gutenberg.org" }, "\(file)")
            let credited = texts.filter { ($0["authors"] as? [Any])?.isEmpty == false }.count
            #expect(page.items.filter { !$0.creators.isEmpty }.count == credited, "\(file)")
            #expect(page.items.allSatisfy { $0.creators.allSatisfy { !$0.contains(",") } }, "\(file): \(page.items.flatMap(\.creators))")
        }
    }

    @Test("the Great Expectations search: the Text edition, not the audiobook; Dickens turned round")
    func greatExpectations() async throws {
        let page = try await Self.search(Self.expectations, query: "great expectations")
        #expect(page.items.map(\.id.description) == ["gutendex:1400"])
        let book = try #require(page.items.first)
        #expect(book.title == "Great Expectations")
        #expect(book.creators == ["Charles Dickens"])
        #expect(book.url?.absoluteString == "https://www.gutenberg.org/ebooks/1400")
        #expect(book.identifiers.isbn13.isEmpty, "Gutenberg has no ISBNs")
        #expect(page.next == nil, "2 results: one page")
    }

    @Test("titles split at \"; \" into a subtitle; names with a full form in parentheses read First Last")
    func titlesAndNames() async throws {
        let page = try await Self.search(Self.popular2022)
        let carol = try #require(page.items.first { $0.id.value == "46" })
        #expect(carol.title == "A Christmas Carol in Prose")
        #expect(carol.subtitle == "Being a Ghost Story of Christmas")
        #expect(carol.creators == ["Charles Dickens"])
        #expect(carol.image(.medium)?.url.absoluteString.hasSuffix(".jpg") == true)
        #expect(page.total == 67110)
        #expect(page.next == "2", "32 a page, fixed")
        let recent = try await Self.search(Self.popular2024)
        let frankenstein = try #require(recent.items.first { $0.id.value == "84" })
        #expect(frankenstein.title == "Frankenstein")
        #expect(frankenstein.subtitle == "Or, The Modern Prometheus")
        #expect(frankenstein.creators == ["Mary Wollstonecraft Shelley"])
    }

    @Test("detail is /books/<id>/, with the free e-book links, languages and subjects")
    func detail() async throws {
        let body = try Self.record(1400, in: Self.expectations)
        let (detail, path) = try await withBundled("gutendex") { provider, server in
            server.route("/books/1400/", .json(body))
            let detail = try await provider.detail(ItemID(provider: "gutendex", value: "1400"))
            return (detail, server.requests.last?.path)
        }
        #expect(path == "/books/1400/")
        #expect(detail.item.title == "Great Expectations")
        #expect(detail.attributes["formats.application/epub+zip"]?.hasPrefix("https://www.gutenberg.org/") == true, "\(detail.attributes)")
        #expect(detail.attributes.keys.contains { $0.hasPrefix("formats.text/html") })
        #expect(detail.attributes["language"] == "en")
        #expect(detail.attributes["mediaType"] == "Text")
        #expect(detail.subjects.contains("Orphans -- Fiction"))
        #expect(detail.contributors.map(\.name) == ["Charles Dickens"])
    }

    @Test("a page past the end (404 \"Invalid page.\") is an empty page; an unknown book (404) is not found")
    func notFound() async throws {
        let (page, error) = try await withBundled("gutendex") { provider, server in
            server.route("/books/", .json(try recorded("gutendex", "error_404_invalid_page_testliteral_progetto.json"), status: 404))
            server.route("/books/999999999/", .json(try recorded("gutendex", "error_404_book_not_found_testliteral_progetto.json"), status: 404))
            let page = try await provider.search(SearchRequest(query: "dickens", page: 99))
            let error = await declaredError { _ = try await provider.detail(ItemID(provider: "gutendex", value: "999999999")) }
            return (page, error)
        }
        #expect(page.items.isEmpty && page.next == nil)
        #expect(error?.kind == .notFound)
        #expect(error?.description.hasPrefix("gutendex:") == true)
    }

    @Test("the empty answer is an empty page; trending is the popular list; no key is needed")
    func emptyAndTrending() async throws {
        let (empty, trending, sort, configured) = try await withBundled("gutendex") { provider, server in
            server.route("/books/", handler: { request in
                request.queryValue("sort") == "popular"
                    ? .json((try? recorded("gutendex", Self.popular2024)) ?? "")
                    : .json((try? recorded("gutendex", Self.empty)) ?? "")
            })
            let empty = try await provider.search(SearchRequest(query: "zzqxjvkwy"))
            let trending = try await provider.trending(limit: 5)
            return (empty, trending, server.requests.last?.queryValue("sort"), provider.isConfigured)
        }
        #expect(empty.items.isEmpty && empty.next == nil)
        #expect(trending.items.count == 5)
        #expect(sort == "popular")
        #expect(configured)
    }

    @Test("the bang is !pg, and the declared policy is gentle: a rate limit and two calls at a time")
    func policy() throws {
        let declaration = try JSONDeclaredProvider.bundledDeclaration("gutendex")
        #expect(declaration.bangs == ["pg"])
        #expect(declaration.concurrency == 2)
        #expect(try bundledFactory("gutendex").defaultRateLimit != nil)
    }

    @Test("Project Gutenberg passes the conformance kit")
    func conformance() async throws {
        let search = try recorded("gutendex", Self.expectations)
        let empty = try recorded("gutendex", Self.empty)
        let book = try Self.record(1400, in: Self.expectations)
        let popular = try recorded("gutendex", Self.popular2024)
        let kit = ProviderConformance(
            factory: try bundledFactory("gutendex"),
            environment: { ["SEEK_GUTENDEX_URL": $0.absoluteString] },
            query: "great expectations",
            search: .responses(["/books/": .json(search), "/books/1400/": .json(book)]),
            emptySearch: .responses(["/books/": .json(empty)]),
            trending: .responses(["/books/": .json(popular)]),
            errors: [
                ConformanceErrorCase("an unknown book", call: .detail(ItemID(provider: "gutendex", value: "999999999")),
                    recording: .responses(["/books/999999999/": .json(#"{"detail":"No Book matches the given query."}"#, status: 404)]),
                    expect: .kind(.notFound)),
                ConformanceErrorCase("a hobby server down", call: .search("great expectations"),
                    recording: .responses(["/books/": .json("<html>502</html>", status: 502)]), expect: .status(.error)),
            ])
        let report = await kit.run()
        #expect(report.passed, "\(report)")
    }
}
