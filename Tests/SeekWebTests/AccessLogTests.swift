import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
@testable import SeekWeb
import SeekRuntime
import Synchronization
import Testing

/// A log handler that keeps every line it is given (message and metadata, as one text) at `level` and above.
struct CapturingLogHandler: LogHandler {
    final class Lines: Sendable {
        private let lines = Mutex<[(message: String, metadata: [String: String])]>([])

        func append(_ message: String, _ metadata: [String: String]) { lines.withLock { $0.append((message, metadata)) } }
        var all: [(message: String, metadata: [String: String])] { lines.withLock { $0 } }
        /// Every line as one text: the message, then `key=value` for each metadata entry.
        var texts: [String] {
            all.map { line in ([line.message] + line.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ") }
        }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append(event.message.description, merged.mapValues { $0.description })
    }
}

@Suite("seek serve: one access line per request, and no visitor's search in the log (SEEK_ACCESS_LOG)")
struct AccessLogTests {
    static let secret = "my secret medical question"

    /// Runs `body` against `server`'s router with a logger that captures at `info` (the server's default).
    static func withCapture<T: Sendable>(
        _ server: SeekServer, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> T
    ) async throws -> (T, CapturingLogHandler.Lines) {
        let lines = CapturingLogHandler.Lines()
        let logger = Logger(label: "seek.serve.test") { _ in CapturingLogHandler(lines: lines, logLevel: .info) }
        let result = try await Application(router: server.router(), logger: logger).test(.router) { client in try await body(client) }
        return (result, lines)
    }

    static func accessLines(_ lines: CapturingLogHandler.Lines) -> [[String: String]] {
        lines.all.filter { $0.message == "request" }.map(\.metadata)
    }

    @Test("public mode by default: the access line has method, route template, status, duration and bytes, and no line has the search, cookie or visitor")
    func publicModeKeepsNoSearch() async throws {
        let instance = try await PublicServer.start()
        let query = Self.secret.replacingOccurrences(of: " ", with: "+")
        let ((search, page, item), lines) = try await Self.withCapture(instance.server) { client in
            let search = try await client.execute(uri: "/api/v1/search?q=\(query)&providers=openlibrary", method: .get) { $0 }
            var headers = HTTPFields()
            headers[.cookie] = (search.headers[.setCookie] ?? "").split(separator: ";").first.map(String.init) ?? ""
            let page = try await client.execute(uri: "/search?q=\(query)", method: .get, headers: headers) { $0.status }
            let item = try await client.execute(uri: "/api/v1/items/openlibrary:OL45804W", method: .get, headers: headers) { $0.status }
            return (search, page, item)
        }
        try await instance.stop()
        #expect(search.status == .ok)
        #expect(page == .ok)
        #expect(item == .ok)
        let cookieValue = (search.headers[.setCookie] ?? "").split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init)
        for text in lines.texts {
            for secret in [Self.secret, query, "secret", "medical"] + (cookieValue.map { [$0] } ?? []) {
                #expect(!text.contains(secret), "a log line holds \(secret): \(text)")
            }
            #expect(!text.contains("hb.request.path"), "Hummingbird's path line: \(text)")
        }
        let access = Self.accessLines(lines)
        #expect(access.count == 3, "access lines: \(access)")
        let first = try #require(access.first)
        #expect(first["method"] == "GET")
        #expect(first["route"] == "/api/v1/search")
        #expect(first["status"] == "200")
        #expect(first["path"] == nil)
        #expect(Double(first["duration_ms"] ?? "") != nil, "duration_ms: \(first["duration_ms"] ?? "none")")
        #expect((Int(first["bytes"] ?? "") ?? 0) > 0, "bytes: \(first["bytes"] ?? "none")")
        #expect(access.map { $0["route"] ?? "" } == ["/api/v1/search", "/search", "/api/v1/items/{id}"])
    }

    @Test("public mode: a search whose providers fail (500, 429, bad JSON) still leaves the search's text in no line",
          arguments: ["/api/v1/search", "/search", "/api/v1/search/stream", "/api/v1/suggest"])
    func failingProvidersKeepNoSearch(path: String) async throws {
        let instance = try await PublicServer.start()
        let fixtures = instance.harness.fixtures
        fixtures.route("/ol/search.json", .json(#"{"error": "down"}"#, status: 500))
        fixtures.route(ProviderSamples.aladinPath, .json(#"{"errorCode": 1, "errorMess"#, status: 200))
        fixtures.route(ProviderSamples.giphyPath, FixtureResponse(
            status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "30")], body: Array(#"{"meta": {"status": 429}}"#.utf8)))
        let query = Self.secret.replacingOccurrences(of: " ", with: "+")
        let (status, lines) = try await Self.withCapture(instance.server) { client in
            try await client.execute(uri: "\(path)?q=\(query)", method: .get) { $0.status }
        }
        try await instance.stop()
        #expect(status.code < 500 || status == .badGateway || status == .serviceUnavailable, "\(status)")
        for text in lines.texts {
            #expect(!text.contains("secret") && !text.contains("medical"), "a log line holds the search: \(text)")
        }
        #expect(Self.accessLines(lines).count == 1)
    }

    @Test("a refused request has its access line too: its status, and the route that refused it")
    func refusedRequestIsLogged() async throws {
        let harness = try await ServerHarness.start()
        var server = harness.server
        server.accessLog = .minimal
        let (status, lines) = try await Self.withCapture(server) { client in
            try await client.execute(uri: "/api/v1/search?q=x&limit=abc", method: .get) { $0.status }
        }
        try await harness.stop()
        #expect(status == .badRequest)
        let access = Self.accessLines(lines)
        #expect(access.count == 1)
        #expect(access.first?["status"] == "400")
        #expect(access.first?["route"] == "/api/v1/search")
    }

    @Test("a personal server logs full by default: the path with its query is in the access line")
    func personalModeIsFull() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let (status, lines) = try await Self.withCapture(harness.server) { client in
            try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get) { $0.status }
        }
        try await harness.stop()
        #expect(status == .ok)
        let access = Self.accessLines(lines)
        #expect(access.count == 1)
        #expect(access.first?["path"] == "/api/v1/search?q=harbor&providers=openlibrary")
        #expect(access.first?["status"] == "200")
    }

    @Test("SEEK_ACCESS_LOG=off writes no access line; a stream's bytes are counted")
    func offAndStreams() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        var server = harness.server
        server.accessLog = .off
        let (_, quiet) = try await Self.withCapture(server) { client in
            try await client.execute(uri: "/healthz", method: .get) { $0.status }
        }
        server.accessLog = .minimal
        let (length, counted) = try await Self.withCapture(server) { client in
            try await client.execute(uri: "/api/v1/search/stream?q=harbor&providers=openlibrary", method: .get) { $0.body.readableBytes }
        }
        try await harness.stop()
        #expect(Self.accessLines(quiet).isEmpty)
        let line = try #require(Self.accessLines(counted).first)
        #expect(line["route"] == "/api/v1/search/stream")
        #expect(line["bytes"] == String(length))
        #expect(length > 0)
    }

    @Test("SEEK_ACCESS_LOG: off, minimal or full in any case; unset is minimal in public mode and full in personal; else a configuration error")
    func settings() throws {
        #expect(try AccessLog.resolve(settings: Settings(), isPublic: true) == .minimal)
        #expect(try AccessLog.resolve(settings: Settings(), isPublic: false) == .full)
        #expect(try AccessLog.resolve(settings: Settings(environment: ["SEEK_ACCESS_LOG": " OFF "]), isPublic: false) == .off)
        #expect(try AccessLog.resolve(settings: Settings(environment: ["SEEK_ACCESS_LOG": "full"]), isPublic: true) == .full)
        #expect(try AccessLog.resolve(settings: Settings(environment: ["SEEK_ACCESS_LOG": ""]), isPublic: true) == .minimal)
        for bad in ["verbose", "1", "none", "on"] {
            let error = try #require(throws: SeekError.self) {
                try AccessLog.resolve(settings: Settings(environment: ["SEEK_ACCESS_LOG": bad]), isPublic: true)
            }
            #expect(error.kind == .configuration)
            #expect(error.description.contains("SEEK_ACCESS_LOG"))
        }
    }

    @Test("durations in milliseconds with three decimals")
    func milliseconds() {
        #expect(AccessLog.milliseconds(.zero) == "0.000")
        #expect(AccessLog.milliseconds(.microseconds(12_305)) == "12.305")
        #expect(AccessLog.milliseconds(.microseconds(7)) == "0.007")
        #expect(AccessLog.milliseconds(.seconds(2)) == "2000.000")
    }
}
