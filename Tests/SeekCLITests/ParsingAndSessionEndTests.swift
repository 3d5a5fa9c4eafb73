import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
@testable import SeekCLI
import SeekCore
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekStore
import SeekTesting
import Testing

/// How a command line becomes a command, and how a command's session ends.
@Suite("Parsing and the session's end")
struct ParsingAndSessionEndTests {
    // MARK: Parsing

    @Test("a subcommand named first parses with its options")
    func subcommandParse() throws {
        let command = try SeekCommand.parseAsRoot(["search", "harbor", "--limit", "5", "--format", "json"])
        let search = try #require(command as? SearchCommand)
        #expect(search.query == "harbor")
        #expect(search.limit == 5)
        #expect(search.format == .json)
    }

    @Test("search's --limit, --format and --rank default to 20, table and searxng, and the help says so")
    func searchDefaults() async throws {
        let command = try SeekCommand.parseAsRoot(["search", "harbor"])
        let search = try #require(command as? SearchCommand)
        #expect(search.limit == 20)
        #expect(search.format == .table)
        #expect(search.rank == .searxng)
        let help = SearchCommand.helpMessage(columns: 200)
        #expect(help.contains("Results per provider (1–100). (default: 20)"))
        #expect(help.contains("default: table)"))
        #expect(help.contains("default: searxng)"))
    }

    @Test("a subcommand's usage error names `seek search` and its own help")
    func subcommandErrors() async throws {
        let harness = try await CLIHarness.start()
        let missing = await harness.run(["search"])
        let unknown = await harness.run(["search", "harbor", "--bogus"])
        try await harness.stop()
        #expect(missing.code == 64)
        #expect(missing.stderr.contains("Missing expected argument '<query>'"))
        #expect(missing.stderr.contains("Usage: seek search [<options>] <query>"))
        #expect(unknown.stderr.contains("Unknown option '--bogus'"))
        #expect(unknown.stderr.contains("See 'seek search --help'"))
    }

    @Test("--help after a subcommand prints the same help as `seek help search`")
    func subcommandHelp() async throws {
        let harness = try await CLIHarness.start()
        let flag = await harness.run(["search", "--help"])
        let command = await harness.run(["help", "search"])
        try await harness.stop()
        #expect(flag.code == 0)
        #expect(flag.stdout.contains("USAGE: seek search [<options>] <query>"))
        #expect(flag.stdout == command.stdout)
    }

    @Test("the environment read from environ holds every variable, each with the value getenv reads")
    func processEnvironment() {
        let environment = CLIContext.processEnvironment()
        #expect(environment["PATH"] != nil || environment["HOME"] != nil, "no PATH or HOME read: \(environment.keys.sorted())")
        for (name, value) in environment {
            #expect(getenv(name).map { String(cString: $0) } == value, "\(name)")
        }
        #expect(environment == ProcessInfo.processInfo.environment)
    }

    // MARK: History

    @Test("a slow search is recorded in the history once, with every provider, after the answer")
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

    @Test("a run closes its session completely: the history is written and the database checkpointed")
    func runClosesItsSession() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let code = await SeekMain.run(
            arguments: ["search", "harbor", "--providers", "openlibrary"],
            context: CLIContext(environment: harness.environment, stdout: CapturedText(), stderr: CapturedText()))
        let dataDirectory = try #require(harness.environment["SEEK_DATA_DIR"])
        let wal = URL(fileURLWithPath: dataDirectory).appendingPathComponent("seek.sqlite-wal")
        // Closing the last connection checkpoints the WAL into the database file: nothing is left in it.
        let walLeft = ((try? wal.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) > 0
        let history = await harness.run(["history", "--format", "json"])
        try await harness.stop()
        #expect(code == 0)
        #expect(!walLeft)
        let entries = try #require(history.json?["entries"] as? [[String: Any]])
        #expect(entries.first?["query"] as? String == "harbor")
    }
}
