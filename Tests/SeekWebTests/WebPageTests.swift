import Foundation
import Hummingbird
import HummingbirdTesting
import SeekCore
import SeekLoopback
import SeekWeb
import SeekTesting
import Testing

/// The web UI's pages, answered through the router: each renders, escapes what providers send,
/// carries the strict Content-Security-Policy and keeps DESIGN's markup hooks.
@Suite("seek serve: the web pages")
struct WebPageTests {
    static let csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    static let hostile = #"<script>alert("x")</script> Tom's "Book""#

    /// GETs `uri` through the router of a harness whose providers serve `prepare`'s answers.
    func page(_ uri: String, prepare: @Sendable (ServerHarness) -> Void = { _ in }) async throws -> (HTTPResponse.Status, HTTPFields, String) {
        let harness = try await ServerHarness.start()
        prepare(harness)
        let answer = try await harness.withRouter { client in
            try await client.execute(uri: uri, method: .get) { ($0.status, $0.headers, $0.text) }
        }
        try await harness.stop()
        return answer
    }

    static func serveTrending(_ harness: ServerHarness) {
        harness.fixtures.route("/giphy/v1/gifs/trending", .json(ProviderSamples.giphy(["trend1"])))
        harness.fixtures.route("/aladin/ttb/api/ItemList.aspx", .json(ProviderSamples.aladin([
            ProviderSamples.aladinItem(isbn13: "9791130605210", title: "베스트셀러", itemId: 9),
        ])))
    }

    static func serveWork(_ harness: ServerHarness) {
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
    }

    @Test("every page answers HTML with the search box, the landmarks and the strict CSP", arguments: [
        "/", "/search?q=harbor", "/items/openlibrary:OL45804W", "/favorites", "/history", "/trending",
    ])
    func everyPageRenders(uri: String) async throws {
        let (status, headers, html) = try await page(uri) { harness in
            harness.serveBooks()
            Self.serveTrending(harness)
            Self.serveWork(harness)
        }
        #expect(status == .ok)
        #expect(headers[.contentType] == "text/html; charset=utf-8")
        #expect(headers[.contentSecurityPolicy] == Self.csp)
        #expect(headers[.xContentTypeOptions] == "nosniff")
        #expect(html.contains(#"<input id="q" name="q""#))
        for landmark in ["<header", "<nav", "<main", "<footer"] { #expect(html.contains(landmark), "\(landmark)") }
        #expect(!html.contains("style=\""), "no inline style (the CSP forbids it)")
        #expect(!html.contains("<script>"), "no inline script")
    }

    @Test("the results page shows each result with its id, detail link, image route and favourite state")
    func resultsHaveTheHooks() async throws {
        let (_, _, html) = try await page("/search?q=harbor") { $0.serveBooks() }
        #expect(html.contains(#"data-item-id="giphy:gif1""#))
        #expect(html.contains(#"href="/items/giphy:gif1""#))
        #expect(html.contains(#"src="/api/v1/items/giphy:gif1/image?size=medium""#))
        #expect(html.contains(#"data-favorite-toggle data-id="giphy:gif1" aria-pressed="false""#))
        #expect(html.contains(#"data-provider="openlibrary" data-status="ok""#))
        #expect(html.contains(#"data-provider="aladin" data-status="ok""#))
        #expect(!html.contains("data-empty"))
    }

    @Test("a merged result carries its best-ranked source's id and links the other sources")
    func mergedResultLinksItsSources() async throws {
        let (_, _, html) = try await page("/search?q=harbor&providers=openlibrary,aladin") { $0.serveBooks() }
        #expect(html.contains(#"data-item-id="openlibrary:OL1W""#))
        #expect(html.contains("/items/openlibrary:OL1W?also=aladin%3A"))
    }

    @Test("a hostile title is shown as text: tags and quotes are escaped")
    func hostileTitleIsEscaped() async throws {
        let (_, _, html) = try await page("/search?q=harbor&providers=openlibrary") { harness in
            harness.fixtures.route("/ol/search.json", .json(ProviderSamples.openLibrary([
                ProviderSamples.olDoc(1, title: Self.hostile.replacingOccurrences(of: "\"", with: "\\\""), year: 2001),
            ])))
        }
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Tom&#39;s &quot;Book&quot;"))
    }

    @Test("a hostile query is echoed escaped, in the box and the heading")
    func hostileQueryIsEscaped() async throws {
        let (_, _, html) = try await page("/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22") { $0.serveBooks() }
        #expect(!html.contains("<script>alert(1)"))
        #expect(html.contains(#"value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;""#))
    }

    @Test("a search nobody matches shows the data-empty message")
    func emptySearch() async throws {
        let (_, _, html) = try await page("/search?q=nothing&providers=openlibrary") { harness in
            harness.fixtures.route("/ol/search.json", .json(OpenLibrarySamples.emptySearch))
        }
        #expect(html.contains("data-empty"))
        #expect(html.contains(#"data-provider="openlibrary" data-status="empty""#))
    }

    @Test("a search every provider fails says so and what to try, not that nothing matched")
    func allProvidersFailed() async throws {
        let (_, _, html) = try await page("/search?q=x&providers=openlibrary") { harness in
            harness.fixtures.route("/ol/search.json", fault: .status(500))
        }
        #expect(html.contains("data-all-failed"))
        #expect(html.contains("No source answered"))
        #expect(!html.contains("data-empty"))
    }

    @Test("a page with more results links the next page with a cursor token (no JavaScript needed)")
    func nextPageLink() async throws {
        let (_, _, html) = try await page("/search?q=works&providers=openlibrary&limit=5") { harness in
            ProviderSamples.serveManyWorks(harness.fixtures, count: 30)
        }
        #expect(html.contains(#"<a id="next-page" rel="next" href="/search?q=works&amp;providers=openlibrary&amp;cursor="#))
    }

    @Test("the streamed page (stream=1) waits for every provider instead of searching itself")
    func streamedShell() async throws {
        let (_, _, html) = try await page("/search?q=harbor&stream=1") { $0.serveBooks() }
        #expect(html.contains(#"data-stream="1""#))
        #expect(html.contains(#"data-provider="openlibrary" data-status="pending""#))
        #expect(!html.contains("data-item-id="))
    }

    @Test("a bad item id is an HTML error page, not JSON")
    func badIDIsAPage() async throws {
        let (status, headers, html) = try await page("/items/nocolon")
        #expect(status == .badRequest)
        #expect(headers[.contentType] == "text/html; charset=utf-8")
        #expect(headers[.contentSecurityPolicy] == Self.csp)
        #expect(html.contains("That is not the address of a book or GIF on this site."), "in words, not the id's syntax")
        #expect(!html.contains("PROVIDER:ID"))
    }

    @Test("the detail page shows the record, its sources and where each field came from")
    func detailPage() async throws {
        let (_, _, html) = try await page("/items/openlibrary:OL45804W") { Self.serveWork($0) }
        #expect(html.contains("<h1>Fantastic Mr Fox</h1>"))
        #expect(html.contains("The main character of Fantastic Mr. Fox is a fox."))
        #expect(html.contains(#"<article class="detail" data-item-id="openlibrary:OL45804W">"#))
        #expect(html.contains(#"class="provenance""#))
        #expect(html.contains(#"src="/api/v1/items/openlibrary:OL45804W/image?size=large""#))
    }

    @Test("the detail page's creators and year are two spans: the style sheet puts the one separator between them")
    func detailMetaHasOneSeparator() async throws {
        let (_, _, html) = try await page("/items/openlibrary:OL45804W") { Self.serveWork($0) }
        #expect(html.contains(#"<p class="meta"><span class="creators">Roald Dahl</span><span class="year">"#), "\(html)")
    }

    @Test("the script and style sheet are served with their types")
    func staticFiles() async throws {
        let (jsStatus, jsHeaders, script) = try await page("/static/app.js")
        #expect(jsStatus == .ok)
        #expect(jsHeaders[.contentType] == "text/javascript; charset=utf-8")
        #expect(script.contains("textContent"))
        #expect(!script.contains("innerHTML"), "the script never inserts HTML")
        let (cssStatus, cssHeaders, _) = try await page("/static/app.css")
        #expect(cssStatus == .ok)
        #expect(cssHeaders[.contentType] == "text/css; charset=utf-8")
    }

    @Test("the script, the style sheet and the OpenAPI document are served byte for byte as their files in Sources")
    func servedFilesAreTheRepositoryFiles() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let files = [
            ("/static/app.js", "SeekWeb/Web/app.js"), ("/static/app.css", "SeekWeb/Web/app.css"),
            ("/openapi.yaml", "SeekRuntime/Documents/openapi.yaml"),
        ]
        for (uri, file) in files {
            let (_, _, served) = try await page(uri)
            let expected = try Data(contentsOf: root.appendingPathComponent("Sources").appendingPathComponent(file))
            #expect(Array(served.utf8) == Array(expected), "\(uri)")
        }
    }

    @Test("no key appears in a page, even when a provider's error echoes the request URL")
    func keysNeverLeakIntoPages() async throws {
        let key = try #require(ProviderSamples.keys["SEEK_GIPHY_API_KEY"])
        let failing: @Sendable (ServerHarness) -> Void = { harness in
            harness.fixtures.route(ProviderSamples.giphyPath, .json(#"{"meta": {"status": 500, "msg": "failed for api_key=\#(key)"}}"#, status: 500))
            harness.fixtures.route("/giphy/v1/gifs/gif9", .json(#"{"meta": {"status": 500, "msg": "failed for api_key=\#(key)"}}"#, status: 500))
        }
        for uri in ["/search?q=cat&providers=giphy", "/items/giphy:gif9", "/"] {
            let (_, _, html) = try await page(uri, prepare: failing)
            #expect(!html.contains(key), "\(uri)")
        }
    }

    @Test("the JSON API's answers carry the same security headers")
    func apiCarriesHeaders() async throws {
        let (_, headers, _) = try await page("/healthz")
        #expect(headers[.contentSecurityPolicy] == Self.csp)
    }
}
