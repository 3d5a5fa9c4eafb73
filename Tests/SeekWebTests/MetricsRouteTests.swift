import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SeekCore
@testable import SeekWeb
import SeekRuntime
import SeekTesting
import Testing

/// `GET /metrics` and what it counts. The metrics are the process's (every server built in the test
/// process shares one registry, and tests run at once), so a test compares a series before and after
/// what it does, or looks for a series only it makes.
@Suite("seek serve: /metrics")
struct MetricsRouteTests {
    static let token = "metrics-token-0123456789"

    /// The value of the series `name{labels}` in a Prometheus text `exposition`, or nil when it is absent.
    static func value(_ exposition: String, _ name: String, _ labels: [String: String]) -> Double? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(name + "{") {
            guard let close = line.lastIndex(of: "}") else { continue }
            let series = line[line.index(line.startIndex, offsetBy: name.count + 1)..<close]
            let pairs = Set(series.split(separator: ",").map(String.init))
            guard pairs == Set(labels.map { "\($0.key)=\"\($0.value)\"" }) else { continue }
            return Double(line[line.index(after: close)...].trimmed())
        }
        return nil
    }

    static func scrape(_ client: any TestClientProtocol) async throws -> String {
        try await client.execute(uri: "/metrics", method: .get) { response in
            #expect(response.status == .ok)
            return response.text
        }
    }

    /// Runs `body` against the router of a server on `harness`'s session bound to `host`.
    static func withRouter<T: Sendable>(
        _ harness: ServerHarness, host: String, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        let server = SeekServer(session: harness.session, host: host, port: 0, logger: harness.server.logger)
        return try await Application(router: server.router(), logger: server.logger).test(.router) { client in try await body(client) }
    }

    @Test("on a loopback bind, /metrics answers Prometheus text counting the requests before it")
    func loopbackOpen() async throws {
        let harness = try await ServerHarness.start()
        let (response, text) = try await harness.withRouter { client in
            _ = try await client.execute(uri: "/healthz", method: .get) { $0.status }
            return try await client.execute(uri: "/metrics", method: .get) { ($0, $0.text) }
        }
        try await harness.stop()
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(text.contains("# TYPE seek_http_requests_total counter"))
        #expect(text.contains("# TYPE seek_http_request_duration_seconds histogram"))
        #expect((Self.value(text, "seek_http_requests_total", ["route": "/healthz", "status": "200"]) ?? 0) >= 1)
    }

    @Test("a search counts a call of each provider it asked, by provider and status")
    func providerCallsCounted() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let (before, after) = try await harness.withRouter { client in
            let before = try await Self.scrape(client)
            let status = try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get) { $0.status }
            #expect(status == .ok)
            return (before, try await Self.scrape(client))
        }
        try await harness.stop()
        let labels = ["provider": "openlibrary", "status": "ok"]
        let calls = (Self.value(after, "seek_provider_calls_total", labels) ?? 0) - (Self.value(before, "seek_provider_calls_total", labels) ?? 0)
        #expect(calls >= 1)
        #expect(Self.value(after, "seek_provider_call_duration_seconds_count", labels) != nil)
    }

    @Test("on another bind with no token set, /metrics is the API's JSON 404")
    func publicWithoutTokenIsNotFound() async throws {
        let harness = try await ServerHarness.start()
        let response = try await Self.withRouter(harness, host: "0.0.0.0") { client in
            try await client.execute(uri: "/metrics", method: .get) { $0 }
        }
        try await harness.stop()
        #expect(response.status == .notFound)
        #expect((response.json?["error"] as? [String: Any])?["code"] as? String == "not_found")
        #expect(!response.text.contains("seek_"))
    }

    @Test("on another bind with a token set, a missing or wrong token is a JSON 401", arguments: [nil, "Bearer wrong-token", "Basic metrics-token-0123456789"])
    func publicWrongTokenIsUnauthorized(authorization: String?) async throws {
        let harness = try await ServerHarness.start(environment: ["SEEK_METRICS_TOKEN": Self.token])
        let response = try await Self.withRouter(harness, host: "0.0.0.0") { client in
            var headers = HTTPFields()
            if let authorization { headers[.authorization] = authorization }
            return try await client.execute(uri: "/metrics", method: .get, headers: headers) { $0 }
        }
        try await harness.stop()
        #expect(response.status == .unauthorized)
        #expect((response.json?["error"] as? [String: Any])?["code"] as? String == "unauthorized")
        #expect(response.headers[.wwwAuthenticate] == "Bearer")
        #expect(!response.text.contains("seek_http"))
    }

    @Test("on another bind, the right bearer token gets the metrics")
    func publicRightToken() async throws {
        let harness = try await ServerHarness.start(environment: ["SEEK_METRICS_TOKEN": Self.token])
        let response = try await Self.withRouter(harness, host: "::") { client in
            _ = try await client.execute(uri: "/healthz", method: .get) { $0.status }
            return try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Self.token)"]) { $0 }
        }
        try await harness.stop()
        #expect(response.status == .ok)
        #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
        #expect(response.text.contains("seek_http_requests_total{"))
    }

    @Test("the route label is the route's template, never the path: two item ids are one series, an unknown path is other")
    func routeTemplateLabel() async throws {
        let harness = try await ServerHarness.start()
        let first = "nocolon\(UInt32.random(in: 0...UInt32.max))"
        let missing = "/nothing-\(UInt32.random(in: 0...UInt32.max))"
        let (before, after) = try await harness.withRouter { client in
            let before = try await Self.scrape(client)
            for id in [first, "othernocolon"] {
                let status = try await client.execute(uri: "/api/v1/items/\(id)", method: .get) { $0.status }
                #expect(status == .badRequest)
            }
            _ = try await client.execute(uri: missing, method: .get) { $0.status }
            return (before, try await Self.scrape(client))
        }
        try await harness.stop()
        let items = ["route": "/api/v1/items/{id}", "status": "400"]
        let counted = (Self.value(after, "seek_http_requests_total", items) ?? 0) - (Self.value(before, "seek_http_requests_total", items) ?? 0)
        #expect(counted >= 2)
        #expect((Self.value(after, "seek_http_requests_total", ["route": "other", "status": "404"]) ?? 0) >= 1)
        #expect(!after.contains(first))
        #expect(!after.contains(missing))
    }

    @Test("a web page's route label is its template too")
    func webRouteTemplateLabel() async throws {
        let harness = try await ServerHarness.start()
        let id = "nocolon\(UInt32.random(in: 0...UInt32.max))"
        let text = try await harness.withRouter { client in
            _ = try await client.execute(uri: "/items/\(id)", method: .get) { $0.status }
            return try await Self.scrape(client)
        }
        try await harness.stop()
        #expect(text.split(separator: "\n").contains { $0.hasPrefix("seek_http_requests_total{") && $0.contains("route=\"/items/{id}\"") })
        #expect(!text.contains(id))
    }

    @Test("the stream tells a proxy not to buffer it (X-Accel-Buffering: no)")
    func streamNotBuffered() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let header = try await harness.withRouter { client in
            try await client.execute(uri: "/api/v1/search/stream?q=harbor&providers=openlibrary", method: .get) { response in
                response.headers.first { $0.name.canonicalName == "x-accel-buffering" }?.value
            }
        }
        try await harness.stop()
        #expect(header == "no")
    }

    @Test("loopback binds are 127.0.0.0/8, ::1 and localhost; nothing else", arguments: [
        ("127.0.0.1", true), ("127.10.20.30", true), ("localhost", true), ("LOCALHOST", true), ("::1", true), ("[::1]", true),
        ("0:0:0:0:0:0:0:1", true), ("::ffff:127.0.0.1", true),
        ("0.0.0.0", false), ("::", false), ("192.168.1.10", false), ("10.0.0.1", false), ("128.0.0.1", false),
        ("127.example.com", false), ("localhost.example.com", false), ("::2", false), ("", false),
    ])
    func loopbackBinds(host: String, loopback: Bool) {
        #expect(MetricsEndpoint.isLoopback(host) == loopback)
    }
}
