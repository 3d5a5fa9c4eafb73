import AladinProvider
import Foundation
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting
import Testing

/// A key distinctive enough that finding it in any text proves a leak.
let fakeKey = "ttbTESTKEY0451c9e2a7-do-not-leak"

let searchPath = "/ttb/api/ItemSearch.aspx"
let lookupPath = "/ttb/api/ItemLookUp.aspx"
let listPath = "/ttb/api/ItemList.aspx"

/// Runs `body` against a fresh fixture server and an Aladin provider whose base URL has Aladin's `/ttb/api` path.
func withAladin<T>(key: String? = fakeKey, _ body: (AladinProvider, FixtureServer) async throws -> T) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    do {
        let provider = AladinProvider(baseURL: server.url("/ttb/api"), apiKey: key, transport: transport)
        let result = try await body(provider, server)
        try await transport.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        try? await server.shutdown()
        throw error
    }
}

/// Runs `body` with a real transport that is shut down afterwards, whatever happens.
func withTransport<T>(_ body: (AsyncHTTPTransport) async throws -> T) async throws -> T {
    let transport = AsyncHTTPTransport()
    do {
        let result = try await body(transport)
        try await transport.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        throw error
    }
}

/// The `SeekError` an operation throws, or nil (and a recorded issue) when it throws something else or nothing.
func seekError(_ operation: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> SeekError? {
    do {
        try await operation()
        Issue.record("expected a SeekError, but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as SeekError {
        return error
    } catch {
        Issue.record("expected a SeekError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A response with any status whose body is `text`.
func body(_ text: String, status: Int = 200, contentType: String = "text/plain;charset=utf-8") -> FixtureResponse {
    FixtureResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
}

/// A shared Aladin fixture, or nil when the shared fixtures are absent.
func sharedFixture(_ name: String) throws -> FixtureResponse? {
    guard let url = SharedFixtures.url("aladin", name) else { return nil }
    return FixtureResponse(body: Array(try Data(contentsOf: url)))
}

/// One Aladin item as JSON text; `extra` is spliced in verbatim (`"subInfo":{…}` etc.).
func itemJSON(
    title: String = "오베라는 남자", author: String = "프레드릭 배크만 (지은이), 최민우 (옮긴이)",
    isbn: String = "K162832578", isbn13: String = "9791130605210", itemId: Int = 312824974,
    cover: String = "https://image.aladin.co.kr/product/31282/49/cover/k162832578_2.jpg",
    description: String = "", pubDate: String = "2015-05-10", extra: String = #""subInfo":{}"#
) -> String {
    """
    {"title":"\(title)","link":"http://www.aladin.co.kr/shop/wproduct.aspx?ItemId=\(itemId)&amp;partner=openAPI&amp;start=api",
     "author":"\(author)","pubDate":"\(pubDate)","description":"\(description)","isbn":"\(isbn)","isbn13":"\(isbn13)",
     "itemId":\(itemId),"priceSales":15120,"priceStandard":16800,"mallType":"BOOK","stockStatus":"","mileage":840,
     "cover":"\(cover)","categoryId":50998,"categoryName":"국내도서>소설/시/희곡>북유럽소설","publisher":"다산책방",
     "salesPoint":41250,"adult":false,"fixedPrice":true,"customerReviewRank":9,\(extra)}
    """
}

/// A search envelope holding `items`.
func envelopeJSON(_ items: [String], total: Int, page: Int = 1, perPage: Int = 10) -> String {
    """
    {"version":"20131101","logo":"http://image.aladin.co.kr/img/header/2011/aladin_logo_new.gif",
     "title":"알라딘 검색결과 - 테스트","link":"http://www.aladin.co.kr/search/wsearchresult.aspx?KeyWord=x&amp;SearchTarget=book",
     "pubDate":"Tue, 13 May 2025 07:41:59 GMT","totalResults":\(total),"startIndex":\(page),"itemsPerPage":\(perPage),
     "query":"테스트","searchCategoryId":0,"searchCategoryName":"전체","item":[\(items.joined(separator: ","))]}
    """
}

/// `count` distinct items.
func items(_ count: Int) -> [String] {
    (0..<count).map { itemJSON(isbn13: "", itemId: 1000 + $0) }
}
