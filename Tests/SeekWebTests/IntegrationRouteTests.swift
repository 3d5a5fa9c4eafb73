import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SeekCore
import SeekKit
import SeekLoopback
@testable import SeekWeb
import SeekRuntime
import SeekTesting
import Testing

/// Audiobookshelf's custom metadata provider (`/integrations/audiobookshelf/search`), the OpenSearch
/// description, its suggestions and icon (DESIGN, "Integrations").
@Suite("seek serve: integrations")
struct IntegrationRouteTests {
    static let token = "abs-token-0123456789"
    static let path = "/integrations/audiobookshelf/search"

    /// Runs `body` against the router of a server on `harness`'s session with `access`.
    static func withRouter<T: Sendable>(
        _ harness: ServerHarness, access: ServerAccess = .personal, host: String = "127.0.0.1",
        _ body: @Sendable @escaping (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        var server = SeekServer(session: harness.session, host: host, port: 0, logger: harness.server.logger)
        server.access = access
        return try await Application(router: server.router(), logger: server.logger).test(.router) { client in try await body(client) }
    }

    static func json(_ response: TestResponse) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
    }

    /// The `{"error": "…"}` message of a contract error document, or nil when the body is not one.
    static func contractError(_ response: TestResponse) -> String? {
        guard let object = json(response) as? [String: Any], object.count == 1 else { return nil }
        return object["error"] as? String
    }

    static func publicAccess(_ harness: ServerHarness, _ extra: [String: String] = [:]) throws -> ServerAccess {
        let environment = harness.environment.merging(["SEEK_SECRET": PublicServer.secret]) { $1 }.merging(extra) { $1 }
        return try ServerAccess.resolve(host: "127.0.0.1", publicFlag: true, personalFlag: false, settings: try Settings.load(environment: environment))
    }

    // MARK: Audiobookshelf

    @Test("with the token as the whole Authorization value: the merged books as matches, no null field")
    func matches() async throws {
        let harness = try await ServerHarness.start(environment: [IntegrationRoutes.tokenVariable: Self.token])
        harness.serveBooks()
        let response = try await Self.withRouter(harness) { client in
            try await client.execute(uri: Self.path + "?query=Harbor%20Lights&author=Author%201", method: .get,
                                     headers: [.authorization: Self.token]) { $0 }
        }
        let asked = harness.fixtures.requests.map(\.uri).filter { $0.hasPrefix("/ol/search.json") }
        try await harness.stop()
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        let object = try #require(Self.json(response) as? [String: Any])
        let matches = try #require(object["matches"] as? [[String: Any]])
        #expect(matches.first?["title"] as? String == "Harbor Lights")
        #expect(matches.first?["author"] as? String == "Author 1")
        #expect(matches.first?["publishedYear"] as? String == "2001")
        #expect(matches.first?["isbn"] as? String == "9791130605210")
        #expect(!matches.contains { $0.values.contains { $0 is NSNull } })
        #expect(!matches.contains { $0["title"] == nil })
        // The title and the author, as one query, reached the source; no GIF among the matches.
        #expect(asked.contains { $0.contains("Harbor") && $0.contains("Author") })
        #expect(!matches.contains { ($0["title"] as? String)?.hasPrefix("GIF") == true })
    }

    @Test("a missing, wrong or Bearer-prefixed token is 401 with the contract's error document")
    func refusedTokens() async throws {
        let harness = try await ServerHarness.start(environment: [IntegrationRoutes.tokenVariable: Self.token])
        harness.serveBooks()
        let responses = try await Self.withRouter(harness) { client in
            [
                try await client.execute(uri: Self.path + "?query=harbor", method: .get) { $0 },
                try await client.execute(uri: Self.path + "?query=harbor", method: .get, headers: [.authorization: Self.token + "x"]) { $0 },
                try await client.execute(uri: Self.path + "?query=harbor", method: .get, headers: [.authorization: "Bearer " + Self.token]) { $0 },
                try await client.execute(uri: Self.path + "?query=harbor", method: .get, headers: [.authorization: ""]) { $0 },
            ]
        }
        let searched = harness.fixtures.requests.contains { $0.uri.hasPrefix("/ol/search.json") }
        try await harness.stop()
        for response in responses {
            #expect(response.status == .unauthorized)
            #expect(Self.contractError(response)?.contains(IntegrationRoutes.tokenVariable) == true)
            #expect(!response.text.contains(Self.token))
        }
        #expect(!searched, "a refused request must not reach a source")
    }

    @Test("no query is 400 with the contract's error document; an empty one matches nothing")
    func missingQuery() async throws {
        let harness = try await ServerHarness.start()
        let (missing, empty) = try await Self.withRouter(harness) { client in
            (
                try await client.execute(uri: Self.path + "?author=Tolkien", method: .get) { $0 },
                try await client.execute(uri: Self.path + "?query=%20%20&author=Tolkien", method: .get) { $0 }
            )
        }
        let searched = harness.fixtures.requests.contains { $0.uri.hasPrefix("/ol/search.json") }
        try await harness.stop()
        #expect(missing.status == .badRequest)
        #expect(Self.contractError(missing)?.contains("query") == true)
        #expect(empty.status == .ok)
        #expect(empty.text.trimmed() == #"{"matches":[]}"#)
        #expect(!searched)
    }

    @Test("every source failing or finding nothing is 200 with an empty matches list, never an error")
    func failingSources() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/search.json", .json(#"{"error": "down"}"#, status: 500))
        harness.fixtures.route(ProviderSamples.aladinPath, .json(#"{"errorCode": 1, "errorMess"#, status: 200))
        harness.fixtures.route(ProviderSamples.giphyPath, FixtureResponse(status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "30")], body: Array(#"{"meta": {"status": 429}}"#.utf8)))
        let failed = try await Self.withRouter(harness) { client in
            try await client.execute(uri: Self.path + "?query=harbor", method: .get) { $0 }
        }
        harness.fixtures.route("/ol/search.json", .json(ProviderSamples.openLibrary([])))
        let empty = try await Self.withRouter(harness) { client in
            try await client.execute(uri: Self.path + "?query=nothing%20here&isbn=9780618640157", method: .get) { $0 }
        }
        try await harness.stop()
        for response in [failed, empty] {
            #expect(response.status == .ok)
            let object = try #require(Self.json(response) as? [String: Any])
            #expect((object["matches"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("an ISBN is asked first; without an answer for it, the title and author")
    func isbnFirst() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let response = try await Self.withRouter(harness) { client in
            try await client.execute(uri: Self.path + "?query=Harbor%20Lights&isbn=979-11-306-0521-0", method: .get) { $0 }
        }
        let asked = harness.fixtures.requests.map(\.uri).filter { $0.hasPrefix("/ol/search.json") }
        try await harness.stop()
        #expect(response.status == .ok)
        #expect(asked.first?.contains("9791130605210") == true)
        let matches = (Self.json(response) as? [String: Any])?["matches"] as? [[String: Any]]
        #expect(matches?.isEmpty == false)
    }

    @Test("public mode: 404 while no token is set; with one, the token is needed")
    func publicMode() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let closed = try await Self.withRouter(harness, access: try Self.publicAccess(harness)) { client in
            try await client.execute(uri: Self.path + "?query=harbor", method: .get, headers: [.authorization: "anything"]) { $0.status }
        }
        try await harness.stop()
        #expect(closed == .notFound)

        let tokened = try await ServerHarness.start(environment: [IntegrationRoutes.tokenVariable: Self.token])
        tokened.serveBooks()
        let statuses = try await Self.withRouter(tokened, access: try Self.publicAccess(tokened)) { client in
            [
                try await client.execute(uri: Self.path + "?query=harbor", method: .get) { $0.status },
                try await client.execute(uri: Self.path + "?query=harbor", method: .get, headers: [.authorization: Self.token]) { $0.status },
            ]
        }
        try await tokened.stop()
        #expect(statuses == [.unauthorized, .ok])
    }

    @Test("a personal server without a token is open")
    func personalOpen() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let response = try await Self.withRouter(harness) { client in
            try await client.execute(uri: Self.path + "?query=harbor", method: .get) { $0 }
        }
        try await harness.stop()
        #expect(response.status == .ok)
        #expect((Self.json(response) as? [String: Any])?["matches"] is [Any])
    }

    // MARK: Browsers

    @Test("/opensearch.xml: OpenSearch 1.1 with absolute results, suggestions and self URLs (the router tests' authority is localhost) and the icon")
    func openSearch() async throws {
        let harness = try await ServerHarness.start()
        let (response, icon) = try await Self.withRouter(harness) { client in
            (
                try await client.execute(uri: "/opensearch.xml", method: .get) { $0 },
                try await client.execute(uri: "/icon.png", method: .get) { $0 }
            )
        }
        try await harness.stop()
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/opensearchdescription+xml; charset=utf-8")
        let xml = response.text
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(xml.contains("<OpenSearchDescription xmlns=\"http://a9.com/-/spec/opensearch/1.1/\""))
        #expect(xml.contains("<ShortName>Seek</ShortName>"))
        #expect(xml.contains(#"<Url type="text/html" method="get" template="http://localhost/search?q={searchTerms}"/>"#))
        #expect(xml.contains(#"<Url type="application/x-suggestions+json" method="get" template="http://localhost/suggest.json?q={searchTerms}"/>"#))
        #expect(xml.contains(#"template="http://localhost/opensearch.xml""#))
        #expect(xml.contains(#"<Image width="32" height="32" type="image/png">http://localhost/icon.png</Image>"#))
        #expect(icon.status == .ok)
        #expect(icon.headers[.contentType] == "image/png")
        #expect(Array(icon.body.readableBytesView.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(icon.body.readableBytes == OpenSearchRoutes.iconPNG.count && icon.body.readableBytes > 100)
    }

    @Test("/suggest.json answers [prefix, [suggestions]]; an empty prefix or failing sources answer no suggestions")
    func suggestions() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/giphy/v1/gifs/search/tags", .json(#"{"data": [{"name": "cats"}, {"name": "Cats"}, {"name": "cat dance"}], "meta": {"status": 200, "msg": "OK"}}"#))
        let (found, empty) = try await Self.withRouter(harness) { client in
            (
                try await client.execute(uri: "/suggest.json?q=cat", method: .get) { $0 },
                try await client.execute(uri: "/suggest.json", method: .get) { $0 }
            )
        }
        harness.fixtures.route("/giphy/v1/gifs/search/tags", .json("{\"data\": [", status: 200))
        harness.fixtures.route("/ol/search.json", .json("oops", status: 503))
        let failed = try await Self.withRouter(harness) { client in
            try await client.execute(uri: "/suggest.json?q=zzz%22quoted&no_cache=1", method: .get) { $0 }
        }
        try await harness.stop()
        #expect(found.status == .ok)
        #expect(found.headers[.contentType] == "application/x-suggestions+json; charset=utf-8")
        let pair = try #require(Self.json(found) as? [Any])
        #expect(pair.count == 2)
        #expect(pair.first as? String == "cat")
        let list = try #require(pair.last as? [String])
        #expect(list.contains("cats") && list.contains("cat dance"))
        #expect(list.filter { $0.lowercased() == "cats" }.count == 1, "suggestions differing only in case are one")
        #expect(empty.status == .ok)
        #expect(empty.text.trimmed() == #"["",[]]"#)
        #expect(failed.status == .ok)
        let failedPair = try #require(Self.json(failed) as? [Any])
        #expect(failedPair.first as? String == "zzz\"quoted")
        #expect((failedPair.last as? [String])?.isEmpty == true)
    }
}
