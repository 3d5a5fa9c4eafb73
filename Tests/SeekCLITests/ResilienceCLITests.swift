import AladinProvider
import Foundation
import NIOConcurrencyHelpers
import SeekCLI
import SeekKit
import SeekCore
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

/// A provider's search endpoint on the harness, with a valid empty answer and a key.
struct ResilienceTarget: Sendable, CustomTestStringConvertible {
    let id: String
    let path: String
    let okBody: String
    let environment: [String: String]

    var testDescription: String { id }

    /// Aladin is added as an extra provider while the composition root does not register it yet.
    var extraProviders: [ProviderFactory] {
        id == "aladin" && !CompositionRoot.builtInProviders.contains { $0.id == "aladin" } ? [AladinProvider.factory] : []
    }

    static let openLibrary = ResilienceTarget(id: "openlibrary", path: "/ol/search.json", okBody: OpenLibrarySamples.search, environment: [:])
    static let giphy = ResilienceTarget(
        id: "giphy", path: "/giphy/v1/gifs/search",
        okBody: #"{"data": [], "pagination": {"total_count": 0, "count": 0, "offset": 0}, "meta": {"status": 200, "msg": "OK", "response_id": "r1"}}"#,
        environment: ["SEEK_GIPHY_API_KEY": "gphSECRETkey7f3a9"])
    static let aladin = ResilienceTarget(
        id: "aladin", path: "/aladin/ttb/api/ItemSearch.aspx",
        okBody: #"{"version": "20131101", "totalResults": 0, "startIndex": 1, "itemsPerPage": 10, "query": "harbor", "item": []}"#,
        environment: ["SEEK_ALADIN_TTB_KEY": "ttbSECRETaladin42"])

    static let all: [ResilienceTarget] = [openLibrary, giphy, aladin]
}

/// The status `seek search --format json` reported for the first provider.
private func status(_ result: RunResult) -> String? {
    ((result.json?["providers"] as? [[String: Any]])?.first)?["status"] as? String
}

private func providerDocument(_ result: RunResult, _ id: String) -> [String: Any]? {
    (result.json?["providers"] as? [[String: Any]])?.first { $0["id"] as? String == id }
}

/// Runs blocking work (waiting for child processes) on a thread of its own, not on the cooperative pool,
/// so tests running meanwhile keep their threads.

/// Runs `seek` with the response cache bypassed, so every search reaches the provider.
private func runFresh(
    _ harness: CLIHarness, _ arguments: [String], environment: [String: String] = [:], extraProviders: [ProviderFactory] = []
) async -> RunResult {
    await harness.run(arguments, environment: environment.merging(["SEEK_NO_CACHE": "1"]) { $1 }, extraProviders: extraProviders)
}

/// Writes `text` as the harness's config file (`$XDG_CONFIG_HOME/seek/config.json`).
private func writeConfig(_ harness: CLIHarness, _ text: String) throws {
    let directory = harness.home.appendingPathComponent("config/seek")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: directory.appendingPathComponent("config.json"))
}

@Suite("Resilience through the CLI")
struct ResilienceCLITests {
    @Test("a 429 with Retry-After: 30 suspends the provider for the next run, which does not call it; --reset clears it",
          arguments: ResilienceTarget.all)
    func retryAfterSuspends(target: ResilienceTarget) async throws {
        let harness = try await CLIHarness.start()
        harness.server.route(target.path, fault: .status(429, body: #"{"message": "slow down"}"#, headers: [("Retry-After", "30")]))
        let search = ["search", "harbor", "--providers", target.id, "--format", "json"]

        let first = await runFresh(harness, search, environment: target.environment, extraProviders: target.extraProviders)
        #expect(first.code == 4)
        #expect(status(first) == "rateLimited")
        #expect(harness.server.requestCount(path: target.path) == 1)

        let second = await runFresh(harness, search, environment: target.environment, extraProviders: target.extraProviders)
        #expect(second.code == 4)
        #expect(status(second) == "suspended")
        #expect(harness.server.requestCount(path: target.path) == 1, "a suspended provider must not be called")
        let line = second.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("seek: \(target.id): suspended: suspended until "), "stderr: \(second.stderr)")
        #expect(line.contains("--reset \(target.id)"))

        let listed = await runFresh(harness, ["providers", "--format", "json"], environment: target.environment, extraProviders: target.extraProviders)
        let document = providerDocument(listed, target.id)
        #expect(document?["status"] as? String == "suspended")
        let until = try #require((document?["suspendedUntil"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        #expect(abs(until.timeIntervalSinceNow - 30) < 5)
        let table = await runFresh(harness, ["providers"], environment: target.environment, extraProviders: target.extraProviders)
        #expect(table.stdout.contains("\(target.id): suspended until "))

        let reset = await runFresh(harness, ["providers", "--reset", target.id], environment: target.environment, extraProviders: target.extraProviders)
        #expect(reset.code == 0)
        #expect(reset.stdout.contains("cool-down cleared"))

        harness.server.route(target.path, .json(target.okBody))
        let third = await runFresh(harness, search, environment: target.environment, extraProviders: target.extraProviders)
        try await harness.stop()
        #expect(third.code == 0, "stderr: \(third.stderr)")
        #expect(harness.server.requestCount(path: target.path) == 2)
    }

    @Test("three consecutive 503s open the breaker; after the backoff one probe call closes it")
    func breakerOpensAndCloses() async throws {
        let harness = try await CLIHarness.start()
        try writeConfig(harness, #"{"providers": {"openlibrary": {"retries": 0, "breaker": {"failures": 3, "backoff": 1}}}}"#)
        harness.server.route("/ol/search.json", fault: .status(503))
        let search = ["search", "harbor", "--providers", "openlibrary", "--format", "json"]
        for run in 1...3 {
            let result = await runFresh(harness, search)
            #expect(status(result) == "error", "run \(run): \(result.stderr)")
        }
        #expect(harness.server.requestCount(path: "/ol/search.json") == 3)
        let refused = await runFresh(harness, search)
        #expect(status(refused) == "suspended")
        #expect(refused.code == 4)
        #expect(harness.server.requestCount(path: "/ol/search.json") == 3)

        harness.server.route("/ol/search.json", .json(OpenLibrarySamples.search))
        try await Task.sleep(for: .milliseconds(1200))
        let probe = await runFresh(harness, search)
        #expect(status(probe) == "ok", "stderr: \(probe.stderr)")
        #expect(harness.server.requestCount(path: "/ol/search.json") == 4)
        let listed = await runFresh(harness, ["providers", "--format", "json"])
        try await harness.stop()
        #expect(providerDocument(listed, "openlibrary")?["status"] as? String == "ready")
    }

    @Test("seek stats --format json shows calls, success rate and p50/p95 per provider after a few searches")
    func statsAfterSearches() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        for _ in 0..<3 {
            let result = await runFresh(harness, ["search", "harbor", "--providers", "openlibrary"])
            #expect(result.code == 0)
        }
        harness.server.route("/ol/search.json", fault: .status(500))
        _ = await runFresh(harness, ["search", "harbor", "--providers", "openlibrary"])
        let stats = await runFresh(harness, ["stats", "--format", "json"])
        let table = await runFresh(harness, ["stats"])
        try await harness.stop()
        #expect(stats.code == 0)
        let document = try #require(providerDocument(stats, "openlibrary"))
        #expect(document["calls"] as? Int == 4)
        #expect(document["successRate"] as? Double == 0.75)
        let p50 = try #require(document["p50Ms"] as? Int)
        let p95 = try #require(document["p95Ms"] as? Int)
        #expect(p50 >= 0 && p95 >= p50)
        #expect((document["lastError"] as? String)?.contains("HTTP 500") == true)
        #expect(document["state"] as? String == "ready")
        #expect(providerDocument(stats, "giphy")?["calls"] as? Int == 0)
        #expect(table.stdout.contains("openlibrary 4"))
        #expect(table.stdout.contains("75"))
    }

    @Test("--reset of an unknown provider is a usage error")
    func resetUnknown() async throws {
        let harness = try await CLIHarness.start()
        let result = await runFresh(harness, ["providers", "--reset", "nosuch"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("unknown provider 'nosuch'"))
    }

    @Test("a rate limit that does not parse is a configuration error naming the variable")
    func badRateLimit() async throws {
        let harness = try await CLIHarness.start()
        let result = await runFresh(harness, ["providers"], environment: ["SEEK_OPENLIBRARY_RATE_LIMIT": "lots"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("SEEK_OPENLIBRARY_RATE_LIMIT"))
    }

    @Test("seek's own rate limit refusing a request is reported as rateLimited and does not suspend the provider")
    func localLimitIsNotAFailure() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let environment = ["SEEK_OPENLIBRARY_RATE_LIMIT": "1/h"]
        let search = ["search", "harbor", "--providers", "openlibrary", "--format", "json"]
        let first = await runFresh(harness, search, environment: environment)
        #expect(status(first) == "ok")
        for _ in 0..<4 {
            let refused = await runFresh(harness, search, environment: environment)
            #expect(status(refused) == "rateLimited")
            #expect(refused.stderr.contains("seek's own limit"))
        }
        let listed = await runFresh(harness, ["providers", "--format", "json"], environment: environment)
        try await harness.stop()
        #expect(harness.server.requestCount(path: "/ol/search.json") == 1)
        #expect(providerDocument(listed, "openlibrary")?["status"] as? String == "ready")
    }
}

@Suite("Resilience across real seek processes", .enabled(if: SeekBinary.url != nil, "the seek executable was not built"))
struct ResilienceProcessTests {
    @Test("two seek processes started together against a host limited to 2 requests/second stay under it, combined")
    func sharedRateLimit() async throws {
        let harness = try await CLIHarness.start()
        let arrivals = NIOLockedValueBox<[Date]>([])
        harness.server.route("/ol/search.json", handler: { _ in
            arrivals.withLockedValue { $0.append(Date()) }
            return .json(OpenLibrarySamples.search)
        })
        var environment = harness.environment
        environment["SEEK_OPENLIBRARY_RATE_LIMIT"] = "2"
        environment["SEEK_NO_CACHE"] = "1"
        let shared = environment
        let codes = try await withThrowingTaskGroup(of: [Int32].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await offThePool {
                        try (0..<3).map { _ in
                            try SeekBinary.run(["search", "harbor", "--providers", "openlibrary"], environment: shared).code
                        }
                    }
                }
            }
            return try await group.reduce(into: [Int32]()) { $0 += $1 }
        }
        try await harness.stop()
        #expect(codes == Array(repeating: 0, count: 6))
        let times = arrivals.withLockedValue { $0 }.sorted()
        #expect(times.count == 6)
        // Each request leaves at its turn, 0.5 s apart; starting a process and connecting add some jitter
        // between its turn and its arrival, so single gaps get a margin and the whole run must keep the rate.
        let jitter = 0.3
        let span = (times.last ?? .distantPast).timeIntervalSince(times.first ?? .distantPast)
        #expect(span >= Double(times.count - 1) * 0.5 - jitter, "\(times.count) requests in \(span)s")
        for index in times.indices.dropFirst() {
            let gap = times[index].timeIntervalSince(times[index - 1])
            #expect(gap >= 0.5 - jitter, "requests \(index - 1) and \(index) came \(gap)s apart")
        }
        for index in times.indices.dropFirst(2) {
            let window = times[index].timeIntervalSince(times[index - 2])
            #expect(window >= 1 - jitter, "three requests within \(window)s")
        }
    }

    @Test("a cool-down set by one seek process is honoured by the next one")
    func coolDownAcrossProcesses() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", fault: .status(429, body: "{}", headers: [("Retry-After", "30")]))
        let environment = harness.environment.merging(["SEEK_NO_CACHE": "1"]) { $1 }
        let (first, second) = try await offThePool {
            (try SeekBinary.run(["search", "harbor", "--providers", "openlibrary"], environment: environment),
             try SeekBinary.run(["search", "harbor", "--providers", "openlibrary"], environment: environment))
        }
        try await harness.stop()
        #expect(first.code == 4)
        #expect(first.stderr.contains("rateLimited"))
        #expect(second.code == 4)
        #expect(second.stderr.contains("seek: openlibrary: suspended: suspended until "), "stderr: \(second.stderr)")
        #expect(harness.server.requestCount(path: "/ol/search.json") == 1)
    }
}
