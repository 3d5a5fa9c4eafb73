import AladinProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// The recorded real Aladin bodies in ../shared/fixtures/aladin, run through the real provider over HTTP.
@Suite("Aladin shared fixtures", .enabled(if: SharedFixtures.directory != nil))
struct AladinSharedFixtureTests {
    /// A recorded search body and what it holds.
    struct SearchFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let limit: Int
        let count: Int
        let total: Int
        let next: String?
        var testDescription: String { file }
    }

    static let searches = [
        SearchFixture(file: "search_title_aladdin_2025-05_readio_u003E_escapes.json", limit: 10, count: 10, total: 31, next: "2"),
        SearchFixture(file: "search_keyword_widaehan_iyagi_2021-11_inline_escaped_slashes.json", limit: 10, count: 10, total: 246, next: "2"),
        SearchFixture(file: "search_title_venice_maxresults1_2024-07_pyliteral.json", limit: 1, count: 1, total: 135, next: "2"),
        SearchFixture(file: "search_title_star_empty_2024-07_pyliteral.json", limit: 1, count: 0, total: 0, next: nil),
    ]

    @Test("every recorded search body decodes into books with ids, titles, creators and covers", arguments: searches)
    func searchDecodes(fixture: SearchFixture) async throws {
        let response = try #require(try sharedFixture(fixture.file))
        try await withAladin { provider, server in
            server.route(searchPath, response)
            let page = try await provider.search(SearchRequest(query: "x", limit: fixture.limit))
            #expect(page.items.count == fixture.count)
            #expect(page.total == fixture.total)
            #expect(page.next == fixture.next)
            for item in page.items {
                #expect(item.id.provider == "aladin")
                #expect(item.kind == .book)
                #expect(!item.title.isEmpty)
                #expect(!item.creators.isEmpty)
                #expect(item.year != nil)
                #expect(item.images[.small] != nil && item.images[.medium] != nil && item.images[.large] != nil)
                #expect(item.url?.absoluteString.contains("&amp;") == false)
                #expect(item.identifiers.other["aladinItemId"] != nil)
            }
        }
    }

    @Test("the 2021 keyword search maps its books: ISBN-13 ids, subtitles, roles, entity-free text")
    func keywordSearchMapping() async throws {
        let response = try #require(try sharedFixture("search_keyword_widaehan_iyagi_2021-11_inline_escaped_slashes.json"))
        try await withAladin { provider, server in
            server.route(searchPath, response)
            let items = try await provider.search(SearchRequest(query: "위대한 이야기", limit: 10)).items
            let first = try #require(items.first)
            #expect(first.id.description == "aladin:9791191851069")
            #expect(first.title == "위대한 이야기")
            #expect(first.subtitle == "아름다움, 선함, 진리에 대한 메타 내러티브")
            #expect(first.creators == ["제임스 브라이언 스미스", "이대근"])
            #expect(first.images[.medium]?.url.absoluteString == "https://image.aladin.co.kr/product/28125/61/cover/k642734155_1.jpg")
            #expect(first.images[.small]?.url.absoluteString == "https://image.aladin.co.kr/product/28125/61/coversum/k642734155_1.jpg")
            let isbn10 = try #require(items.first { $0.id.value == "9788972888321" })
            #expect(isbn10.identifiers.isbn10 == ["897288832X"])
            let threeRoles = try #require(items.first { $0.id.value == "9788932530567" })
            #expect(threeRoles.creators == ["케빈 드영", "돈 클락", "박총"])
        }
    }

    @Test("the recorded bestseller list decodes as trending")
    func bestsellers() async throws {
        let response = try #require(try sharedFixture("list_bestseller_cid1_2024-09_devcorgi.json"))
        try await withAladin { provider, server in
            server.route(listPath, response)
            let page = try await provider.trending(limit: 10)
            #expect(page.items.count == 10)
            #expect(page.total == 1000)
            #expect(page.next == "2")
            #expect(page.items.first?.title == "언젠가 우리가 같은 별을 바라본다면")
            #expect(page.items.first?.creators == ["차인표", "제딧"])
        }
    }

    /// A recorded lookup body and the id it answers.
    struct LookupFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let isbn13: String
        var testDescription: String { file }
    }

    static let lookups = [
        LookupFixture(file: "lookup_isbn13_9772799628000_magazine_usedList_2022-12_inline.json", isbn13: "9772799628000"),
        LookupFixture(file: "lookup_isbn13_9791130605210_ove_2024-08_devcorgi.json", isbn13: "9791130605210"),
        LookupFixture(file: "lookup_isbn13_9791130607887_2024-08_devcorgi.json", isbn13: "9791130607887"),
        LookupFixture(file: "lookup_isbn13_9791130610658_ebook_paperBookList_2024-08_devcorgi.json", isbn13: "9791130610658"),
        LookupFixture(file: "lookup_isbn13_9791191851069_ebookList_usedList_2021-11_inline.json", isbn13: "9791191851069"),
    ]

    @Test("every recorded lookup decodes as a detail keyed by its ISBN-13", arguments: lookups)
    func lookupDecodes(fixture: LookupFixture) async throws {
        let response = try #require(try sharedFixture(fixture.file))
        try await withAladin { provider, server in
            server.route(lookupPath, response)
            let detail = try await provider.detail(ItemID(provider: "aladin", value: fixture.isbn13))
            #expect(server.requests.last?.queryValue("ItemIdType") == "ISBN13")
            #expect(detail.item.id.description == "aladin:\(fixture.isbn13)")
            #expect(!detail.contributors.isEmpty)
            #expect(detail.contributors.allSatisfy { $0.role != nil })
            #expect(detail.publishers.count == 1)
            #expect(detail.publishDate != nil)
            #expect(detail.attributes["priceSales"] != nil)
            #expect(detail.attributes["priceStandard"] != nil)
            #expect(detail.attributes["salesPoint"] != nil)
            #expect(detail.attributes["categoryName"] != nil)
            #expect(detail.description.map { !$0.contains("&lt;") && !$0.contains("&gt;") } == true)
        }
    }

    @Test("the magazine lookup keeps all 33 writers, its pages and used price; its 977 EAN is no ISBN")
    func magazine() async throws {
        let response = try #require(try sharedFixture("lookup_isbn13_9772799628000_magazine_usedList_2022-12_inline.json"))
        try await withAladin { provider, server in
            server.route(lookupPath, response)
            let detail = try await provider.detail(ItemID(provider: "aladin", value: "9772799628000"))
            #expect(detail.item.title == "The Earthian Tales 어션 테일즈 No.1")
            #expect(detail.item.subtitle == "alone")
            #expect(detail.contributors.count == 33)
            #expect(detail.contributors.allSatisfy { $0.role == "지은이" })
            #expect(detail.item.identifiers.isbn13.isEmpty)
            #expect(detail.item.identifiers.other["aladinItemId"] == "284863481")
            #expect(detail.pageCount == 272)
            #expect(detail.attributes["usedMinPrice"] == "15900")
        }
    }

    @Test("an HTML-escaped description is decoded (&lt;오베라는 남자&gt; → <오베라는 남자>)")
    func decodedDescription() async throws {
        let response = try #require(try sharedFixture("lookup_isbn13_9791130607887_2024-08_devcorgi.json"))
        try await withAladin { provider, server in
            server.route(lookupPath, response)
            let detail = try await provider.detail(ItemID(provider: "aladin", value: "9791130607887"))
            #expect(detail.description?.hasPrefix("<오베라는 남자>로 전 세계를 감동시킨") == true)
        }
    }

    @Test("the eBook lookup and the ebookList lookup keep their cross-links")
    func crossLinks() async throws {
        let ebook = try #require(try sharedFixture("lookup_isbn13_9791130610658_ebook_paperBookList_2024-08_devcorgi.json"))
        let paper = try #require(try sharedFixture("lookup_isbn13_9791191851069_ebookList_usedList_2021-11_inline.json"))
        try await withAladin { provider, server in
            server.route(lookupPath, ebook)
            let ebookDetail = try await provider.detail(ItemID(provider: "aladin", value: "9791130610658"))
            #expect(ebookDetail.attributes["mallType"] == "EBOOK")
            #expect(ebookDetail.attributes["paperBookItemId"] == "96493963")
            server.route(lookupPath, paper)
            let paperDetail = try await provider.detail(ItemID(provider: "aladin", value: "9791191851069"))
            #expect(paperDetail.attributes["ebookItemId"] == "281295529")
            #expect(paperDetail.attributes["originalTitle"] == "The Magnificent Story")
            #expect(paperDetail.attributes["usedMinPrice"] == nil)
        }
    }

    @Test("the recorded single-quoted error body (code 8) is notFound")
    func singleQuotedError() async throws {
        let response = try #require(try sharedFixture("error_code8_item_not_found_single_quotes_inline.raw"))
        try await withAladin { provider, server in
            server.route(lookupPath, response)
            let error = await seekError { _ = try await provider.detail(ItemID(provider: "aladin", value: "9790000000000")) }
            #expect(error?.kind == .notFound)
            #expect(error?.detail.contains("키에 해당하는 상품이 존재하지 않습니다.") == true)
            #expect(error.map { !String(describing: $0).contains(fakeKey) } == true)
        }
    }

    @Test("every file in the shared Aladin folder is covered by a test above")
    func everyFixtureCovered() throws {
        let directory = try #require(SharedFixtures.directory).appendingPathComponent("aladin")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".raw") }
        let covered = Set(Self.searches.map(\.file) + Self.lookups.map(\.file) + [
            "list_bestseller_cid1_2024-09_devcorgi.json", "error_code8_item_not_found_single_quotes_inline.raw",
        ])
        #expect(Set(files).subtracting(covered).isEmpty, "uncovered fixtures: \(Set(files).subtracting(covered).sorted())")
    }
}
