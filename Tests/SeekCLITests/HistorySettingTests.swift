import Foundation
import SeekCLI
import SeekTesting
import Testing

@Suite("SEEK_HISTORY")
struct HistorySettingTests {
    @Test("SEEK_HISTORY=off records no search; on (the default) does")
    func off() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let quiet = await harness.run(["search", "fox", "--providers", "openlibrary"], environment: ["SEEK_HISTORY": "off"])
        let none = await harness.run(["history", "--format", "json"])
        let recorded = await harness.run(["search", "fox", "--providers", "openlibrary"])
        let one = await harness.run(["history", "--format", "json"])
        try await harness.stop()
        #expect(quiet.code == 0, "stderr: \(quiet.stderr)")
        #expect((none.json?["entries"] as? [Any])?.isEmpty == true)
        #expect(recorded.code == 0)
        #expect((one.json?["entries"] as? [[String: Any]])?.compactMap { $0["query"] as? String } == ["fox"])
    }

    @Test("a SEEK_HISTORY that is neither on nor off is a configuration error (64) naming it")
    func bad() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["history"], environment: ["SEEK_HISTORY": "sometimes"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("SEEK_HISTORY"), "stderr: \(result.stderr)")
    }
}
