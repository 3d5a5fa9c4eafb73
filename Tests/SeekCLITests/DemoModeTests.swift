import Foundation
import SeekCLI
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek --demo and the offline hint")
struct DemoModeTests {
    /// An environment with no keys and every provider pointed at a port nothing listens on.
    private static func offline(_ harness: CLIHarness) -> [String: String] {
        [
            "SEEK_OPENLIBRARY_URL": "http://127.0.0.1:1/ol", "SEEK_OPENLIBRARY_COVERS_URL": "http://127.0.0.1:1/covers",
            "SEEK_GIPHY_URL": "http://127.0.0.1:1/giphy", "SEEK_ALADIN_URL": "http://127.0.0.1:1/aladin",
            "SEEK_CROSSREF_URL": "http://127.0.0.1:1/crossref", "SEEK_GUTENDEX_URL": "http://127.0.0.1:1/gutendex",
            "SEEK_GIPHY_API_KEY": "", "SEEK_ALADIN_TTB_KEY": "",
        ]
    }

    @Test("a search with --demo prints recorded Open Library results, says so on stderr, and needs no network")
    func demoSearch() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "the lord of the rings", "--demo", "--format", "json"], environment: Self.offline(harness))
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("demo"))
        let items = result.json?["items"] as? [[String: Any]] ?? []
        #expect((10...20).contains(items.count), "\(items.count) items")
        #expect(items.allSatisfy { ($0["id"] as? String)?.hasPrefix("openlibrary:") == true })
        #expect(items.contains { ($0["title"] as? String)?.contains("Lord of the Rings") == true })
    }

    @Test("GIPHY trending with --demo gives gif items with image URLs and no key set")
    func demoGiphyTrending() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["trending", "--providers", "giphy", "--demo", "--limit", "5", "--format", "json"],
                                       environment: Self.offline(harness))
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = result.json?["items"] as? [[String: Any]] ?? []
        #expect(items.count == 5)
        #expect(items.allSatisfy { $0["kind"] as? String == "gif" && ($0["imageURL"] as? String)?.hasPrefix("http") == true })
        #expect(!result.stdout.contains("seek-demo-stand-in-key"), "the demo key leaked into the output")
    }

    @Test("Aladin's bestseller list with --demo honours --limit")
    func demoAladinBestsellers() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["trending", "--providers", "aladin", "--demo", "--limit", "3", "--format", "json"],
                                       environment: Self.offline(harness))
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let ids = (result.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.count == 3)
        #expect(ids.allSatisfy { $0.hasPrefix("aladin:97") })
    }

    @Test("an Aladin detail with --demo decodes the recorded book")
    func demoAladinDetail() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["detail", "aladin:9791130605210", "--demo", "--format", "json"], environment: Self.offline(harness))
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let title = result.json?["title"] as? String
        #expect(title?.isEmpty == false)
        #expect(title?.contains("&#") == false && title?.contains("&amp;") == false)
    }

    @Test("when every provider fails to connect, the error line suggests --demo")
    func offlineSuggestsDemo() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "harbor"], environment: Self.offline(harness))
        try await harness.stop()
        #expect(result.code == 4)
        let lines = result.stderr.split(separator: "\n")
        let openLibrary = lines.first { $0.contains("openlibrary") }
        #expect(openLibrary?.contains("try --demo") == true, "stderr: \(result.stderr)")
        #expect(lines.filter { $0.contains("skipped") }.allSatisfy { !$0.contains("--demo") })
    }

    @Test("a provider that answers with an error is no reason to suggest --demo")
    func serverErrorDoesNotSuggestDemo() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", fault: .status(500, body: "oops"))
        let result = await harness.run(["search", "harbor", "--providers", "openlibrary"], environment: ["SEEK_NO_CACHE": "1"])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(!result.stderr.contains("--demo"), "stderr: \(result.stderr)")
    }
}
