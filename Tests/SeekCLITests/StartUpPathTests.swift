import ArgumentParser
import Foundation
@testable import SeekCLI
import SeekCore
import SeekStore
import SeekTesting
import Testing

/// What a search does to start and finish fast: the short parse path, work done while the providers
/// answer, and the history recorded early.
@Suite("Start-up and wind-down of a search")
struct StartUpPathTests {
    // MARK: Parsing

    @Test("a provider command named first parses as its own root, with its options")
    func routedParse() throws {
        let command = try SeekCommand.parse(commandLine: ["search", "harbor", "--limit", "5", "--format", "json"])
        let search = try #require(command as? SearchCommand)
        #expect(search.query == "harbor")
        #expect(search.resultsPerProvider == 5)
        #expect(search.outputFormat == .json)
        #expect(SeekCommand.providerCommand(["search", "x"]) != nil)
        #expect(SeekCommand.providerCommand(["history"]) == nil)
        #expect(SeekCommand.providerCommand([]) == nil)
    }

    @Test("search's --limit, --format and --rank default to 20, table and searxng, and the help says so")
    func searchDefaults() async throws {
        let command = try SeekCommand.parse(commandLine: ["search", "harbor"])
        let search = try #require(command as? SearchCommand)
        #expect(search.resultsPerProvider == 20)
        #expect(search.outputFormat == .table)
        #expect(search.ranking == .searxng)
        #expect(throws: (any Error).self) { try SeekCommand.parse(commandLine: ["search", "harbor", "--limit", "0"]) }
        let help = SearchCommand.helpMessage(columns: 200)
        #expect(help.contains("Results per provider (1–100). (default: 20)"))
        #expect(help.contains("(default: table)"))
        #expect(help.contains("searxng (|P| × Πw × Σ 1/p, the default)"))
    }

    @Test("a routed command's usage error reads as the whole tree's: seek search, with the right help hint")
    func routedErrors() async throws {
        let harness = try await CLIHarness.start()
        let missing = await harness.run(["search"])
        let unknown = await harness.run(["search", "harbor", "--bogus"])
        try await harness.stop()
        #expect(missing.code == 64)
        #expect(missing.stderr.contains("Missing expected argument '<query>'"))
        #expect(missing.stderr.contains("Usage: seek search <query>"))
        #expect(unknown.stderr.contains("Unknown option '--bogus'"))
        #expect(unknown.stderr.contains("See 'seek search --help'"))
    }

    @Test("--help after a provider command prints the same help as `seek help search`")
    func routedHelp() async throws {
        let harness = try await CLIHarness.start()
        let flag = await harness.run(["search", "--help"])
        let command = await harness.run(["help", "search"])
        try await harness.stop()
        #expect(flag.code == 0)
        #expect(flag.stdout.contains("USAGE: seek search <query>"))
        #expect(flag.stdout == command.stdout)
    }

    @Test("the environment read from environ is the one ProcessInfo reports")
    func processEnvironment() {
        #expect(CLIContext.processEnvironment() == ProcessInfo.processInfo.environment)
    }

    // MARK: Work while the providers answer

    @Test("work scheduled for while the providers answer runs after the delay")
    func backgroundWorkRuns() async {
        let ran = Locked(false)
        await WhileProvidersAnswer.run { ran.withLock { $0 = true } }.value
        #expect(ran.withLock { $0 })
    }

    @Test("work cancelled before the delay is over never runs")
    func backgroundWorkCancelled() async {
        let ran = Locked(false)
        let task = WhileProvidersAnswer.run { ran.withLock { $0 = true } }
        task.cancel()
        await task.value
        #expect(!ran.withLock { $0 })
    }

    @Test("the output rehearsal merges its two sample books, which share an ISBN, into one row with two sources")
    func rehearsalMergesAndPrints() throws {
        let stdout = CapturedText()
        OutputRehearsal.run(
            format: .json, ranking: .searxng, into: CLIContext(environment: [:], stdout: stdout, stderr: CapturedText()))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(stdout.text.utf8)) as? [String: Any])
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect((items.first?["sources"] as? [Any])?.count == 2)
        #expect(document["next"] is String)
    }

    // MARK: The history

    @Test("a search is taken for the history once, with providers in registry order, until another provider joins")
    func searchLogTakesChangesOnce() {
        let log = SearchLog()
        #expect(log.note(query: "harbor", provider: "aladin", position: 2))
        #expect(!log.note(query: "harbor", provider: "openlibrary", position: 0))
        let first = log.unrecorded()
        #expect(first.map(\.entry.providers) == [["openlibrary", "aladin"]])
        #expect(log.unrecorded().isEmpty)
        log.note(query: "harbor", provider: "giphy", position: 1)
        #expect(log.unrecorded().map(\.entry.providers) == [["openlibrary", "giphy", "aladin"]])
        #expect(log.unrecorded().isEmpty)
    }

    @Test("a search whose recording failed is taken again, unless it changed meanwhile")
    func searchLogPutsBackFailures() throws {
        let log = SearchLog()
        log.note(query: "harbor", provider: "openlibrary", position: 0)
        let taken = try #require(log.unrecorded().first)
        log.markUnrecorded(taken)
        let again = try #require(log.unrecorded().first)
        #expect(again.entry.providers == ["openlibrary"])
        log.note(query: "harbor", provider: "giphy", position: 1)
        log.markUnrecorded(again)  // stale: the newer version is pending anyway
        #expect(log.unrecorded().map(\.entry.providers) == [["openlibrary", "giphy"]])
    }

    @Test("a slow search is recorded in the history once, with every provider, before and after the early pass")
    func slowSearchRecordedOnce() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        // Open Library answers after the early recording has run; Aladin is asked too.
        harness.server.route("/ol/search.json", fault: .delay(.milliseconds(150)))
        harness.server.route(AggregationSamples.aladinPath, .json(AggregationSamples.aladin([
            AggregationSamples.aladinItem(isbn13: "9791130605210", title: "항구", itemId: 7),
        ])))
        let search = await harness.run(
            ["search", "harbor", "--providers", "openlibrary,aladin"], environment: AggregationSamples.keys)
        let history = await harness.run(["history", "--format", "json"])
        try await harness.stop()
        #expect(search.code == 0)
        let entries = try #require(history.json?["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["query"] as? String == "harbor")
        #expect(entries.first?["providers"] as? [String] == ["openlibrary", "aladin"])
    }

    // MARK: The end of a process

    @Test("a run that ends the process records its search, then hands its session over with the connections open")
    func processRunLeavesTeardownToTheKernel() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let lifetime = ProcessLifetime()
        let context = CLIContext(
            environment: harness.environment, stdout: CapturedText(), stderr: CapturedText(), processLifetime: lifetime)
        let code = await SeekMain.run(arguments: ["search", "harbor", "--providers", "openlibrary"], context: context)
        let history = await harness.run(["history", "--format", "json"])
        let sessions = lifetime.kept.compactMap { $0 as? Session }
        // The connections were left open: the session's transport still answers.
        let answer = try await sessions.first?.transport.send(
            HTTPRequest(url: harness.server.url("/ol/search.json?q=harbor"), timeout: .seconds(5), maxBodyBytes: 1 << 20))
        for session in sessions { try await session.transport.shutdown() }
        try await harness.stop()
        #expect(code == 0)
        #expect(sessions.count == 1)
        #expect(answer?.status == 200)
        let entries = try #require(history.json?["entries"] as? [[String: Any]])
        #expect(entries.first?["query"] as? String == "harbor")
    }
}
