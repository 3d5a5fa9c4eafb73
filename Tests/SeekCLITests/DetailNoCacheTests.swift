import Foundation
import SeekCLI
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek detail --no-cache")
struct DetailNoCacheTests {
    @Test("a second detail comes from the cache; --no-cache asks the provider again")
    func noCacheBypassesTheDetailCache() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let first = await harness.run(["detail", "openlibrary:OL45804W"])
        let cached = await harness.run(["detail", "openlibrary:OL45804W"])
        let afterCached = harness.server.requestCount(path: "/ol/works/OL45804W.json")
        let fresh = await harness.run(["detail", "openlibrary:OL45804W", "--no-cache"])
        let afterFresh = harness.server.requestCount(path: "/ol/works/OL45804W.json")
        try await harness.stop()
        #expect([first.code, cached.code, fresh.code] == [0, 0, 0], "stderr: \(first.stderr)\(cached.stderr)\(fresh.stderr)")
        #expect(cached.stdout.contains("Fantastic Mr Fox"))
        #expect(afterCached == 1)
        #expect(afterFresh == 2)
    }

    @Test("detail labels line up on the longest one, so attribute names are never cut")
    func labelsAreNotCut() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["detail", "openlibrary:OL45804W"])
        try await harness.stop()
        let labelled = result.stdout.split(separator: "\n").filter { $0.contains("  ") && !$0.hasPrefix(" ") }
        let valueColumns = Set(labelled.compactMap { line -> Int? in
            guard let gap = line.range(of: "  ") else { return nil }
            let rest = line[gap.upperBound...]
            return line.distance(from: line.startIndex, to: rest.firstIndex { $0 != " " } ?? rest.startIndex)
        })
        #expect(result.stdout.contains("ID "))
        #expect(valueColumns.count == 1, "values start in different columns: \(result.stdout)")
    }
}
