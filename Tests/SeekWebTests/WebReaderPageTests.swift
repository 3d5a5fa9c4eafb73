import Foundation
import Hummingbird
import HummingbirdTesting
import SeekCore
import SeekLoopback
@testable import SeekWeb
import SeekTesting
import Testing

/// What a reader meets: a cover for every item through the image route, pages in their language,
/// words instead of engineers' terms, an HTML page for an unknown path, and a banner in demo mode.
@Suite("seek serve: pages for readers")
struct WebReaderPageTests {
    typealias Answer = (status: HTTPResponse.Status, headers: HTTPFields, body: String)

    /// Runs `requests` in order through the router of one harness (with `demo` queries when given).
    func answers(_ requests: [(uri: String, headers: HTTPFields)], demo: [(provider: String, query: String)]? = nil,
                 prepare: @Sendable (ServerHarness) -> Void = { _ in }) async throws -> [Answer] {
        let harness = try await ServerHarness.start()
        prepare(harness)
        var server = harness.server
        server.demoQueries = demo
        let router = server.router()
        let requests = requests
        let answers = try await Application(router: router, logger: server.logger).test(.router) { client in
            var answers: [Answer] = []
            for request in requests {
                answers.append(try await client.execute(uri: request.uri, method: .get, headers: request.headers) { ($0.status, $0.headers, $0.text) })
            }
            return answers
        }
        try await harness.stop()
        return answers
    }

    func answer(_ uri: String, headers: HTTPFields = [:], demo: [(provider: String, query: String)]? = nil,
                prepare: @Sendable (ServerHarness) -> Void = { _ in }) async throws -> Answer {
        let all = try await answers([(uri, headers)], demo: demo, prepare: prepare)
        return try #require(all.first)
    }

    // MARK: Covers

    @Test("an item without a picture gets a drawn SVG cover through the image route, with ETag and Cache-Control")
    func drawnCover() async throws {
        let results = try await answers([("/api/v1/items/openlibrary:OL45804W/image?size=small", [:])]) { harness in
            WebPageTests.serveWork(harness)
        }
        let image = try #require(results.first)
        #expect(image.status == .ok)
        #expect(image.headers[.contentType] == "image/svg+xml")
        #expect(image.headers[.cacheControl] == "public, max-age=3600")
        #expect(image.headers[.eTag]?.hasPrefix("\"") == true)
        #expect(image.body.hasPrefix("<svg"))
        #expect(image.body.contains(#"aria-label="Fantastic Mr Fox""#), "\(image.body)")
        #expect(image.body.contains(">Roald Dahl<"), "the author, from the record")
        #expect(image.body.contains(#"width="100" height="150""#))
    }

    @Test("a drawn cover answers If-None-Match with 304")
    func drawnCoverRevalidates() async throws {
        let first = try await answer("/api/v1/items/openlibrary:OL45804W/image") { WebPageTests.serveWork($0) }
        let tag = try #require(first.headers[.eTag])
        let again = try await answer("/api/v1/items/openlibrary:OL45804W/image", headers: [.ifNoneMatch: tag]) { WebPageTests.serveWork($0) }
        #expect(again.status == .notModified)
    }

    @Test("an item whose record cannot be had is drawn from what its search said; one never seen is still a 404")
    func coverFromRecentAnswer() async throws {
        let results = try await answers([
            ("/search?q=harbor&providers=openlibrary", [:]),
            ("/api/v1/items/openlibrary:OL1W/image", [:]),
            ("/api/v1/items/openlibrary:OL999W/image", [:]),
        ]) { harness in
            harness.serveBooks()
            harness.fixtures.route("/ol/works/OL1W.json", .json("{}", status: 503))
            harness.fixtures.route("/ol/works/OL999W.json", .json("{}", status: 503))
        }
        #expect(results[0].status == .ok)
        #expect(results[1].status == .ok)
        #expect(results[1].headers[.contentType] == "image/svg+xml")
        #expect(results[1].body.contains(#"aria-label="Harbor Lights""#), "\(results[1].body)")
        #expect(results[2].status != .ok)
        #expect(results[2].headers[.contentType]?.hasPrefix("application/json") == true)
    }

    @Test("every result of a page has an img through the image route: no bare letter")
    func everyResultHasAnImage() async throws {
        let page = try await answer("/search?q=harbor") { $0.serveBooks() }
        let results = page.body.components(separatedBy: "<li class=\"result\"").dropFirst()
        #expect(results.count >= 3)
        for result in results { #expect(result.contains(#"<img src="/api/v1/items/"#), "\(result)") }
        #expect(!page.body.contains("noimage"))
    }

    // MARK: Languages

    @Test("Accept-Language: ko gives <html lang=\"ko\"> and Korean words; English otherwise")
    func korean() async throws {
        let korean = try await answer("/search?q=harbor", headers: [.acceptLanguage: "ko-KR,ko;q=0.9,en;q=0.5"]) { $0.serveBooks() }
        #expect(korean.body.contains(#"<html lang="ko">"#))
        #expect(korean.body.contains(">검색</button>"))
        #expect(korean.body.contains("인기"))
        #expect(korean.body.contains(#"<span class="pname">알라딘</span>"#), "a source's Korean name")
        #expect(korean.headers[.contentLanguage] == "ko")
        #expect(korean.headers[.vary]?.contains("Accept-Language") == true)
        let english = try await answer("/", headers: [.acceptLanguage: "fr-FR,fr;q=0.9,en;q=0.8"])
        #expect(english.body.contains(#"<html lang="en">"#))
        #expect(english.body.contains(">Search</button>"))
    }

    @Test("?lang= switches the language and a cookie keeps it; the switch is on every page")
    func languageSwitch() async throws {
        let chosen = try await answer("/?lang=ko", headers: [.acceptLanguage: "en"])
        #expect(chosen.body.contains(#"<html lang="ko">"#))
        let cookie = try #require(chosen.headers[values: .setCookie].first { $0.hasPrefix("seek_lang=") })
        #expect(cookie.hasPrefix("seek_lang=ko;"))
        #expect(cookie.contains("SameSite=Lax"))
        #expect(chosen.body.contains(#"href="?lang=en" lang="en""#))
        let kept = try await answer("/favorites", headers: [.acceptLanguage: "en", .cookie: "other=1; seek_lang=ko"])
        #expect(kept.body.contains(#"<html lang="ko">"#))
        #expect(kept.headers[values: .setCookie].allSatisfy { !$0.hasPrefix("seek_lang=") })
        let back = try await answer("/search?q=harbor&lang=en", headers: [.cookie: "seek_lang=ko"]) { $0.serveBooks() }
        #expect(back.body.contains(#"<html lang="en">"#))
        #expect(back.body.contains(#"href="?q=harbor&amp;lang=ko""#), "the switch keeps the page's own query")
    }

    @Test("Accept-Language is read by quality", arguments: [
        ("ko", "ko"), ("ko-KR", "ko"), ("en-US,en;q=0.9,ko;q=0.8", "en"), ("en;q=0.5,ko;q=0.9", "ko"),
        ("fr", nil), ("ko;q=0", nil), ("", nil), ("*", nil),
    ] as [(String, String?)])
    func acceptLanguage(header: String, expected: String?) {
        #expect(WebLanguage.preferred(header, among: ["en", "ko"]) == expected)
    }

    @Test("both languages have every string, with the same placeholders")
    func stringTables() throws {
        let english = WebStrings.named("en"), korean = WebStrings.named("ko")
        #expect(english.code == "en" && korean.code == "ko")
        #expect(english.ui.count > 50)
        #expect(Set(english.ui.keys) == Set(korean.ui.keys))
        #expect(Set(english.labels.keys) == Set(korean.labels.keys))
        for (key, text) in english.ui {
            let placeholders = { (text: String) in Set((0..<4).filter { text.contains("{\($0)}") }) }
            #expect(placeholders(text) == placeholders(korean[key]), "\(key)")
        }
    }

    @Test("identifiers and attributes have readers' labels; an unknown name is split into words", arguments: [
        ("openlibraryWork", "Open Library work"), ("categoryName", "Category"), ("mallType", "Shop"), ("priceSales", "Price"),
        ("aladinItemId", "Aladin item"), ("someNewField", "Some new field"), ("embedURL", "Embed link"), ("shortURLText", "Short URL text"),
        ("snake_case_name", "Snake case name"), ("isbn13", "ISBN-13"),
    ])
    func labels(name: String, label: String) {
        #expect(WebStrings.english.label(name) == label)
    }

    // MARK: Words

    /// What no reader's page may contain: commands, variables, raw field names.
    static let engineersWords = ["seek ", "SEEK_", "export ", "--reset", "openlibraryWork", "categoryName", "mallType", "priceSales", "127.0.0.1"]

    @Test("a search no source answers says so in words: no command, variable or technical cause")
    func noneAnsweredInWords() async throws {
        let page = try await answer("/search?q=harbor&providers=openlibrary,aladin") { harness in
            harness.fixtures.route("/ol/search.json", fault: .closeConnection)
            harness.fixtures.route(ProviderSamples.aladinPath, .json(#"{"errorCode": 10, "errorMessage": "bad key"}"#, status: 401))
        }
        #expect(page.body.contains("data-all-failed"))
        #expect(page.body.contains("No source answered"))
        #expect(page.body.contains("Open Library could not be reached."), "\(page.body)")
        for word in Self.engineersWords + ["HTTP", "bad key", "network error"] {
            #expect(!page.body.contains(word), "the page shows \(word)")
        }
    }

    @Test("a detail page labels Aladin's attributes in words and prices in won")
    func detailLabels() async throws {
        let lookup = """
        {"version":"20131101","totalResults":1,"item":[{"title":"위대한 이야기","link":"http://www.aladin.co.kr/shop/wproduct.aspx?ItemId=7",
         "author":"제임스 (지은이)","pubDate":"2021-03-01","isbn13":"9791130605210","itemId":7,"publisher":"출판사",
         "categoryName":"국내도서>과학","mallType":"BOOK","priceSales":12600,"priceStandard":14000}]}
        """
        let english = try await answer("/items/aladin:9791130605210") { harness in
            harness.fixtures.route("/aladin/ttb/api/ItemLookUp.aspx", .json(lookup))
        }
        #expect(english.status == .ok)
        #expect(english.body.contains("<dt>Category</dt><dd>국내도서&gt;과학</dd>"), "\(english.body)")
        #expect(english.body.contains("<dt>Price</dt><dd>₩12,600</dd>"))
        #expect(english.body.contains("<dt>Shop</dt>"))
        for word in Self.engineersWords { #expect(!english.body.contains(word), "the page shows \(word)") }
        let korean = try await answer("/items/aladin:9791130605210", headers: [.acceptLanguage: "ko"]) { harness in
            harness.fixtures.route("/aladin/ttb/api/ItemLookUp.aspx", .json(lookup))
        }
        #expect(korean.body.contains("<dt>판매가</dt><dd>12,600원</dd>"), "\(korean.body)")
        #expect(korean.body.contains("<dt>분류</dt>"))
    }

    // MARK: Unknown paths

    @Test("an unknown path is an HTML page in the reader's language; under /api/ it stays JSON")
    func unknownPath() async throws {
        let page = try await answer("/no/such/page")
        #expect(page.status == .notFound)
        #expect(page.headers[.contentType] == "text/html; charset=utf-8")
        #expect(page.body.contains("Page not found"))
        #expect(page.body.contains(#"<input id="q" name="q""#))
        let korean = try await answer("/nothing-here", headers: [.acceptLanguage: "ko"])
        #expect(korean.body.contains("페이지를 찾을 수 없습니다"))
        let api = try await answer("/api/v1/nothing")
        #expect(api.status == .notFound)
        #expect(api.headers[.contentType]?.hasPrefix("application/json") == true)
    }

    // MARK: Demo

    @Test("in demo mode every page has the banner with the recorded queries as links; otherwise none")
    func demoBanner() async throws {
        let demo = [("openlibrary", "the lord of the rings"), ("aladin", "위대한 이야기"), ("giphy", "the lord of the rings")]
        for uri in ["/", "/search?q=harbor", "/favorites", "/history", "/trending", "/no/such/page"] {
            let page = try await answer(uri, demo: demo) { harness in
                harness.serveBooks()
                WebPageTests.serveTrending(harness)
            }
            #expect(page.body.contains("data-demo"), "\(uri)")
            #expect(page.body.contains("This is a demo."), "\(uri)")
            #expect(page.body.contains(#"<a href="/search?q=the%20lord%20of%20the%20rings" data-demo-query>the lord of the rings</a> <span class="muted">Open Library, GIPHY</span>"#), "\(uri)")
            #expect(page.body.contains(#"href="/search?q=%EC%9C%84%EB%8C%80%ED%95%9C%20%EC%9D%B4%EC%95%BC%EA%B8%B0""#), "\(uri)")
        }
        let plain = try await answer("/")
        #expect(!plain.body.contains("data-demo"))
    }
}
