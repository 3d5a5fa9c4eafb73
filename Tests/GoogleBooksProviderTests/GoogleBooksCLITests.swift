import Foundation
import SeekCLI
import SeekLoopback
import SeekTesting
import Testing

/// `seek` itself, in-process, against a loopback stand-in serving the recorded bodies at Google's paths:
/// what a reader sees, and that the key is in none of it.
@Suite("seek with Google Books", .enabled(if: SharedFixtures.directory != nil))
struct GoogleBooksCLITests {
    struct Run {
        let code: Int32
        let stdout: String
        let stderr: String
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] }
    }

    static func run(_ arguments: [String], server: FixtureServer, key: String? = fakeKey) async throws -> Run {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-gb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path, "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
            "SEEK_GOOGLEBOOKS_URL": server.baseURL.absoluteString, "NO_COLOR": "1",
        ]
        environment["SEEK_GOOGLEBOOKS_API_KEY"] = key
        let stdout = CapturedText()
        let stderr = CapturedText()
        let code = await SeekMain.run(arguments: arguments, context: CLIContext(environment: environment, stdout: stdout, stderr: stderr))
        return Run(code: code, stdout: stdout.text, stderr: stderr.text)
    }

    @Test("a search prints the recorded books with their creators, and never the key")
    func search() async throws {
        let response = try #require(try sharedFixture("search_q_harry_potter_2020-06_cmsanner.json"))
        let server = try await FixtureServer.start()
        server.route(volumesPath, response)
        let result = try await Self.run(["search", "harry potter", "--providers", "googlebooks", "--format", "json"], server: server)
        try await server.shutdown()
        #expect(result.code == 0, "\(result.stderr)")
        let items = try #require(result.json?["items"] as? [[String: Any]])
        #expect(items.count == 10)
        #expect(items.allSatisfy { !(($0["creators"] as? [String]) ?? []).isEmpty })
        #expect((items.first?["id"] as? String)?.hasPrefix("googlebooks:") == true)
        #expect(!result.stdout.contains(fakeKey) && !result.stderr.contains(fakeKey))
    }

    @Test("a rejected key is `unauthorized`, named on stderr, and the key stays hidden even when the body echoes it")
    func rejectedKey() async throws {
        let server = try await FixtureServer.start()
        server.route(volumesPath, .json(#"{"error": {"code": 400, "message": "API key not valid: \#(fakeKey). Please pass a valid API key.", "errors": [{"reason": "badRequest"}], "status": "INVALID_ARGUMENT", "details": [{"reason": "API_KEY_INVALID"}]}}"#, status: 400))
        let result = try await Self.run(["search", "harry", "--providers", "googlebooks"], server: server)
        try await server.shutdown()
        #expect(result.code == 4)
        #expect(result.stderr.contains("googlebooks"))
        #expect(result.stderr.contains("unauthorized"), "\(result.stderr)")
        #expect(!result.stdout.contains(fakeKey) && !result.stderr.contains(fakeKey), "\(result.stderr)")
    }

    @Test("without a key the search says which variable to set, and seek providers lists it as missing")
    func missingKey() async throws {
        let server = try await FixtureServer.start()
        let search = try await Self.run(["search", "harry", "--providers", "googlebooks"], server: server, key: nil)
        let providers = try await Self.run(["providers", "--format", "json"], server: server, key: nil)
        let table = try await Self.run(["providers"], server: server, key: nil)
        #expect(server.totalRequestCount == 0)
        try await server.shutdown()
        #expect(search.code == 4)
        #expect(search.stderr.contains("SEEK_GOOGLEBOOKS_API_KEY"))
        let listed = try #require((providers.json?["providers"] as? [[String: Any]])?.first { $0["id"] as? String == "googlebooks" })
        #expect(listed["missing"] as? [String] == ["SEEK_GOOGLEBOOKS_API_KEY"])
        #expect(listed["status"] as? String == "no key")
        #expect(table.stdout.contains("SEEK_GOOGLEBOOKS_API_KEY: missing"))
    }
}
