import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SeekKit
import SeekCore
import SeekLoopback
import SeekWeb
import SeekRuntime
import SeekTesting
import Testing

/// A `seek serve` over a session whose providers all call one loopback fixture server, with a
/// private data and cache directory.
struct ServerHarness {
    let fixtures: FixtureServer
    let home: URL
    let session: SeekSession
    let server: SeekServer

    static func start(environment extra: [String: String] = [:]) async throws -> ServerHarness {
        let fixtures = try await FixtureServer.start()
        KeylessStandIns.serveNothing(on: fixtures)  // Crossref and Project Gutenberg answer with nothing found
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = environment(fixtures: fixtures, home: home).merging(extra) { $1 }
        let session = try await SeekSession.open(settings: try Settings.load(environment: environment))
        var logger = Logger(label: "seek.serve.test")
        logger.logLevel = .critical
        return ServerHarness(fixtures: fixtures, home: home, session: session, server: SeekServer(session: session, port: 0, logger: logger))
    }

    /// Every provider pointed at `fixtures`, keys for GIPHY and Aladin, state under `home`.
    static func environment(fixtures: FixtureServer, home: URL) -> [String: String] {
        [
            "HOME": home.path,
            "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path,
            "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
            "SEEK_OPENLIBRARY_URL": fixtures.url("/ol").absoluteString,
            "SEEK_OPENLIBRARY_COVERS_URL": fixtures.url("/covers").absoluteString,
            "SEEK_GIPHY_URL": fixtures.url("/giphy").absoluteString,
            "SEEK_ALADIN_URL": fixtures.url("/aladin/ttb/api").absoluteString,
        ].merging(ProviderSamples.keys) { $1 }.merging(KeylessStandIns.environment(fixtures)) { $1 }
    }

    var environment: [String: String] { Self.environment(fixtures: fixtures, home: home) }

    func stop() async throws {
        await session.close()
        try await fixtures.shutdown()
        try? FileManager.default.removeItem(at: home)
    }

    /// Runs `body` against the router (no sockets).
    func withRouter<T: Sendable>(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> T) async throws -> T {
        try await Application(router: server.router(), logger: server.logger).test(.router) { client in try await body(client) }
    }

    /// Runs `body` against a real server on a loopback port.
    func withLiveServer<T: Sendable>(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> T) async throws -> T {
        try await Application(router: server.router(), logger: server.logger).test(.live) { client in try await body(client) }
    }

    /// Serves a small Open Library search: `count` works, two with ISBNs Aladin shares.
    func serveBooks() {
        fixtures.route("/ol/search.json", .json(ProviderSamples.openLibrary([
            ProviderSamples.olDoc(1, title: "Harbor Lights", isbns: ["9791130605210"], year: 2001),
            ProviderSamples.olDoc(2, title: "Second Book", year: 1999),
        ])))
        fixtures.route(ProviderSamples.aladinPath, .json(ProviderSamples.aladin([
            ProviderSamples.aladinItem(isbn13: "9791130605210", title: "항구의 빛", itemId: 7),
        ])))
        fixtures.route(ProviderSamples.giphyPath, .json(ProviderSamples.giphy(["gif1"])))
    }
}

extension TestResponse {
    /// The body as JSON, or nil.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
    }

    var text: String { String(buffer: body) }
}

/// The `providers` entries of a document by id.
func outcomes(_ json: [String: Any]?) -> [String: [String: Any]] {
    let list = json?["providers"] as? [[String: Any]] ?? []
    return Dictionary(list.map { ($0["id"] as? String ?? "", $0) }) { first, _ in first }
}
