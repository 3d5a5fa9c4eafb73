import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SeekKit
import SeekCore
import SeekLoopback
import SeekWeb
import SeekRuntime
import SeekStore
import SeekTesting
import Testing

/// A public `seek serve` over the harness's session.
struct PublicServer {
    static let secret = "a-test-secret-that-is-long-enough-for-hmac"
    let harness: ServerHarness
    let server: SeekServer

    static func start(_ extra: [String: String] = [:]) async throws -> PublicServer {
        let harness = try await ServerHarness.start(environment: extra)
        harness.serveBooks()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        var server = harness.server
        let environment = harness.environment.merging(["SEEK_SECRET": secret]) { $1 }.merging(extra) { $1 }
        server.access = try ServerAccess.resolve(host: "127.0.0.1", publicFlag: true, personalFlag: false, settings: try Settings.load(environment: environment))
        return PublicServer(harness: harness, server: server)
    }

    func withRouter<T: Sendable>(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> T) async throws -> T {
        try await Application(router: server.router(), logger: server.logger).test(.router) { client in try await body(client) }
    }

    func withLiveServer<T: Sendable>(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> T) async throws -> T {
        try await Application(router: server.router(), logger: server.logger).test(.live) { client in try await body(client) }
    }

    func stop() async throws { try await harness.stop() }
}

/// A browser's cookie jar, as far as `seek_visitor` goes.
struct CookieJar: Sendable {
    var cookie: String?

    var headers: HTTPFields {
        var fields = HTTPFields()
        if let cookie { fields[.cookie] = cookie }
        return fields
    }

    /// Keeps the cookie an answer sets.
    mutating func take(_ response: TestResponse) {
        if let set = response.headers[.setCookie], let pair = set.split(separator: ";").first { cookie = String(pair) }
    }
}

extension TestResponse {
    var ids: [String] {
        ((json?["entries"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
}

@Suite("seek serve --public: who may start it")
struct PublicModeStartTests {
    static func settings(_ values: [String: String]) throws -> Settings {
        try Settings.load(environment: ["HOME": "/nonexistent"].merging(values) { $1 })
    }

    @Test("a personal server bound to another address than loopback is refused, naming --public and --personal")
    func personalOnAnyAddress() throws {
        #expect {
            _ = try ServerAccess.resolve(host: "0.0.0.0", publicFlag: false, personalFlag: false, settings: try Self.settings([:]))
        } throws: { error in
            let text = "\(error)"
            return text.contains("--public") && text.contains("--personal")
        }
        let access = try ServerAccess.resolve(host: "0.0.0.0", publicFlag: false, personalFlag: true, settings: try Self.settings([:]))
        #expect(!access.isPublic)
        #expect(try !ServerAccess.resolve(host: "127.0.0.1", publicFlag: false, personalFlag: false, settings: try Self.settings([:])).isPublic)
    }

    @Test("--public refuses to start without SEEK_SECRET, or with one shorter than 32 characters")
    func needsSecret() throws {
        for secret in [nil, "", "too-short"] as [String?] {
            let values = secret.map { ["SEEK_SECRET": $0] } ?? [:]
            #expect {
                _ = try ServerAccess.resolve(host: "0.0.0.0", publicFlag: true, personalFlag: false, settings: try Self.settings(values))
            } throws: { error in "\(error)".contains("SEEK_SECRET") }
        }
    }

    @Test("SEEK_PUBLIC=1 is --public; a bad SEEK_CLIENT_RATE_LIMIT or SEEK_TRUSTED_PROXIES is a configuration error")
    func environment() throws {
        let secret = ["SEEK_SECRET": PublicServer.secret]
        #expect(try ServerAccess.resolve(host: "0.0.0.0", publicFlag: false, personalFlag: false,
                                         settings: try Self.settings(secret.merging(["SEEK_PUBLIC": "1"]) { $1 })).isPublic)
        for (name, value) in [("SEEK_CLIENT_RATE_LIMIT", "lots"), ("SEEK_CLIENT_RATE_LIMIT", "1e300/s"), ("SEEK_TRUSTED_PROXIES", "nginx"), ("SEEK_PUBLIC", "maybe")] {
            #expect(throws: SeekError.self, "\(name)=\(value)") {
                _ = try ServerAccess.resolve(host: "127.0.0.1", publicFlag: true, personalFlag: false,
                                             settings: try Self.settings(secret.merging([name: value]) { $1 }))
            }
        }
    }
}

@Suite("seek serve --public: each visitor's own lists")
struct PublicVisitorTests {
    @Test("two visitors never see or change each other's favourites or history")
    func twoVisitors() async throws {
        let instance = try await PublicServer.start()
        let result = try await instance.withRouter { client in
            var alice = CookieJar()
            var bob = CookieJar()
            alice.take(try await client.execute(uri: "/api/v1/favorites", method: .get, headers: alice.headers))
            bob.take(try await client.execute(uri: "/api/v1/favorites", method: .get, headers: bob.headers))
            _ = try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .put, headers: alice.headers)
            _ = try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get, headers: alice.headers)
            let bobDelete = try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .delete, headers: bob.headers)
            _ = try await client.execute(uri: "/api/v1/history", method: .delete, headers: bob.headers)
            let aliceFavorites = try await client.execute(uri: "/api/v1/favorites", method: .get, headers: alice.headers)
            let aliceHistory = try await client.execute(uri: "/api/v1/history", method: .get, headers: alice.headers)
            let bobFavorites = try await client.execute(uri: "/api/v1/favorites", method: .get, headers: bob.headers)
            let bobHistory = try await client.execute(uri: "/api/v1/history", method: .get, headers: bob.headers)
            return (alice.cookie, bob.cookie, bobDelete, aliceFavorites, aliceHistory, bobFavorites, bobHistory)
        }
        let owner = try await instance.harness.session.userState.favorites.all()
        let ownerHistory = try await instance.harness.session.userState.history.entries()
        try await instance.stop()
        #expect(result.0 != nil && result.1 != nil && result.0 != result.1)
        #expect(result.2.ids.isEmpty)
        #expect(result.3.ids == ["openlibrary:OL45804W"])
        #expect(((result.4.json?["entries"] as? [[String: Any]]) ?? []).compactMap { $0["query"] as? String } == ["harbor"])
        #expect(result.5.ids.isEmpty)
        #expect((result.6.json?["entries"] as? [Any])?.isEmpty == true)
        #expect(owner.isEmpty, "a visitor's favourite reached the owner's list")
        #expect(ownerHistory.isEmpty, "a visitor's search reached the owner's history")
    }

    @Test("the owner's favourites and history are never served to a visitor")
    func ownerNeverServed() async throws {
        let instance = try await PublicServer.start()
        let favorite = Favorite(id: ItemID(provider: "openlibrary", value: "OL1W"), kind: .book, title: "The owner's", addedAt: Date())
        try await instance.harness.session.userState.favorites.add(favorite)
        try await instance.harness.session.userState.history.record(query: "owner's search", providers: ["openlibrary"])
        let (favorites, history, page) = try await instance.withRouter { client in
            (try await client.execute(uri: "/api/v1/favorites", method: .get),
             try await client.execute(uri: "/api/v1/history", method: .get),
             try await client.execute(uri: "/favorites", method: .get))
        }
        try await instance.stop()
        #expect(favorites.ids.isEmpty)
        #expect((history.json?["entries"] as? [Any])?.isEmpty == true)
        #expect(!String(buffer: page.body).contains("The owner&#39;s") && !String(buffer: page.body).contains("The owner's"))
    }

    @Test("no cookie or an altered one: empty lists, a new cookie, and the search records no history")
    func alteredCookie() async throws {
        let instance = try await PublicServer.start()
        let result = try await instance.withRouter { client in
            var alice = CookieJar()
            alice.take(try await client.execute(uri: "/", method: .get))
            _ = try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .put, headers: alice.headers)
            let genuine = try #require(alice.cookie)
            var forged = Array(genuine)
            let index = forged.index(forged.endIndex, offsetBy: -3)
            forged[index] = forged[index] == "A" ? "B" : "A"
            var headers = HTTPFields()
            headers[.cookie] = String(forged)
            let altered = try await client.execute(uri: "/api/v1/favorites", method: .get, headers: headers)
            let searched = try await client.execute(uri: "/api/v1/search?q=quiet&providers=openlibrary", method: .get)
            return (altered, searched, try await client.execute(uri: "/api/v1/favorites", method: .get, headers: alice.headers))
        }
        let visitors = try await instance.harness.session.userState.history.forgetVisitors(unseenSince: Date.distantFuture)
        try await instance.stop()
        #expect(result.0.status == .ok)
        #expect(result.0.ids.isEmpty)
        #expect(result.0.headers[.setCookie]?.hasPrefix("seek_visitor=") == true)
        #expect(result.1.status == .ok)
        #expect(visitors == 0, "a search without a valid cookie was recorded")
        #expect(result.2.ids == ["openlibrary:OL45804W"])
    }

    @Test("the visitor cookie is HttpOnly, SameSite=Lax, Path=/; visitor answers are private, no-store")
    func cookieAndCaching() async throws {
        let instance = try await PublicServer.start()
        let response = try await instance.withRouter { client in try await client.execute(uri: "/api/v1/favorites", method: .get) }
        try await instance.stop()
        let cookie = try #require(response.headers[.setCookie])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
        #expect(!cookie.contains("Secure"))
        #expect(response.headers[.cacheControl] == "private, no-store")
    }

    @Test("POST /mcp is not there without SEEK_MCP_TOKEN, and needs the token when set")
    func mcpToken() async throws {
        let closed = try await PublicServer.start()
        let missing = try await closed.withRouter { client in try await client.execute(uri: "/mcp", method: .post, body: ByteBuffer(string: "{}")) }
        try await closed.stop()
        #expect(missing.status == .notFound)
        let open = try await PublicServer.start(["SEEK_MCP_TOKEN": "mcp-token-123"])
        let (wrong, right) = try await open.withRouter { client in
            var bad = HTTPFields()
            bad[.authorization] = "Bearer nope"
            var good = HTTPFields()
            good[.authorization] = "Bearer mcp-token-123"
            good[.contentType] = "application/json"
            good[.accept] = "application/json, text/event-stream"
            let body = #"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#
            return (try await client.execute(uri: "/mcp", method: .post, headers: bad, body: ByteBuffer(string: body)),
                    try await client.execute(uri: "/mcp", method: .post, headers: good, body: ByteBuffer(string: body)))
        }
        try await open.stop()
        #expect(wrong.status == .unauthorized)
        #expect(right.status == .ok)
    }
}

@Suite("Writes from another site are refused")
struct CrossSiteWriteTests {
    @Test("a PUT or DELETE with a foreign Origin or Sec-Fetch-Site: cross-site is 403 forbidden and changes nothing",
          arguments: [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site"), ("Origin", "null"), ("Sec-Fetch-Site", "same-site")])
    func refused(_ name: String, _ value: String) async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        try await harness.session.userState.favorites.add(
            Favorite(id: ItemID(provider: "openlibrary", value: "OL1W"), kind: .book, title: "Kept", addedAt: Date()))
        let fieldName = try #require(HTTPField.Name(name))
        let (put, delete, clear) = try await harness.withRouter { client in
            var headers = HTTPFields()
            headers[fieldName] = value
            return (try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .put, headers: headers),
                    try await client.execute(uri: "/api/v1/favorites/openlibrary:OL1W", method: .delete, headers: headers),
                    try await client.execute(uri: "/api/v1/history", method: .delete, headers: headers))
        }
        let kept = try await harness.session.userState.favorites.all().map(\.id.value)
        try await harness.stop()
        for response in [put, delete, clear] {
            #expect(response.status == .forbidden)
            #expect(response.errorCode == "forbidden")
        }
        #expect(kept == ["OL1W"])
    }

    @Test("the instance's own pages (same-origin) and clients without those headers (curl) may write")
    func allowed() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        let (sameOrigin, plain) = try await harness.withRouter { client in
            var headers = HTTPFields()
            headers[.secFetchSite] = "same-origin"
            return (try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .put, headers: headers),
                    try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .delete))
        }
        try await harness.stop()
        #expect(sameOrigin.status == .ok)
        #expect(plain.status == .ok)
    }

    @Test("the star's form toggles a favourite without JavaScript and goes back to the page it came from")
    func formToggle() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        let (on, off, foreign) = try await harness.withLiveServer { client in
            // The test client's requests name the host `localhost` (no port).
            var headers = HTTPFields()
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[.origin] = "http://localhost"
            headers[.referer] = "http://localhost/search?q=fox"
            let body = ByteBuffer(string: "id=openlibrary%3AOL45804W")
            let on = try await client.execute(uri: "/favorites/toggle", method: .post, headers: headers, body: body)
            let off = try await client.execute(uri: "/favorites/toggle", method: .post, headers: headers, body: body)
            headers[.origin] = "http://evil.example"
            let foreign = try await client.execute(uri: "/favorites/toggle", method: .post, headers: headers, body: body)
            return (on, off, foreign)
        }
        let left = try await harness.session.userState.favorites.all()
        try await harness.stop()
        #expect(on.status == .seeOther)
        #expect(on.headers[.location] == "/search?q=fox")
        #expect(off.status == .seeOther)
        #expect(foreign.status == .forbidden)
        #expect(left.isEmpty)
    }
}

@Suite("seek serve --public: each client's search budget")
struct ClientLimitTests {
    @Test("a client past its budget gets 429, Retry-After and rate_limited; the web page says so in words")
    func limited() async throws {
        let instance = try await PublicServer.start(["SEEK_CLIENT_RATE_LIMIT": "2/min,burst=2"])
        let responses = try await instance.withRouter { client in
            var all: [TestResponse] = []
            for _ in 0..<3 { all.append(try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get)) }
            all.append(try await client.execute(uri: "/search?q=harbor&providers=openlibrary", method: .get))
            all.append(try await client.execute(uri: "/api/v1/favorites", method: .get))
            return all
        }
        try await instance.stop()
        #expect(responses[0].status == .ok && responses[1].status == .ok)
        #expect(responses[2].status == .tooManyRequests)
        #expect(responses[2].errorCode == "rate_limited")
        let retryAfter = try #require(responses[2].headers[.retryAfter].flatMap { Int($0) })
        #expect(retryAfter >= 1 && retryAfter <= 60)
        #expect(responses[3].status == .tooManyRequests)
        #expect(String(buffer: responses[3].body).contains("Too many searches"))
        #expect(String(buffer: responses[3].body).contains("data-rate-limited"))
        #expect(responses[4].status == .ok, "only searches count")
    }

    @Test("behind a trusted proxy each forwarded client has its own budget; without one, X-Forwarded-For changes nothing")
    func forwardedClients() async throws {
        let trusted = try await PublicServer.start(["SEEK_CLIENT_RATE_LIMIT": "1/min,burst=1", "SEEK_TRUSTED_PROXIES": "127.0.0.1, ::1"])
        let behindProxy = try await trusted.withLiveServer { client in
            var statuses: [HTTPResponse.Status] = []
            for forwarded in ["203.0.113.1", "203.0.113.1", "203.0.113.2", "6.6.6.6, 203.0.113.2"] {
                var headers = HTTPFields()
                headers[.xForwardedFor] = forwarded
                statuses.append(try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get, headers: headers).status)
            }
            return statuses
        }
        try await trusted.stop()
        #expect(behindProxy == [.ok, .tooManyRequests, .ok, .tooManyRequests])
        let untrusted = try await PublicServer.start(["SEEK_CLIENT_RATE_LIMIT": "1/min,burst=1"])
        let direct = try await untrusted.withLiveServer { client in
            var statuses: [HTTPResponse.Status] = []
            for forwarded in ["203.0.113.1", "203.0.113.2"] {
                var headers = HTTPFields()
                headers[.xForwardedFor] = forwarded
                statuses.append(try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get, headers: headers).status)
            }
            return statuses
        }
        try await untrusted.stop()
        #expect(direct == [.ok, .tooManyRequests])
    }
}

extension HTTPField.Name {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site") ?? .via
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For") ?? .via
}
