import Foundation
@testable import SeekCLI
import SeekCore
import SeekKit
import SeekLoopback
import SeekRuntime
import SeekStore
import SeekTesting
import Testing

/// What a new user meets first (issue 46): a table as wide as the terminal, nothing on stdout that
/// reads as an answer when no provider answered, the `--demo` hint however often they try offline,
/// short cursors, and a demo that never shows its replay server.
@Suite("The CLI in the first ten minutes: width, offline, cursors, an honest demo")
struct FirstMinutesCLITests {
    /// No keys, and every provider pointed at a port nothing listens on.
    static let offline = [
        "SEEK_OPENLIBRARY_URL": "http://127.0.0.1:1/ol", "SEEK_OPENLIBRARY_COVERS_URL": "http://127.0.0.1:1/covers",
        "SEEK_GIPHY_URL": "http://127.0.0.1:1/giphy", "SEEK_ALADIN_URL": "http://127.0.0.1:1/aladin",
        "SEEK_CROSSREF_URL": "http://127.0.0.1:1/crossref", "SEEK_GUTENDEX_URL": "http://127.0.0.1:1/gutendex",
        "SEEK_GIPHY_API_KEY": "", "SEEK_ALADIN_TTB_KEY": "",
    ]

    /// A loopback address anywhere in `text`.
    static func loopback(in text: String) -> Bool {
        text.contains("127.0.0.1") || text.contains("localhost") || text.contains("[::1]")
    }

    // MARK: Width

    @Test("COLUMNS=200 shows the volumes' subtitles whole; without it the table keeps to 80 columns")
    func tableUsesTheWidth() async throws {
        let harness = try await CLIHarness.start()
        let wide = await harness.run(["search", "the lord of the rings", "--demo"], environment: Self.offline.merging(["COLUMNS": "200"]) { $1 })
        let narrow = await harness.run(["search", "the lord of the rings", "--demo"], environment: Self.offline)
        try await harness.stop()
        #expect(wide.code == 0, "stderr: \(wide.stderr)")
        #expect(wide.stdout.contains("The Lord of The Rings: The Return of The King"), "\(wide.stdout)")
        #expect(wide.stdout.contains("The Lord of The Rings: The Two Towers"))
        let wideLines = wide.stdout.split(separator: "\n")
        #expect(wideLines.allSatisfy { Table.displayWidth(String($0)) <= 200 })
        #expect(wideLines.contains { Table.displayWidth(String($0)) > 80 })
        #expect(narrow.code == 0)
        #expect(narrow.stdout.split(separator: "\n").allSatisfy { Table.displayWidth(String($0)) <= 80 })
        #expect(!narrow.stdout.contains("The Return of The King"))
    }

    @Test("a column narrower than its share gives the rest to the others; none is wider than its widest cell")
    func columnsShareWhatIsLeft() {
        var table = Table([.init("TITLE", share: 3), .init("CREATORS", share: 2), .init("YEAR", width: 4)])
        table.totalWidth = 120
        table.add([String(repeating: "t", count: 150), "Ann", "2001"])
        // CREATORS needs 8 (its title): TITLE takes the rest, 120 − 4 − 2 separators − 8.
        #expect(table.widths() == [106, 8, 4])
        var short = Table([.init("TITLE", share: 3), .init("CREATORS", share: 2)])
        short.totalWidth = 200
        short.add(["Dune", "Frank Herbert"])
        #expect(short.widths() == [5, 13])
        #expect(short.render().split(separator: "\n").allSatisfy { $0.count <= 19 })
    }

    @Test("COLUMNS that is not a number, or absurd, falls back within bounds", arguments: [
        ("abc", 80), ("0", 80), ("-5", 80), ("10", 40), ("100000", 1000), (" 132 ", 132),
    ])
    func columnsSetting(value: String, width: Int) {
        let context = CLIContext(environment: ["COLUMNS": value], stdout: CapturedText(), stderr: CapturedText())
        #expect(context.width == width)
    }

    @Test("the terminal's width counts when COLUMNS is unset")
    func terminalWidth() {
        let context = CLIContext(environment: [:], stdout: CapturedText(), stderr: CapturedText(), terminalColumns: 150)
        #expect(context.width == 150)
        #expect(CLIContext(environment: ["COLUMNS": "90"], stdout: CapturedText(), stderr: CapturedText(), terminalColumns: 150).width == 90)
        // A descriptor that is no terminal has no width.
        #expect(CLIContext.terminalColumns(of: -1) == nil)
    }

    // MARK: Offline

    @Test("offline, every search in a row suggests --demo (the fourth too, with the sources resting) and prints nothing on stdout")
    func offlineHintLasts() async throws {
        let harness = try await CLIHarness.start()
        var results: [RunResult] = []
        for _ in 0..<5 { results.append(await harness.run(["search", "harbor"], environment: Self.offline)) }
        try await harness.stop()
        for (index, result) in results.enumerated() {
            #expect(result.code == 4, "search \(index + 1): \(result.stderr)")
            #expect(result.stdout.isEmpty, "search \(index + 1) printed on stdout: \(result.stdout)")
            #expect(!result.stdout.contains("No results"))
            let openLibrary = result.stderr.split(separator: "\n").first { $0.contains("openlibrary") }
            #expect(openLibrary?.contains("try --demo") == true, "search \(index + 1): \(result.stderr)")
        }
        // By the fourth search Open Library rests after its failures: the hint still stands.
        #expect(results[3].stderr.contains("suspended"), "\(results[3].stderr)")
    }

    @Test("offline, trending and suggest print nothing on stdout either", arguments: [
        ["trending", "--providers", "openlibrary,giphy,aladin"], ["suggest", "harb", "--providers", "openlibrary,giphy,aladin"],
    ])
    func offlineTrendingAndSuggest(arguments: [String]) async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(arguments, environment: Self.offline.merging(["SEEK_GIPHY_API_KEY": "k", "SEEK_ALADIN_TTB_KEY": "k"]) { $1 })
        try await harness.stop()
        #expect(result.code == 4, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        // One line a provider, each naming it: the failures are all there is to say.
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 3 && lines.allSatisfy { $0.hasPrefix("seek: ") }, "\(result.stderr)")
    }

    @Test("a source answering with an error and another resting is no reason to suggest --demo")
    func restingAfterServerErrorsNoHint() {
        let context = CLIContext(environment: [:], stdout: CapturedText(), stderr: CapturedText())
        let stderr = CapturedText()
        var quiet = context
        quiet.stderr = stderr
        OutcomeReport.printFailures([
            ProviderOutcome(provider: "openlibrary", status: .suspended, count: 0, elapsed: .zero,
                            error: SeekError(.suspended(until: Date()), provider: "openlibrary", detail: "3 failures in a row, last: HTTP 500")),
        ], context: quiet)
        #expect(!stderr.text.contains("--demo"), "\(stderr.text)")
        #expect(OutcomeReport.isNetworkFailure(SeekError(.suspended(until: Date()), detail: "3 failures in a row, last: network error")))
        #expect(OutcomeReport.isNetworkFailure(SeekError(.suspended(until: Date()), detail: "network error; cleared by a reset")))
        #expect(!OutcomeReport.isNetworkFailure(SeekError(.suspended(until: Date()), detail: "rate limited")))
    }

    @Test("providers that answered with nothing still say No results. on stdout")
    func answeredEmpty() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(OpenLibrarySamples.emptySearch))
        let result = await harness.run(["search", "zzzz", "--providers", "openlibrary"])
        try await harness.stop()
        #expect(result.code == 0)
        #expect(result.stdout == "No results.\n")
    }

    // MARK: Cursors

    @Test("the next page's cursor is a short token that a later run reads, in the table's hint and in JSON")
    func shortCursor() async throws {
        let harness = try await CLIHarness.start()
        AggregationSamples.serveManyWorks(harness.server, count: 30)
        let table = await harness.run(["search", "harbor", "--providers", "openlibrary", "--limit", "10"])
        let json = await harness.run(["search", "harbor", "--providers", "openlibrary", "--limit", "10", "--format", "json"])
        let hinted = table.stderr.split(separator: "\n").first { $0.hasPrefix("More: --cursor ") }.map { String($0.dropFirst("More: --cursor ".count)) }
        let token = try #require(json.json?["next"] as? String)
        let fromHint = try #require(hinted, "stderr: \(table.stderr)")
        let second = await harness.run(["search", "harbor", "--providers", "openlibrary", "--limit", "10", "--cursor", fromHint, "--format", "json"])
        try await harness.stop()
        #expect(token.count <= 40, "\(token)")
        #expect(fromHint.count <= 40, "\(fromHint)")
        #expect(second.code == 0, "stderr: \(second.stderr)")
        #expect(second.json?["page"] as? Int == 2)
        let first = (json.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        let next = (second.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(next.count == 10)
        #expect(Set(first).isDisjoint(with: next))
    }

    @Test("a short token no search handed out is refused as a usage error", arguments: [
        "AAAAAAAAAAAAAAAAAAAAAA", "zzzzzzzzzzzzzzzzzzzzz_", "abc",
    ])
    func forgedShortToken(token: String) async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "harbor", "--providers", "openlibrary", "--cursor", token])
        try await harness.stop()
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("cursor"))
        #expect(harness.server.requests.isEmpty)
    }

    // MARK: An honest demo

    @Test("demo output links to the provider's real pages and holds no loopback URL, in any format", arguments: [
        ["search", "the lord of the rings", "--demo", "--format", "json"],
        ["search", "capitalism and freedom", "--demo", "--format", "csv"],
        ["search", "위대한 이야기", "--demo", "--format", "ndjson"],
        ["search", "cats", "--demo", "--format", "json"],
        ["detail", "openlibrary:OL27516W", "--demo"],
        ["detail", "openlibrary:OL27516W", "--demo", "--format", "json"],
        ["detail", "openlibrary:OL45804W", "--demo", "--format", "json"],
        ["trending", "--demo", "--format", "json"],
    ])
    func demoNeverShowsTheReplayServer(arguments: [String]) async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(arguments, environment: Self.offline)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(!result.stdout.isEmpty)
        #expect(!Self.loopback(in: result.stdout), "\(result.stdout)")
        #expect(!Self.loopback(in: result.stderr), "\(result.stderr)")
        if arguments.contains("openlibrary:OL27516W") || arguments.contains("the lord of the rings") {
            #expect(result.stdout.contains("https://openlibrary.org/works/OL27516W"), "\(result.stdout)")
        }
    }

    @Test("a demo detail built from a search answer says so in its note, not in its description")
    func synthesisedDetailHasANote() async throws {
        let harness = try await CLIHarness.start()
        let built = await harness.run(["detail", "openlibrary:OL27516W", "--demo", "--format", "json"], environment: Self.offline)
        let recorded = await harness.run(["detail", "openlibrary:OL45804W", "--demo", "--format", "json"], environment: Self.offline)
        let table = await harness.run(["detail", "openlibrary:OL27516W", "--demo"], environment: Self.offline)
        try await harness.stop()
        #expect(built.json?["note"] as? String == ProviderDemo.synthesisNote)
        #expect(built.json?["description"] is NSNull, "\(built.stdout)")
        #expect(!built.stdout.contains(ProviderDemo.synthesisNotice))
        #expect(recorded.json?["note"] is NSNull)
        #expect((recorded.json?["description"] as? String)?.isEmpty == false)
        #expect(table.stdout.contains("Note"))
        #expect(table.stdout.contains(ProviderDemo.synthesisNote))
    }

    @Test("seek image --demo writes the cover Seek draws, for every built-in source, and fetches nothing", arguments: [
        "openlibrary:OL27516W", "openlibrary:OL45804W", "aladin:9791130605210",
    ])
    func demoImage(id: String) async throws {
        let harness = try await CLIHarness.start()
        let file = harness.home.appendingPathComponent("cover").path
        let result = await harness.run(["image", id, "--demo", "-o", file], environment: Self.offline)
        let written = FileManager.default.contents(atPath: file) ?? Data()
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(String(decoding: written.prefix(200), as: UTF8.self).contains("<svg"), "\(written.count) bytes")
        #expect(!Self.loopback(in: result.stderr), "\(result.stderr)")
    }

    @Test("a detail's note is lifted from a demo description, and only from one")
    func liftedNote() {
        let item = Item(id: ItemID(provider: "x", value: "1"), kind: .book, title: "T")
        let built = ProviderDemo.lifted(ItemDetail(item: item, description: ProviderDemo.noted("The recorded blurb.")))
        #expect(built.note == ProviderDemo.synthesisNote)
        #expect(built.description == "The recorded blurb.")
        let bare = ProviderDemo.lifted(ItemDetail(item: item, description: ProviderDemo.synthesisNotice))
        #expect(bare.note == ProviderDemo.synthesisNote)
        #expect(bare.description == nil)
        let real = ProviderDemo.lifted(ItemDetail(item: item, description: "A book about demo: built things."))
        #expect(real.note == nil)
        #expect(real.description == "A book about demo: built things.")
    }

    @Test("every sample query the demo offers answers with recorded results of its provider")
    func sampleQueriesAnswer() async throws {
        let demo = try await DemoMode.start()
        let samples = demo.sampleQueries
        await demo.shutdown()
        #expect(Set(samples.map(\.provider)).isSuperset(of: ["openlibrary", "giphy", "aladin"]))
        #expect(samples.contains { $0 == ("openlibrary", "the lord of the rings") })
        let harness = try await CLIHarness.start()
        for (provider, query) in samples {
            let result = await harness.run(["search", query, "--providers", provider, "--demo", "--format", "json"], environment: Self.offline)
            let items = result.json?["items"] as? [[String: Any]] ?? []
            #expect(result.code == 0, "\(provider) \(query): \(result.stderr)")
            #expect(!items.isEmpty, "\(provider) answers nothing to \(query)")
        }
        try await harness.stop()
    }

    @Test("demo searches go to a demo history, apart from the real one, and never to a shared database")
    func demoStateApart() async throws {
        let harness = try await CLIHarness.start()
        let environment = Self.offline.merging(["SEEK_DATABASE_URL": "postgres://nobody@127.0.0.1:1/seek"]) { $1 }
        let search = await harness.run(["search", "capitalism and freedom", "--demo"], environment: environment)
        let demoFolder = harness.home.appendingPathComponent("data").appendingPathComponent(DemoMode.stateFolder)
        let demoHistory = await harness.run(["history", "--format", "json"], environment: Self.offline.merging(["SEEK_DATA_DIR": demoFolder.path]) { $1 })
        let realHistory = await harness.run(["history", "--format", "json"], environment: Self.offline)
        let demoDatabase = FileManager.default.fileExists(atPath: demoFolder.appendingPathComponent(SeekDatabase.fileName).path)
        try await harness.stop()
        #expect(search.code == 0, "stderr: \(search.stderr)")
        #expect(!search.stderr.contains("history"), "\(search.stderr)")
        #expect(demoDatabase, "no demo database in \(demoFolder.path)")
        #expect(demoHistory.stdout.contains("capitalism and freedom"), "\(demoHistory.stdout) \(demoHistory.stderr)")
        #expect(realHistory.code == 0)
        #expect(!realHistory.stdout.contains("capitalism"), "\(realHistory.stdout)")
    }

    @Test("a demo session names its server demo: in errors and endpoints, for every host, not its loopback address")
    func demoSessionMasksItsServer() async throws {
        let harness = try await CLIHarness.start()
        let demo = try await DemoMode.start()
        let session = try await SeekSession.open(settings: demo.applied(to: Settings(environment: harness.environment.merging(Self.offline) { $1 })))
        let missing = try await session.engine.detailAnswer(ItemID(provider: "giphy", value: "nosuchgif"))
        let providers = await session.providerDocuments()
        await session.close()
        await demo.shutdown()
        try await harness.stop()
        let cause = try #require(missing.outcome { _ in 1 }.error?.cause)
        #expect(!Self.loopback(in: cause), "\(cause)")
        #expect(cause.contains("demo:/giphy"), "\(cause)")
        #expect(providers.allSatisfy { !Self.loopback(in: $0.endpoint) }, "\(providers.map(\.endpoint))")
        #expect(providers.contains { $0.endpoint.hasPrefix("demo:/openlibrary") })
    }

    @Test("demo settings move the state folders under demo/ and drop a shared database from the file too")
    func demoSettings() async throws {
        let demo = try await DemoMode.start()
        let settings = Settings(
            environment: ["SEEK_DATA_DIR": "/d", "SEEK_CACHE_DIR": "/c", "SEEK_DATABASE_URL": "postgres://x@h/db"],
            file: .object(["SEEK_DATABASE_URL": .string("postgres://y@h/db"), "SEEK_HISTORY": .string("on")]))
        let applied = demo.applied(to: settings)
        await demo.shutdown()
        #expect(applied.dataDirectory.path == "/d/demo")
        #expect(applied.cacheDirectory.path == "/c/demo")
        #expect(applied.string("SEEK_DATABASE_URL") == nil)
        #expect(applied.string("SEEK_HISTORY") == "on")
    }
}
