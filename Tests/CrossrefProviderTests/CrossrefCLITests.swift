import Foundation
import SeekCLI
import SeekLoopback
import SeekTesting
import Testing

/// `seek` itself, in-process, against a loopback stand-in serving Crossref's recorded bodies as recorded
/// (gzip-encoded) through the session's whole transport: two entries sharing one ISBN stay two rows.
@Suite("seek with Crossref", .enabled(if: SharedFixtures.directory != nil))
struct CrossrefCLITests {
    @Test("the recorded gzip answer gives two rows for two entries of one book; the contact address is never printed")
    func twoEntriesTwoRows() async throws {
        let response = try #require(try sharedFixture(
            "search_query_ecology_rows2_reference_entries_2026-06_habanero.gzip.raw", gzip: true))
        let server = try await FixtureServer.start()
        server.route(worksPath, response)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-cr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path, "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
            "SEEK_CROSSREF_URL": server.baseURL.absoluteString, "SEEK_CROSSREF_MAILTO": fakeMailto, "NO_COLOR": "1",
        ]
        let stdout = CapturedText()
        let stderr = CapturedText()
        let code = await SeekMain.run(
            arguments: ["search", "ecology", "--providers", "crossref", "--format", "json"],
            context: CLIContext(environment: environment, stdout: stdout, stderr: stderr))
        try await server.shutdown()
        #expect(code == 0, "\(stderr.text)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(stdout.text.utf8)) as? [String: Any])
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.compactMap { $0["title"] as? String } == ["Communicating Ecology", "Chemical Ecology"])
        #expect(items.allSatisfy { ($0["isbn13"] as? [String] ?? []).isEmpty })
        #expect(!stdout.text.contains(fakeMailto) && !stderr.text.contains(fakeMailto))
        #expect(server.requests.first?.header("Accept-Encoding")?.contains("gzip") == true)
    }
}
