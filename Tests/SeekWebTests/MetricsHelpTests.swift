import Foundation
import Hummingbird
import HummingbirdTesting
@testable import SeekWeb
import Testing

/// `promtool check metrics` (Prometheus' own checker) on `/metrics`: every family has its HELP text.
/// Where promtool is installed (Debian's `prometheus` package) it is run on the scrape; the same
/// rules are checked here in any case.
@Suite("seek serve: /metrics passes promtool's checks")
struct MetricsHelpTests {
    /// The scrape after a few requests, so every family Seek serves has a series.
    static func scrape() async throws -> String {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let text = try await harness.withRouter { client in
            _ = try await client.execute(uri: "/api/v1/search?q=harbor", method: .get) { $0.status }
            _ = try await client.execute(uri: "/healthz", method: .get) { $0.status }
            return try await client.execute(uri: "/metrics", method: .get) { $0.text }
        }
        try await harness.stop()
        return text
    }

    @Test("every family of /metrics has one HELP line, right before its TYPE line; counters end in _total")
    func everyFamilyHasHelp() async throws {
        let text = try await Self.scrape()
        let lines = text.split(separator: "\n").map(String.init)
        let types = lines.indices.filter { lines[$0].hasPrefix("# TYPE ") }
        #expect(types.count >= 5, "families: \(types.count)")
        for index in types {
            let fields = lines[index].split(separator: " ")
            guard fields.count == 4 else {
                Issue.record("TYPE line: \(lines[index])")
                continue
            }
            let name = fields[2]
            #expect(index > 0 && lines[index - 1].hasPrefix("# HELP \(name) "), "no help text for \(name)")
            if fields[3] == "counter" { #expect(name.hasSuffix("_total"), "counter \(name)") }
        }
        let helps = lines.filter { $0.hasPrefix("# HELP ") }
        #expect(helps.count == types.count)
        #expect(Set(helps).count == helps.count)
        #expect(helps.allSatisfy { $0.split(separator: " ", maxSplits: 3).count == 4 })
    }

    @Test("a family without a listed help text gets one naming it; one that has a HELP line keeps it")
    func withHelp() {
        let text = "# TYPE seek_new_total counter\nseek_new_total 1\n# HELP seek_old Old.\n# TYPE seek_old gauge\nseek_old 0\n"
        let helped = ServerMetrics.withHelp(text)
        #expect(helped == "# HELP seek_new_total Seek's seek_new_total metric.\n# TYPE seek_new_total counter\nseek_new_total 1\n"
            + "# HELP seek_old Old.\n# TYPE seek_old gauge\nseek_old 0\n")
        #expect(ServerMetrics.withHelp("").isEmpty)
        #expect(ServerMetrics.help.keys.contains(ServerMetrics.requests))
    }

    @Test("promtool check metrics passes on the scrape",
          .enabled(if: MetricsHelpTests.promtool != nil, "promtool is not installed (Debian: apt-get install prometheus)"))
    func promtoolPasses() async throws {
        let text = try await Self.scrape()
        let promtool = try #require(Self.promtool)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "promtool: \(said)")
        #expect(!said.contains("no help text"), "promtool: \(said)")
    }

    static let promtool: String? = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
}
