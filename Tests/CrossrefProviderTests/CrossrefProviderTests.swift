import Foundation
@testable import CrossrefProvider
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("Crossref provider")
struct CrossrefProviderTests {
    @Test("a search asks for whole books only, by offset, with the polite pool's mailto")
    func searchRequest() async throws {
        try await withCrossref { provider, server in
            server.route(worksPath, .json(worksJSON((0..<10).map { workJSON(doi: "10.1000/b\($0)") }, total: 50)))
            let page = try await provider.search(SearchRequest(query: "ada lovelace", page: 3, limit: 10))
            let asked = try #require(server.requests.first { $0.path == worksPath })
            #expect(asked.queryValue("query") == "ada lovelace")
            #expect(asked.queryValue("rows") == "10")
            #expect(asked.queryValue("offset") == "20")
            #expect(asked.queryValue("filter") == "type:book,type:monograph,type:edited-book,type:reference-book")
            #expect(asked.queryValue("mailto") == fakeMailto)
            #expect(page.next == "30")
            #expect(provider.secrets == [fakeMailto])
        }
    }

    @Test("a whole book keeps its ISBNs (de-duplicated); a chapter that still arrives does not")
    func wholeBooksAndParts() async throws {
        try await withCrossref { provider, server in
            server.route(worksPath, .json(worksJSON([
                workJSON(extra: #""isbn-type": [{"type": "print", "value": "9780199830060"}, {"type": "electronic", "value": "9780199830060"}]"#),
                workJSON(doi: "10.1000/Chapter.2", type: "book-chapter", title: "A Chapter", extra: #""container-title": ["A Whole Book"], "page": "305-349""#),
            ], total: 2)))
            let items = try await provider.search(SearchRequest(query: "x")).items
            try #require(items.count == 2)
            #expect(items[0].identifiers.isbn13 == ["9780199830060"])
            #expect(items[0].id.value == "10.1000/book.1", "the DOI in lower case")
            #expect(items[0].creators == ["Ada Lovelace"])
            #expect(items[0].year == 1843)
            #expect(items[1].identifiers.isbn13.isEmpty)
            #expect(items[1].identifiers.other["doi"] == "10.1000/chapter.2")
        }
    }

    @Test("titles as arrays: empty, blank, markup and indentation; organisations and editors as creators")
    func titlesAndPeople() async throws {
        try await withCrossref { provider, server in
            server.route(worksPath, .json(worksJSON([
                #"{"DOI": "10.1000/a", "type": "book", "title": ["", "  <scp>T</scp>ree\n      base <i>rules</i> "], "subtitle": [], "author": [{"name": "Concrete Technology Associates"}], "issued": {"date-parts": [[null]]}, "published-print": {"date-parts": [[1999, 2]]}}"#,
                #"{"DOI": "10.1000/b", "type": "edited-book", "title": [], "container-title": ["Handbook"], "editor": [{"given": "Grace", "family": "Hopper"}]}"#,
                #"{"DOI": "not a doi", "title": ["dropped"]}"#,
            ], total: 3)))
            let items = try await provider.search(SearchRequest(query: "x")).items
            try #require(items.count == 2)
            #expect(items[0].title == "Tree base rules")
            #expect(items[0].subtitle == nil)
            #expect(items[0].creators == ["Concrete Technology Associates"])
            #expect(items[0].year == 1999)
            #expect(items[1].title == "(untitled part of) Handbook")
            #expect(items[1].creators == ["Grace Hopper"])
        }
    }

    @Test("DOIs: prefixes dropped, lower case, nothing that is not a DOI", arguments: [
        ("10.1371/journal.pone.0033693", "10.1371/journal.pone.0033693"),
        ("https://doi.org/10.1000/ABC", "10.1000/abc"),
        ("doi:10.1000/x y", nil),
        ("11.1000/x", nil),
        ("10.1000/", nil),
        ("10.1/x", nil),
    ] as [(String, String?)])
    func dois(raw: String, expected: String?) {
        #expect(CrossrefMapping.doi(raw) == expected)
    }

    @Test("a detail of a DOI with characters that would end the path encodes them; a bad id makes no call")
    func detailPath() async throws {
        try await withCrossref { provider, server in
            server.route(worksPath + "/*", .json(workAnswer(workJSON(doi: "10.1000/a?b#c"))))
            let detail = try await provider.detail(ItemID(provider: "crossref", value: "10.1000/a?b#c"))
            #expect(detail.item.id.value == "10.1000/a?b#c")
            let asked = try #require(server.requests.first)
            #expect(asked.path == "/works/10.1000/a%3Fb%23c" || asked.path == "/works/10.1000/a?b#c")
            let bad = try #require(await seekError { _ = try await provider.detail(ItemID(provider: "crossref", value: "../../etc")) })
            #expect(bad.kind == .invalidInput)
            #expect(server.totalRequestCount == 1)
        }
    }

    @Test("a 429 is rate limited: after Retry-After when given, else the announced interval")
    func rateLimited() async throws {
        try await withCrossref { provider, server in
            server.route(worksPath, FixtureResponse(status: 429, headers: [("Retry-After", "7")], body: []))
            let told = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(told.kind == .rateLimited(retryAfterSeconds: 7))
            server.route(worksPath, FixtureResponse(status: 429, headers: [("x-rate-limit-limit", "5"), ("x-rate-limit-interval", "2s")], body: Array("Too many".utf8)))
            let announced = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(announced.kind == .rateLimited(retryAfterSeconds: 2))
            #expect(announced.detail.contains("Crossref"))
        }
    }

    @Test("the limits each answer announces are read and kept to")
    func announcedPace() async throws {
        try await withCrossref { provider, server in
            server.route(worksPath, FixtureResponse(
                headers: [("Content-Type", "application/json"), ("x-rate-limit-limit", "2"), ("x-rate-limit-interval", "1s"), ("x-concurrency-limit", "1")],
                body: Array(worksJSON([workJSON()], total: 1).utf8)))
            _ = try await provider.search(SearchRequest(query: "x"))
            #expect(provider.pace.announced == CrossrefPace.Announced(limit: 2, interval: .seconds(1), concurrency: 1))
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<2 { _ = try await provider.search(SearchRequest(query: "x")) }
            // Three calls within one announced interval of two: the third waited for the first to age out.
            #expect(clock.now - start >= .milliseconds(900))
        }
        #expect(CrossrefPace.duration("1s") == .seconds(1))
        #expect(CrossrefPace.duration("500ms") == .milliseconds(500))
        #expect(CrossrefPace.duration("-1s") == nil)
        #expect(CrossrefPace.duration("soon") == nil)
    }

    @Test("malformed, truncated and wrongly shaped bodies are undecodable; a 500 is an error")
    func malformed() async throws {
        try await withCrossref { provider, server in
            for body in [#"{"status": "ok", "message": {"items": [{"DOI": "#, "<html>no</html>", #"{"status": "ok", "message": {"items": {}}}"#] {
                server.route(worksPath, .json(body))
                let error = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
                #expect(error.kind == .undecodable)
                #expect(error.provider == "crossref")
            }
            server.route(worksPath, .json(#"{"status": "failed", "message-type": "exception", "message": "boom"}"#, status: 500))
            let failed = try #require(await seekError { _ = try await provider.search(SearchRequest(query: "x")) })
            #expect(failed.kind == .httpStatus(500))
            #expect(failed.detail.contains("boom"))
        }
    }

    @Test("the contact address is optional: without it the provider is configured, and says the pool is public")
    func optionalMailto() async throws {
        try await withCrossref(mailto: nil) { provider, server in
            #expect(provider.isConfigured)
            #expect(provider.missingRequirements.isEmpty)
            #expect(provider.requirements.map(\.variable) == ["SEEK_CROSSREF_MAILTO"])
            #expect(provider.requirements.first?.isSet == false)
            server.route(worksPath, .json(worksJSON([], total: 0)))
            _ = try await provider.search(SearchRequest(query: "x"))
            #expect(server.requests.first?.queryValue("mailto") == nil)
        }
    }

    @Test("the demo answers a recorded search, a recorded work and a built one, in Crossref's shapes")
    func demo() throws {
        let demo = try #require(CrossrefProvider.factory.demo)
        let search = try #require(demo.routes.first { $0.path == "/works" })
        let answer = search.answer(DemoRequest(path: "/works", query: ["query": "Ecology", "rows": "20"]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        #expect(((object["message"] as? [String: Any])?["items"] as? [Any])?.count == 2)
        let work = try #require(demo.routes.first { $0.path == "/works/*" })
        #expect(work.answer(DemoRequest(path: "/works/10.1371/journal.pone.0033693")).status == 200)
        #expect(work.answer(DemoRequest(path: "/works/10.1093/obo/9780199830060-0023")).status == 200)
        let missing = work.answer(DemoRequest(path: "/works/10.1371/notarealdoi"))
        #expect(missing.status == 404)
        #expect(String(decoding: missing.body, as: UTF8.self) == "Resource not found.")
    }
}

extension CrossrefProviderTests {
    /// The provider the composition root would build from `environment`.
    static func built(_ environment: [String: String]) throws -> CrossrefProvider? {
        let made = try CrossrefProvider.factory.make(ProviderEnvironment(
            settings: Settings(environment: environment), transport: NoTransport()))
        return made as? CrossrefProvider
    }

    @Test("a loopback stand-in is held to announced limits only when a rate limit is set; a real host always is")
    func loopbackExemption() throws {
        let standIn = try #require(try Self.built(["SEEK_CROSSREF_URL": "http://127.0.0.1:9/crossref"]))
        #expect(!standIn.pace.followsAnnouncedRate)
        let limited = try #require(try Self.built(["SEEK_CROSSREF_URL": "http://127.0.0.1:9", "SEEK_CROSSREF_RATE_LIMIT": "5/s"]))
        #expect(limited.pace.followsAnnouncedRate)
        let real = try #require(try Self.built([:]))
        #expect(real.pace.followsAnnouncedRate)
        let off = try #require(try Self.built(["SEEK_CROSSREF_RATE_LIMIT": "off"]))
        #expect(!off.pace.followsAnnouncedRate)
    }

    @Test("SEEK_CROSSREF_CONCURRENCY is a number or off; anything else is a configuration error naming it")
    func concurrencySetting() throws {
        #expect(try Self.built(["SEEK_CROSSREF_CONCURRENCY": "2"])?.pace.concurrencyOverride == .some(2))
        #expect(try Self.built(["SEEK_CROSSREF_CONCURRENCY": "off"])?.pace.concurrencyOverride == .some(nil))
        #expect(try Self.built([:])?.pace.concurrencyOverride == nil)
        do {
            _ = try Self.built(["SEEK_CROSSREF_CONCURRENCY": "many"])
            Issue.record("a concurrency of 'many' was accepted")
        } catch let error as SeekError {
            #expect(error.kind == .configuration)
            #expect(error.detail.contains("SEEK_CROSSREF_CONCURRENCY"))
        }
    }
}

/// A transport for providers that are built and never called.
struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw SeekError(.network, detail: "no transport in this test")
    }
}
