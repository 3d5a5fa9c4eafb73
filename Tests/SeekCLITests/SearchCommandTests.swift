import Foundation
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek search")
struct SearchCommandTests {
    @Test("JSON output follows DESIGN's schema with provider:value ids")
    func jsonSchema() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["search", "harbor", "--providers", "openlibrary", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let json = try #require(result.json)
        #expect(json["query"] as? String == "harbor")
        #expect(json["page"] as? Int == 1)
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.count == 2)
        let first = try #require(items.first)
        #expect(first["id"] as? String == "openlibrary:OL27448W")
        #expect(first["provider"] as? String == "openlibrary")
        #expect(first["kind"] as? String == "book")
        #expect(first["creators"] as? [String] == ["J.R.R. Tolkien"])
        #expect(first["year"] as? Int == 1954)
        #expect(first["isbn13"] as? [String] == ["9780618640157"])
        #expect(first.keys.contains("subtitle") && first["subtitle"] is NSNull)
        #expect((first["imageURL"] as? String)?.contains("/b/id/14625765-L.jpg") == true)
        let sources = try #require(first["sources"] as? [[String: Any]])
        #expect(sources.first?["rank"] as? Int == 1)
        let providers = try #require(json["providers"] as? [[String: Any]])
        #expect(providers.first?["id"] as? String == "openlibrary")
        #expect(providers.first?["status"] as? String == "ok")
        #expect(providers.first?["count"] as? Int == 2)
        #expect(providers.first?["error"] is NSNull)
        #expect(providers.first?["elapsedMs"] is Int)
        #expect(json.keys.contains("next"))
    }

    @Test("the default limit of 20 is sent to the provider")
    func defaultLimit() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        _ = await harness.run(["search", "harbor", "--providers", "openlibrary", "--format", "json"])
        let request = harness.server.requests.first { $0.path == "/ol/search.json" }
        try await harness.stop()
        #expect(request?.queryValue("limit") == "20")
    }

    @Test("an empty result exits 0 with an empty items list")
    func emptyResult() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(OpenLibrarySamples.emptySearch))
        let result = await harness.run(["search", "zzzz", "--providers", "openlibrary", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0)
        #expect((result.json?["items"] as? [Any])?.isEmpty == true)
        #expect((result.json?["providers"] as? [[String: Any]])?.first?["status"] as? String == "empty")
    }

    @Test("the only provider failing exits 4 with one stderr line naming it and the cause", arguments: [
        ("500", "HTTP 500"), ("malformed", "undecodable"), ("hang", "timed out"), ("huge", "larger than"),
    ])
    func onlyProviderFails(fault: String, cause: String) async throws {
        let harness = try await CLIHarness.start()
        switch fault {
        case "500": harness.server.route("/ol/search.json", fault: .status(500, body: "oops"))
        case "malformed": harness.server.route("/ol/search.json", fault: .malformedJSON)
        case "hang": harness.server.route("/ol/search.json", fault: .hang)
        default: harness.server.route("/ol/search.json", fault: .hugeBody(bytes: 64 * 1024 * 1024))
        }
        let result = await harness.run(["search", "harbor", "--providers", "openlibrary", "--timeout", fault == "huge" ? "20" : "1"])
        try await harness.stop()
        #expect(result.code == 4)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.contains("openlibrary") == true)
        #expect(lines.first?.contains(cause) == true, "stderr: \(result.stderr)")
    }

    @Test("the table fits 80 columns and truncates with an ellipsis")
    func tableFits80Columns() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json("""
            {"numFound": 1, "docs": [{"key": "/works/OL1W", "title": "\(String(repeating: "Long Title ", count: 12))",
             "author_name": ["An Author With A Very Long Name Indeed", "Another"], "first_publish_year": 2001}]}
            """))
        let result = await harness.run(["search", "long", "--providers", "openlibrary"])
        try await harness.stop()
        #expect(result.code == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.last?.contains("…") == true)
        #expect(lines.last?.contains("openlibrary:OL1W") == true)
    }

    @Test("a bang selects the provider it names")
    func bangSelects() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["search", "!ol harbor", "--format", "json"])
        let request = harness.server.requests.first { $0.path == "/ol/search.json" }
        try await harness.stop()
        #expect(result.code == 0)
        #expect(request?.queryValue("q") == "harbor")
        let providers = (result.json?["providers"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(providers == ["openlibrary"])
    }

    @Test("providers without keys are skipped and the search goes on")
    func missingKeysSkip() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["search", "harbor", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let statuses = (result.json?["providers"] as? [[String: Any]])?.reduce(into: [String: String]()) {
            $0[$1["id"] as? String ?? ""] = $1["status"] as? String
        }
        #expect(statuses?["openlibrary"] == "ok")
        #expect(statuses?["giphy"] == "skipped")
        #expect(statuses?["aladin"] == "skipped")
        // The keyless sources are asked (the harness's stand-ins find nothing), never the internet.
        #expect(statuses?["crossref"] == "empty" && statuses?["gutendex"] == "empty", "\(statuses ?? [:])")
        #expect(result.stderr.contains("SEEK_GIPHY_API_KEY"))
    }

    @Test("an explicitly chosen provider without a key makes the run exit 4")
    func explicitSkippedCounts() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "cats", "--providers", "giphy"])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(result.stderr.contains("giphy"))
        #expect(harness.server.totalRequestCount == 0)
    }

    @Test("bad arguments exit 64", arguments: [
        ["search", "x", "--limit", "0"], ["search", "x", "--providers", "nosuch"], ["search"],
        ["search", "x", "--page", "2", "--cursor", "abc"], ["search", "x", "--format", "xml"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(arguments)
        try await harness.stop()
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(!result.stderr.isEmpty)
    }

    @Test("a malformed config file is a clear error, exit 64")
    func badConfig() async throws {
        let harness = try await CLIHarness.start()
        let path = harness.home.appendingPathComponent("bad.json")
        try Data("{ not json".utf8).write(to: path)
        let result = await harness.run(["providers"], environment: ["SEEK_CONFIG": path.path])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("not valid JSON"))
    }
}
