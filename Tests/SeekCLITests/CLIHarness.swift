import Foundation
import SeekCLI
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting

/// What one `seek` run printed and returned.
struct RunResult {
    let code: Int32
    let stdout: String
    let stderr: String

    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }
}

/// A fixture server that speaks enough of Open Library's API for CLI tests (and stands in, empty, for
/// the keyless sources), plus a private home.
struct CLIHarness {
    let server: FixtureServer
    let home: URL

    static func start() async throws -> CLIHarness {
        let server = try await FixtureServer.start()
        KeylessStandIns.serveNothing(on: server)  // Crossref and Project Gutenberg answer with nothing found
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        return CLIHarness(server: server, home: home)
    }

    func stop() async throws {
        try? FileManager.default.removeItem(at: home)
        try await server.shutdown()
    }

    /// An environment that points every provider at the fixture server, with no keys and no real config.
    var environment: [String: String] {
        [
            "HOME": home.path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path,
            "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
            "SEEK_OPENLIBRARY_URL": server.url("/ol").absoluteString,
            "SEEK_OPENLIBRARY_COVERS_URL": server.url("/covers").absoluteString,
            "SEEK_GIPHY_URL": server.url("/giphy").absoluteString,
            "SEEK_ALADIN_URL": server.url("/aladin/ttb/api").absoluteString,
            "NO_COLOR": "1",
        ].merging(KeylessStandIns.environment(server)) { $1 }
    }

    /// Runs `seek` in-process.
    func run(_ arguments: [String], environment extra: [String: String] = [:]) async -> RunResult {
        let stdout = CapturedText()
        let stderr = CapturedText()
        let context = CLIContext(
            environment: environment.merging(extra) { $1 }, stdout: stdout, stderr: stderr)
        let code = await SeekMain.run(arguments: arguments, context: context)
        return RunResult(code: code, stdout: stdout.text, stderr: stderr.text)
    }

    /// Serves a small Open Library: a search with two works, Mr Fox's work, author and cover.
    func serveOpenLibrary() {
        server.route("/ol/search.json", .json(OpenLibrarySamples.search))
        server.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        server.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        server.route("/covers/b/id/6498519-L.jpg", FixtureResponse(
            headers: [("Content-Type", "image/jpeg")], body: OpenLibrarySamples.coverBytes))
    }
}

