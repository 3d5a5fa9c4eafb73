import CrossrefProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// The recorded real Crossref bodies in ../shared/fixtures/crossref, served at the real paths (plain and, as
/// recorded, gzip-encoded) by a loopback stand-in and read by the real provider over HTTP.
@Suite("Crossref shared fixtures", .enabled(if: SharedFixtures.directory != nil))
struct CrossrefSharedFixtureTests {
    struct SearchFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let count: Int
        let total: Int
        var testDescription: String { file }
    }

    static let searches = [
        SearchFixture(file: "search_query_ecology_rows2_reference_entries_2026-06_habanero", count: 2, total: 586_628),
        SearchFixture(file: "search_no_query_rows2_book_chapters_2026-06_habanero", count: 2, total: 183_388_203),
        SearchFixture(file: "search_query_widget_cursor_star_2026-06_habanero", count: 20, total: 454),
    ]

    @Test("every recorded search body, plain and gzip-encoded, maps to rows with titles, DOIs and their authors",
          arguments: searches, [false, true])
    func searchDecodes(fixture: SearchFixture, gzip: Bool) async throws {
        let response = try #require(try sharedFixture(fixture.file + (gzip ? ".gzip.raw" : ".json"), gzip: gzip))
        let plain = try #require(try sharedBytes(fixture.file + ".json"))
        let recorded = try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any]
        let works = (recorded?["message"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
        try await withCrossref { provider, server in
            server.route(worksPath, response)
            let page = try await provider.search(SearchRequest(query: "recorded", limit: 20))
            #expect(page.items.count == fixture.count)
            #expect(page.total == fixture.total)
            for (item, work) in zip(page.items, works) {
                let doi = try #require(work["DOI"] as? String)
                #expect(item.id.description == "crossref:" + doi.lowercased())
                #expect(item.identifiers.other["doi"] == doi.lowercased())
                #expect(!item.title.isEmpty)
                #expect(!item.title.contains("\n") && !item.title.contains("<"))
                let authors = work["author"] as? [[String: Any]] ?? []
                #expect(item.creators.count == authors.count, "\(item.title): \(item.creators)")
                #expect(item.url?.absoluteString.hasPrefix("https://doi.org/") == true || item.url?.scheme == "http")
                // No recorded work here is a whole book: none may be identified by its book's ISBN.
                #expect(item.identifiers.isbn13.isEmpty && item.identifiers.isbn10.isEmpty, "\(item.id) \(item.identifiers)")
                #expect(item.images.isEmpty)
            }
        }
    }

    @Test("the two encyclopaedia entries that share ISBN 9780199830060 stay two rows, the ISBN on their details only")
    func sharedISBNEntries() async throws {
        let response = try #require(try sharedFixture("search_query_ecology_rows2_reference_entries_2026-06_habanero.json"))
        try await withCrossref { provider, server in
            server.route(worksPath, response)
            let items = try await provider.search(SearchRequest(query: "ecology", limit: 2)).items
            try #require(items.count == 2)
            #expect(items.map(\.title) == ["Communicating Ecology", "Chemical Ecology"])
            #expect(Set(items.map(\.id)).count == 2)
            #expect(items.allSatisfy { $0.identifiers.isbn13.isEmpty })
            // Each marks itself a part, for the merger: never joined by its book's ISBN or title.
            #expect(items.allSatisfy { $0.identifiers.other["crossrefType"] == "reference-entry" })
            #expect(items.allSatisfy { $0.identifiers.other["language"] == "en" })
            #expect(items.map(\.year) == [2022, 2012])
            #expect(items[1].creators.count == 1)
            let recorded = try #require(try sharedBytes("search_query_ecology_rows2_reference_entries_2026-06_habanero.json"))
            let list = try #require(try JSONSerialization.jsonObject(with: Data(recorded)) as? [String: Any])
            let entry = try #require(((list["message"] as? [String: Any])?["items"] as? [[String: Any]])?.first)
            let body = try JSONSerialization.data(withJSONObject: ["status": "ok", "message-type": "work", "message": entry])
            server.route(worksPath + "/10.1093/obo/9780199830060-0238", FixtureResponse(body: Array(body)))
            let detail = try await provider.detail(ItemID(provider: "crossref", value: "10.1093/obo/9780199830060-0238"))
            #expect(detail.attributes["containerISBN"] == "9780199830060")
            #expect(detail.attributes["type"] == "reference-entry")
            #expect(detail.attributes["containerTitle"] == "Ecology")
            #expect(detail.item.identifiers.isbn13.isEmpty)
        }
    }

    @Test("the widget search: a `[[null]]` issued date falls back to another date; chapters keep their page range apart")
    func widgetSearch() async throws {
        let response = try #require(try sharedFixture("search_query_widget_cursor_star_2026-06_habanero.json"))
        try await withCrossref { provider, server in
            server.route(worksPath, response)
            let items = try await provider.search(SearchRequest(query: "widget", limit: 20)).items
            let first = try #require(items.first)
            #expect(first.title == "Widget Mania: Using a GUI Widget Framework")
            #expect(first.year == 2007, "issued is [[null]]: the created date's year")
            let kit = items.filter { $0.id.value.hasPrefix("10.1007/978-1-4842-6700-4") }
            #expect(kit.count == 4, "four chapters of one book: four rows")
            #expect(kit.allSatisfy { $0.creators == ["Sean Lynch"] || !$0.creators.isEmpty })
        }
    }

    @Test("the recorded detail maps title, authors, date, publisher and language; the DOI path keeps its slash")
    func recordedDetail() async throws {
        let response = try #require(try sharedFixture("work_doi_10.1371_journal.pone.0033693_2026-06_habanero.gzip.raw", gzip: true))
        try await withCrossref { provider, server in
            server.route(worksPath + "/10.1371/journal.pone.0033693", response)
            let detail = try await provider.detail(ItemID(provider: "crossref", value: "10.1371/JOURNAL.PONE.0033693"))
            #expect(detail.item.id.description == "crossref:10.1371/journal.pone.0033693")
            #expect(detail.item.title.hasPrefix("Methylphenidate Exposure Induces Dopamine Neuron Loss"))
            #expect(detail.item.creators.first == "Shankar Sadasivan")
            #expect(detail.item.creators.count == 6)
            #expect(detail.item.year == 2012)
            #expect(detail.publishDate == "2012-03-21")
            #expect(detail.publishers == ["Public Library of Science (PLoS)"])
            #expect(detail.attributes["language"] == "en")
            #expect(detail.attributes["containerTitle"] == "PLoS ONE")
            #expect(detail.item.url?.absoluteString == "https://doi.org/10.1371/journal.pone.0033693")
            let asked = try #require(server.requests.first)
            #expect(asked.queryValue("mailto") == fakeMailto)
            #expect(asked.header("Accept-Encoding")?.contains("gzip") == true)
        }
    }

    @Test("the empty answer is an empty page")
    func emptyAnswer() async throws {
        let response = try #require(try sharedFixture("search_filter_doi_select_rows1_empty_2026-09_inline.json"))
        try await withCrossref { provider, server in
            server.route(worksPath, response)
            let page = try await provider.search(SearchRequest(query: "zzqxj", limit: 10))
            #expect(page.items.isEmpty)
            #expect(page.total == 0)
            #expect(page.next == nil)
        }
    }

    struct ErrorFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let status: Int
        let contentType: String
        let detail: Bool
        let expected: SeekError.Kind
        let words: String
        var testDescription: String { file }
    }

    static let errors = [
        ErrorFixture(file: "error_404_work_not_found_plain_text_2026-06_habanero.raw", status: 404, contentType: "text/plain",
                     detail: true, expected: .notFound, words: "Resource not found."),
        ErrorFixture(file: "error_400_validation_failure_field_query_on_doi_route_2026-06_habanero.json", status: 400,
                     contentType: "application/json;charset=utf-8", detail: true, expected: .invalidInput,
                     words: "This route does not support field query parameters"),
        ErrorFixture(file: "error_404_resource_failure_cursor_invalid_2026-06_habanero.json", status: 404,
                     contentType: "application/json", detail: false, expected: .invalidInput, words: "Cursor specified but it is invalid"),
    ]

    @Test("every recorded error body gives the right status with a message naming Crossref, never the contact address",
          arguments: errors)
    func errorBodies(fixture: ErrorFixture) async throws {
        let response = try #require(try sharedFixture(fixture.file, status: fixture.status, contentType: fixture.contentType))
        try await withCrossref { provider, server in
            server.route(worksPath, response)
            server.route(worksPath + "/*", response)
            let error = try #require(await seekError {
                if fixture.detail {
                    _ = try await provider.detail(ItemID(provider: "crossref", value: "10.1371/notarealdoi"))
                } else {
                    _ = try await provider.search(SearchRequest(query: "widget"))
                }
            })
            #expect(error.kind == fixture.expected, "\(error)")
            #expect(error.provider == "crossref")
            #expect(error.detail.contains("Crossref"))
            #expect(error.detail.contains(fixture.words), "\(error.detail)")
            #expect(!error.description.contains(fakeMailto))
        }
    }
}
