import AladinProvider
import Foundation
import NIOConcurrencyHelpers
@testable import SeekCLI
import SeekCore
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek search: aggregation")
struct AggregationCommandTests {
    // MARK: Deadlines

    @Test("a hung provider: the fast one's results by the deadline, exit 3, one stderr line, the connection closed")
    func hungProvider() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", fault: .hang)
        harness.server.route(AggregationSamples.giphyPath, .json(AggregationSamples.giphy(["cat1", "cat2"])))
        let started = ContinuousClock.now
        let result = await harness.run(
            ["search", "cats", "--providers", "openlibrary,giphy", "--timeout", "2", "--format", "json"],
            environment: AggregationSamples.keys)
        let elapsed = ContinuousClock.now - started
        let closed = await AggregationSamples.eventually { harness.server.openConnectionCount == 0 }
        let asked = harness.server.requestCount(path: "/ol/search.json")
        try await harness.stop()
        #expect(result.code == 3, "stderr: \(result.stderr)")
        #expect(elapsed < .seconds(8))
        #expect(asked == 1)
        #expect(closed, "the hung connection stayed open")
        let ids = (result.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == ["giphy:cat1", "giphy:cat2"])
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.contains("openlibrary") == true)
        #expect(lines.first?.contains("timeout") == true)
        let outcomes = AggregationSamples.outcomes(result.json)
        #expect(outcomes["openlibrary"]?["status"] as? String == "timeout")
        #expect((outcomes["openlibrary"]?["elapsedMs"] as? Int ?? 0) >= 1900)
        #expect(outcomes["giphy"]?["status"] as? String == "ok")
    }

    @Test("a provider's timeout can come from the config file")
    func configuredTimeout() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", fault: .hang)
        let config = harness.home.appendingPathComponent("config.json")
        try Data(#"{"providers": {"openlibrary": {"timeout": 0.5}}}"#.utf8).write(to: config)
        let started = ContinuousClock.now
        let result = await harness.run(["search", "harbor", "--providers", "openlibrary"], environment: ["SEEK_CONFIG": config.path])
        let elapsed = ContinuousClock.now - started
        try await harness.stop()
        #expect(result.code == 4)
        #expect(elapsed < .seconds(5))
        #expect(result.stderr.contains("timed out after 0.5s"), "stderr: \(result.stderr)")
    }

    // MARK: One row per book

    @Test("the same book from Open Library (ISBN-10 and -13) and Aladin (isbn13) is one result with two sources")
    func openLibraryAndAladinMerge() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(AggregationSamples.openLibrary([
            AggregationSamples.olDoc(1, title: "Quiet", isbns: ["0307352145", "9780307352149"], year: 2012),
            AggregationSamples.olDoc(2, title: "Something Else", isbns: ["9780306406157"]),
        ])))
        harness.server.route(AggregationSamples.aladinPath, .json(AggregationSamples.aladin([
            AggregationSamples.aladinItem(isbn13: "9780307352149", title: "콰이어트", itemId: 11, pubDate: "2013-01-05"),
        ])))
        let result = await AggregationSamples.runWithAladin(
            harness, ["search", "quiet", "--providers", "openlibrary,aladin", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = try #require(result.json?["items"] as? [[String: Any]])
        #expect(items.count == 2)
        let quiet = try #require(items.first)
        let sources = try #require(quiet["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["provider"] as? String } == ["openlibrary", "aladin"])
        #expect(sources.compactMap { $0["id"] as? String } == ["openlibrary:OL1W", "aladin:9780307352149"])
        #expect(quiet["isbn13"] as? [String] == ["9780307352149"])
        #expect(quiet["year"] as? Int == 2012)
        let provenance = try #require(quiet["provenance"] as? [String: String])
        #expect(provenance["title"] == "openlibrary")
        #expect(provenance["year"] == "openlibrary")
    }

    @Test("a chain through two different ISBNs makes one result: A=B by one ISBN, B=C by another")
    func chainMerge() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(AggregationSamples.openLibrary([
            AggregationSamples.olDoc(1, title: "Two Editions", isbns: ["0307352145", "9780306406157"]),
        ])))
        harness.server.route(AggregationSamples.aladinPath, .json(AggregationSamples.aladin([
            AggregationSamples.aladinItem(isbn13: "9780307352149", title: "첫째", itemId: 1),
            AggregationSamples.aladinItem(isbn13: "9780306406157", title: "둘째", itemId: 2),
        ])))
        let result = await AggregationSamples.runWithAladin(
            harness, ["search", "editions", "--providers", "openlibrary,aladin", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = try #require(result.json?["items"] as? [[String: Any]])
        #expect(items.count == 1)
        let sources = (items.first?["sources"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(Set(sources ?? []) == ["openlibrary:OL1W", "aladin:9780307352149", "aladin:9780306406157"])
    }

    @Test("a mixed search interleaves GIFs and books by score")
    func mixedSearch() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(AggregationSamples.openLibrary((1...3).map {
            AggregationSamples.olDoc($0, title: "Cat book \($0)")
        })))
        harness.server.route(AggregationSamples.giphyPath, .json(AggregationSamples.giphy(["g1", "g2", "g3"])))
        let result = await harness.run(
            ["search", "cats", "--providers", "openlibrary,giphy", "--format", "json"], environment: AggregationSamples.keys)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let kinds = (result.json?["items"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
        #expect(kinds == ["book", "gif", "book", "gif", "book", "gif"])
    }

    @Test("a weight from the config file lifts that provider's results")
    func configuredWeight() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(AggregationSamples.openLibrary((1...2).map {
            AggregationSamples.olDoc($0, title: "Cat book \($0)")
        })))
        harness.server.route(AggregationSamples.giphyPath, .json(AggregationSamples.giphy(["g1", "g2"])))
        let config = harness.home.appendingPathComponent("config.json")
        try Data(#"{"providers": {"giphy": {"weight": 3}}}"#.utf8).write(to: config)
        let result = await harness.run(
            ["search", "cats", "--providers", "openlibrary,giphy", "--format", "json"],
            environment: AggregationSamples.keys.merging(["SEEK_CONFIG": config.path]) { $1 })
        try await harness.stop()
        let ids = (result.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids?.prefix(2) == ["giphy:g1", "giphy:g2"])
    }

    // MARK: Ranking

    @Test("--rank rrf scores by reciprocal rank fusion and --explain shows its terms")
    func rrfWithExplain() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(
            ["search", "harbor", "--providers", "openlibrary", "--rank", "rrf", "--explain", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let score = (result.json?["items"] as? [[String: Any]])?.first?["score"] as? Double
        #expect(abs((score ?? 0) - 1.0 / 61) < 1e-9)
        #expect(result.stderr.contains("ranking rrf"))
        #expect(result.stderr.contains("openlibrary:OL27448W  score 0.0164 = 1/(60+1)  [openlibrary#1]"), "stderr: \(result.stderr)")
    }

    @Test("--explain prints SearXNG's terms by default")
    func searxngExplain() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["search", "harbor", "--providers", "openlibrary", "--explain"])
        try await harness.stop()
        #expect(result.code == 0)
        #expect(result.stderr.contains("ranking searxng"))
        #expect(result.stderr.contains("openlibrary:OL45804W  score 0.5000 = 1 × (1) × (1/2)  [openlibrary#2]"), "stderr: \(result.stderr)")
    }

    @Test("an unknown --rank is a usage error")
    func unknownRank() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "x", "--rank", "best"])
        try await harness.stop()
        #expect(result.code == 64)
    }

    // MARK: Paging

    @Test("250 results paged 100 at a time with --cursor: every one seen once, then no next page")
    func cursorPaging() async throws {
        let harness = try await CLIHarness.start()
        AggregationSamples.serveManyWorks(harness.server, count: 250)
        var cursor: String?
        var ids: [String] = []
        var pages = 0
        repeat {
            var arguments = ["search", "harbor", "--providers", "openlibrary", "--limit", "100", "--format", "json"]
            if let cursor { arguments += ["--cursor", cursor] }
            let result = await harness.run(arguments)
            #expect(result.code == 0, "stderr: \(result.stderr)")
            let items = result.json?["items"] as? [[String: Any]] ?? []
            ids += items.compactMap { $0["id"] as? String }
            #expect(result.json?["page"] as? Int == pages + 1)
            cursor = result.json?["next"] as? String
            pages += 1
        } while cursor != nil && pages < 5
        let offsets = harness.server.requests.filter { $0.path == "/ol/search.json" }.compactMap { $0.queryValue("offset") }
        try await harness.stop()
        #expect(pages == 3)
        #expect(ids.count == 250)
        #expect(Set(ids).count == 250)
        #expect(offsets == ["0", "100", "200"])
    }

    @Test("a cursor page leaves out what an earlier page showed, even when the provider repeats it")
    func cursorDropsRepeats() async throws {
        let harness = try await CLIHarness.start()
        // A provider whose second page starts five items early.
        AggregationSamples.serveManyWorks(harness.server, count: 30, drift: 5)
        let first = await harness.run(["search", "harbor", "--providers", "openlibrary", "--limit", "10", "--format", "json"])
        let token = try #require(first.json?["next"] as? String)
        let second = await harness.run(
            ["search", "harbor", "--providers", "openlibrary", "--limit", "10", "--cursor", token, "--format", "json"])
        try await harness.stop()
        let page1 = (first.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        let page2 = (second.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(page1.count == 10)
        #expect(page2.count == 5)
        #expect(Set(page1).isDisjoint(with: page2))
    }

    @Test("--page N asks the provider for that page directly")
    func pageShortcut() async throws {
        let harness = try await CLIHarness.start()
        AggregationSamples.serveManyWorks(harness.server, count: 250)
        let result = await harness.run(["search", "harbor", "--providers", "openlibrary", "--limit", "100", "--page", "3", "--format", "json"])
        let offset = harness.server.requests.first { $0.path == "/ol/search.json" }?.queryValue("offset")
        try await harness.stop()
        #expect(offset == "200")
        #expect((result.json?["items"] as? [Any])?.count == 50)
        #expect(result.json?["page"] as? Int == 3)
        #expect(result.json?["next"] is NSNull)
    }

    @Test("a garbled --cursor is a usage error")
    func garbledCursor() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "x", "--cursor", "not-a-cursor"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("cursor"))
    }

    // MARK: Selection

    @Test("bangs select providers by id or shortcut, as SearXNG's do", arguments: [
        ("!giphy cats", ["giphy"]), ("!gif cats", ["giphy"]), ("cats !ol", ["openlibrary"]), ("!ol !gif cats", ["openlibrary", "giphy"]),
    ])
    func bangs(query: String, expected: [String]) async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        harness.server.route(AggregationSamples.giphyPath, .json(AggregationSamples.giphy(["g1"])))
        let result = await harness.run(["search", query, "--format", "json"], environment: AggregationSamples.keys)
        let asked = harness.server.requests.filter { $0.path == "/ol/search.json" || $0.path == AggregationSamples.giphyPath }
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let providers = (result.json?["providers"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(providers == expected)
        #expect(asked.count == expected.count)
        #expect(asked.allSatisfy { $0.queryValue("q") == "cats" })
    }

    @Test("an unknown bang stays part of the query")
    func unknownBang() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        _ = await harness.run(["search", "!nosuch harbor", "--providers", "openlibrary", "--format", "json"])
        let request = harness.server.requests.first { $0.path == "/ol/search.json" }
        try await harness.stop()
        #expect(request?.queryValue("q") == "!nosuch harbor")
    }

    // MARK: Streaming and CSV

    @Test("ndjson: one valid JSON line per provider as it answers, the fast one before the slow one answers, then a summary")
    func ndjsonStreams() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        // GIPHY answers two seconds after asking; the handler notes when (it runs once the delay is over).
        let slowAnswered = Moment()
        harness.server.route(AggregationSamples.giphyPath) { _ in
            slowAnswered.mark()
            return .json(AggregationSamples.giphy(["slow1"]))
        }
        harness.server.route(AggregationSamples.giphyPath, fault: .delay(.seconds(2)))
        let stdout = TimedText()
        let stderr = CapturedText()
        let context = CLIContext(
            environment: harness.environment.merging(AggregationSamples.keys) { $1 }, stdout: stdout, stderr: stderr)
        let started = ContinuousClock.now
        let code = await SeekMain.run(
            arguments: ["search", "harbor", "--providers", "openlibrary,giphy", "--format", "ndjson"], context: context)
        try await harness.stop()
        #expect(code == 0, "stderr: \(stderr.text)")
        let writes = stdout.writes
        let lines = writes.flatMap { write in write.text.split(separator: "\n").map { (write.at, String($0)) } }
        #expect(lines.count == 3)
        let objects = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.1.utf8))) as? [String: Any]
        }
        #expect(objects.count == lines.count, "every line must be one JSON object")
        #expect(objects.map { $0["type"] as? String } == ["batch", "batch", "summary"])
        #expect(objects.prefix(2).map { $0["provider"] as? String } == ["openlibrary", "giphy"])
        let fastAt = try #require(lines.first?.0), slowAt = try #require(lines.dropFirst().first?.0)
        let answeredAt = try #require(slowAnswered.value)
        #expect(fastAt < answeredAt, "the fast provider's line waited for the slow one")
        #expect(slowAt >= answeredAt)
        #expect(slowAt - started >= .seconds(2))
        #expect((objects.first?["items"] as? [[String: Any]])?.count == 2)
        let summary = try #require(objects.last)
        #expect((summary["items"] as? [Any])?.count == 3)
        #expect((summary["providers"] as? [Any])?.count == 2)
        #expect(summary["query"] as? String == "harbor")
        #expect(summary.keys.contains("next"))
    }

    @Test("csv follows RFC 4180: CRLF records, quoted fields with commas and doubled quotes")
    func csvQuoting() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json("""
            {"numFound": 1, "docs": [{"key": "/works/OL1W", "title": "Say \\"Hi\\", then go",
             "author_name": ["Ann, B.", "Carl"], "first_publish_year": 2001}]}
            """))
        let result = await harness.run(["search", "hi", "--providers", "openlibrary", "--format", "csv"])
        try await harness.stop()
        #expect(result.code == 0)
        let records = result.stdout.components(separatedBy: "\r\n")
        #expect(records.count == 3 && records.last == "")
        #expect(records.first?.hasPrefix("id,provider,kind,title,") == true)
        #expect(records.dropFirst().first?.hasPrefix(#"openlibrary:OL1W,openlibrary,book,"Say ""Hi"", then go",,"Ann, B.; Carl",2001,"#) == true,
                "csv: \(result.stdout)")
    }

    @Test("csv's last two columns are the reader's own copy: its id and formats, empty for a row the library lacks")
    func csvOwnedColumns() {
        var owned = Item(id: ItemID(provider: "openlibrary", value: "OL1W"), kind: .book, title: "Dune")
        owned.owned = OwnedCopy(id: ItemID(provider: "calibre", value: "7"), formats: ["EPUB", "PDF"])
        let other = Item(id: ItemID(provider: "openlibrary", value: "OL2W"), kind: .book, title: "Emma")
        let rows = [owned, other].map { MergedResult(item: $0, score: 1, sources: [ResultSource(provider: "openlibrary", id: $0.id, rank: 1)]) }
        let records = SearchOutput.csv(rows).components(separatedBy: "\r\n")
        #expect(records.first?.hasSuffix(",score,sources,owned,ownedFormats") == true, "\(records)")
        #expect(records.dropFirst().first?.hasSuffix(",openlibrary:OL1W,calibre:7,EPUB; PDF") == true, "\(records)")
        #expect(records.dropFirst(2).first?.hasSuffix(",openlibrary:OL2W,,") == true, "\(records)")
    }
}

/// Records each write with the moment it happened.
final class TimedText: TextSink {
    struct Write: Sendable {
        let at: ContinuousClock.Instant
        let text: String
    }

    private let buffer = NIOLockedValueBox<[Write]>([])
    func write(_ text: String) { buffer.withLockedValue { $0.append(Write(at: .now, text: text)) } }
    var writes: [Write] { buffer.withLockedValue { $0 } }
}

/// The moment something happened, set from any thread.
final class Moment: Sendable {
    private let instant = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    func mark() { instant.withLockedValue { $0 = .now } }
    var value: ContinuousClock.Instant? { instant.withLockedValue { $0 } }
}

/// The shared sample bodies, and what the CLI tests do with them.
typealias AggregationSamples = ProviderSamples

extension ProviderSamples {
    /// Runs `seek` with Aladin's key set; adds Aladin as an extra provider while the composition root lacks it.
    static func runWithAladin(_ harness: CLIHarness, _ arguments: [String]) async -> RunResult {
        let stdout = CapturedText()
        let stderr = CapturedText()
        let builtIn = CompositionRoot.builtInProviders.contains { $0.id == AladinProvider.id }
        let context = CLIContext(
            environment: harness.environment.merging(keys) { $1 }, stdout: stdout, stderr: stderr,
            extraProviders: builtIn ? [] : [AladinProvider.factory])
        let code = await SeekMain.run(arguments: arguments, context: context)
        return RunResult(code: code, stdout: stdout.text, stderr: stderr.text)
    }

    /// The `providers` entries of a search document by id.
    static func outcomes(_ json: [String: Any]?) -> [String: [String: Any]] {
        let list = json?["providers"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["id"] as? String ?? "", $0) }) { first, _ in first }
    }

    /// Polls `condition` every 20 ms for up to `limit`.
    static func eventually(within limit: Duration = .seconds(3), _ condition: () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
