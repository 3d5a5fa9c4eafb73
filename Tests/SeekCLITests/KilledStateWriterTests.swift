import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekResilience
import SeekTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("A state file writer killed mid-way", .enabled(if: SeekBinary.url != nil, "the seek executable was not built"))
struct KilledStateWriterTests {
    /// Kill rounds: each starts a fresh `seek` and SIGKILLs it at a random moment of its writes.
    static let rounds = 200
    /// Lookups each `seek` makes, all failing: fewer than the breaker's threshold (100), so it never
    /// opens and every lookup is one more breaker write.
    static let lookups = 60

    /// What one round saw.
    struct Round: Sendable {
        var served: Int
        var killedRunning: Bool
        var bytes: Data?
    }

    @Test("seek SIGKILLed at random moments of its breaker writes, 200 times, leaves a whole state each time, old or new")
    func killedBreakerWriter() async throws {
        let executable = try #require(SeekBinary.url)
        let harness = try await CLIHarness.start()
        // Every work lookup fails with a 503: one more failure written to the breaker file each time.
        harness.server.route("/ol/works/*", FixtureResponse(status: 503, body: Array(#"{"error": "unavailable"}"#.utf8)))
        let config = harness.home.appendingPathComponent("config/seek")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data(#"{"providers": {"openlibrary": {"retries": 0, "breaker": {"failures": 100}}}}"#.utf8)
            .write(to: config.appendingPathComponent("config.json"))
        // `<cache dir>/breakers/<id>@<host>.json`, as the CLI names it.
        let host = try #require(harness.server.url("/ol").host?.lowercased())
        let breakers = harness.home.appendingPathComponent("cache/breakers")
        let url = breakers.appendingPathComponent("openlibrary@\(host).json")
        let stateFile = LockedStateFile(url: url, empty: BreakerState())
        let environment = harness.environment.merging(["SEEK_NO_CACHE": "1", "PATH": "/usr/bin:/bin"]) { $1 }
        let arguments = ["favorites", "add"] + (1...Self.lookups).map { "openlibrary:OL\($0)W" }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let started = Date()

        var advanced = 0
        var killedRunning = 0
        for round in 0..<Self.rounds {
            // The old state of this round, named after it and growing with it, so a state from another
            // round or a mixture of two would show.
            let seed = BreakerState(reason: "round \(round) " + String(repeating: "x", count: round % 40))
            stateFile.update { $0 = seed }
            let server = harness.server
            let outcome = try await offThePool {
                try Self.killRound(executable, arguments: arguments, environment: environment, server: server, url: url)
            }
            if outcome.killedRunning { killedRunning += 1 }
            let bytes = try #require(outcome.bytes, "round \(round): the breaker file is gone")
            try #require(!bytes.isEmpty, "round \(round): the breaker file is empty")
            let state: BreakerState
            do {
                state = try decoder.decode(BreakerState.self, from: bytes)
            } catch {
                Issue.record("round \(round): the breaker file does not decode: \(String(decoding: bytes, as: UTF8.self))")
                break
            }
            // The seed, or the seed after 1…served failures; never anything else.
            #expect(state.reason == seed.reason, "round \(round): \(state)")
            #expect(state.openUntil == nil && state.probeStartedAt == nil, "round \(round): \(state)")
            #expect((0...outcome.served).contains(state.consecutiveFailures), "round \(round): \(state), \(outcome.served) served")
            if state.consecutiveFailures == 0 {
                #expect(state == seed, "round \(round): \(state)")
            } else {
                advanced += 1
                let at = try #require(state.lastFailureAt, "round \(round): \(state)")
                #expect(at >= started && at <= Date(), "round \(round): \(state)")
            }
        }
        // Most rounds must have been cut off while running, and enough of them among the writes (how
        // many get that far depends on the machine's load: a busy machine starts the children slower).
        #expect(killedRunning >= Self.rounds * 3 / 4, "only \(killedRunning) of \(Self.rounds) writers were still running")
        #expect(advanced >= Self.rounds / 10, "only \(advanced) of \(Self.rounds) rounds got to write")

        // The next writer, left to finish, writes every failure on top of the last state.
        let finalSeed = BreakerState(reason: "final")
        stateFile.update { $0 = finalSeed }
        let finished = try await offThePool {
            try SeekBinary.run(["favorites", "add", "openlibrary:OL1W", "openlibrary:OL2W", "openlibrary:OL3W"], environment: environment)
        }
        let last = stateFile.read()
        let names = try FileManager.default.contentsOfDirectory(atPath: breakers.path).sorted()
        try await harness.stop()
        #expect(finished.code != 0, "the lookups were to fail")
        #expect(last.reason == "final" && last.consecutiveFailures == 3, "\(last)")
        #expect(names == [".\(url.lastPathComponent).lock", url.lastPathComponent], "leftovers: \(names)")
        print("KilledStateWriterTests: \(Self.rounds) rounds, \(killedRunning) killed while running, \(advanced) with new states")
    }

    /// Starts `seek`, waits for its first request to reach `server`, SIGKILLs it 0–20 ms later and
    /// returns what the state file at `url` holds then. Blocks: call it off the cooperative pool.
    static func killRound(
        _ executable: URL, arguments: [String], environment: [String: String], server: FixtureServer, url: URL
    ) throws -> Round {
        let before = server.totalRequestCount
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while server.totalRequestCount == before, process.isRunning, Date() < deadline { usleep(200) }
        usleep(UInt32.random(in: 0...20_000))
        let killedRunning = process.isRunning
        if killedRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return Round(served: server.totalRequestCount - before, killedRunning: killedRunning, bytes: try? Data(contentsOf: url))
    }
}
