import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SeekCore
import SeekKit
@testable import SeekWeb
import SeekRuntime
import Testing

/// `SEEK_BASE_PATH` / `--base-path` (DESIGN, "Integrations"): every route under the prefix, nothing
/// outside it, and the prefix put back on redirects and page links.
@Suite("seek serve: base path")
struct BasePathTests {
    @Test("a base path is /segments of safe characters; / and empty are the root; anything else is refused naming it")
    func parsing() throws {
        #expect(try BasePath(parsing: "/books").path == "/books")
        #expect(try BasePath(parsing: " /books/ ").path == "/books")
        #expect(try BasePath(parsing: "/apps/seek-1.0_~").path == "/apps/seek-1.0_~")
        #expect(try BasePath(parsing: "/").isRoot)
        #expect(try BasePath(parsing: "").isRoot)
        for bad in ["books", "/a/../b", "/a/./b", "//books", "/a b", "/a?x=1", "/a#b", "/%2e%2e", "/a//b", "/ü"] {
            #expect(throws: SeekError.self, "\(bad)") { try BasePath(parsing: bad) }
            do {
                _ = try BasePath(parsing: bad)
            } catch let error as SeekError {
                #expect(error.kind == .configuration)
                #expect(error.description.contains("base path"))
            }
        }
        let settings = try Settings.load(environment: [BasePath.variable: "/from-env"])
        #expect(try BasePath.resolve(flag: nil, settings: settings).path == "/from-env")
        #expect(try BasePath.resolve(flag: "/flag", settings: settings).path == "/flag")
        #expect(try BasePath.resolve(flag: nil, settings: try Settings.load(environment: [:])).isRoot)
    }

    @Test("links: the site's own paths in href, src, action and formaction get the prefix; nothing else does")
    func links() throws {
        let base = try BasePath(parsing: "/books")
        let html = #"""
            <a href="/">Home</a> <link rel="stylesheet" href="/static/app.css"> <script src="/static/app.js"></script>
            <form action="/search" method="get"><button formaction="/favorites/toggle">x</button></form>
            <a href="https://openlibrary.org/works/OL1W">out</a> <a href="//cdn.example/x">cdn</a> <a href="#main">skip</a>
            <a href="?lang=ko">ko</a> <img src="data:image/png;base64,AA"> <p title="/not/a/link">a data-href="/x"</p>
            <a data-href="/y">d</a><a
            href="/items/openlibrary:OL1W">wrapped</a>
            """#
        let rewritten = base.rewritingLinks(html)
        for expected in [#"href="/books/""#, #"href="/books/static/app.css""#, #"src="/books/static/app.js""#,
                         #"action="/books/search""#, #"formaction="/books/favorites/toggle""#, #"href="/books/items/openlibrary:OL1W""#] {
            #expect(rewritten.contains(expected), "\(expected)")
        }
        for unchanged in [#"href="https://openlibrary.org/works/OL1W""#, #"href="//cdn.example/x""#, ##"href="#main""##, #"href="?lang=ko""#,
                          #"src="data:image/png;base64,AA""#, #"title="/not/a/link""#, #"data-href="/y""#, #"a data-href="/x""#] {
            #expect(rewritten.contains(unchanged), "\(unchanged)")
        }
        #expect(BasePath.root.rewritingLinks(html) == html)
        #expect(base.location("/") == "/books/")
        #expect(base.location("/books/items/a:1") == "/books/items/a:1")
        #expect(base.location("https://example.org/") == "https://example.org/")
        #expect(base.location("//evil.example/") == "//evil.example/")
    }

    @Test("the router under /books: routes answer there, nowhere else; /books redirects; redirects and pages keep the prefix")
    func routes() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        var server = harness.server
        server.basePath = try BasePath(parsing: "/books")
        let router = BasePathRouter(basePath: server.basePath, router: server.router())
        let results = try await Application(router: router, logger: server.logger).test(.router) { client in
            (
                inside: try await client.execute(uri: "/books/healthz", method: .get) { $0.status },
                outside: try await client.execute(uri: "/healthz", method: .get) { ($0.status, $0.text) },
                prefixOnly: try await client.execute(uri: "/books?q=x", method: .get) { ($0.status, $0.headers[.location]) },
                lookalike: try await client.execute(uri: "/bookshelf/healthz", method: .get) { $0.status },
                home: try await client.execute(uri: "/books/", method: .get) { $0.text },
                redirect: try await client.execute(uri: "/books/search?q=", method: .get) { ($0.status, $0.headers[.location]) },
                api: try await client.execute(uri: "/books/api/v1/search?q=harbor", method: .get) { ($0.status, $0.json) },
                openAPI: try await client.execute(uri: "/books/openapi.yaml", method: .get) { $0.text },
                openSearch: try await client.execute(uri: "/books/opensearch.xml", method: .get) { $0.text }
            )
        }
        try await harness.stop()
        #expect(results.inside == .ok)
        #expect(results.outside.0 == .notFound)
        #expect(results.outside.1.contains("served under /books/"))
        #expect(results.prefixOnly.0 == .permanentRedirect)
        #expect(results.prefixOnly.1 == "/books/?q=x")
        #expect(results.lookalike == .notFound)
        #expect(results.home.contains(#"href="/books/static/app.css""#))
        #expect(results.home.contains(#"href="/books/opensearch.xml""#))
        #expect(!results.home.contains(#"href="/static/"#))
        #expect(results.redirect.0 == .seeOther)
        #expect(results.redirect.1 == "/books/")
        #expect(results.api.0 == .ok)
        #expect((results.api.1?["items"] as? [Any])?.isEmpty == false)
        #expect(results.openAPI.contains("servers:\n  - url: /books/\n"))
        #expect(results.openSearch.contains(#"template="http://localhost/books/search?q={searchTerms}""#))
    }
}
