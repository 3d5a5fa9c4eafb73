#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import AladinProvider
import Foundation
import SeekCLI
import SeekKit
import SeekCore
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

/// One way a provider's server can misbehave, with what `seek` must report for it.
struct ProviderFault: Sendable, CustomTestStringConvertible {
    let name: String
    /// The provider status `seek search --format json` must report.
    let status: String
    /// Words the stderr line must contain (any one of them): the cause, in the user's terms.
    let causes: [String]
    /// Sets the fault up for `path` (the provider's search endpoint) on the harness; returns environment
    /// overrides, and anything that must stay alive during the run.
    let install: @Sendable (CLIHarness, _ path: String, _ urlVariable: String, _ basePath: String) throws
        -> (environment: [String: String], keep: ReservedClosedPort?)
    var timeout = "15"

    var testDescription: String { name }

    /// A status answered with a body that echoes the request (key included), so redaction is tested too.
    static func status(_ code: Int, _ name: String, _ status: String, _ causes: [String], headers: [(String, String)] = []) -> ProviderFault {
        ProviderFault(name: name, status: status, causes: causes) { harness, path, _, _ in
            harness.server.route(path, handler: { request in
                FixtureResponse(
                    status: code, headers: [("Content-Type", "application/json")] + headers,
                    body: Array(#"{"message": "failed: \#(request.uri)"}"#.utf8))
            })
            return ([:], nil)
        }
    }

    static func fault(_ fault: FixtureFault, _ name: String, _ status: String, _ causes: [String], timeout: String = "15") -> ProviderFault {
        ProviderFault(name: name, status: status, causes: causes, install: { harness, path, _, _ in
            harness.server.route(path, fault: fault)
            return ([:], nil)
        }, timeout: timeout)
    }

    /// Every row of the resilience issue's fault matrix.
    static let all: [ProviderFault] = [
        .fault(.hang, "hang (timeout)", "timeout", ["timed out"], timeout: "1"),
        ProviderFault(name: "connection refused", status: "error", causes: ["network error"], install: { _, _, variable, basePath in
            // A port bound but never listened on refuses every connection, and nobody else can take it meanwhile.
            let port = try ReservedClosedPort()
            return ([variable: "http://127.0.0.1:\(port.port)\(basePath)"], port)
        }, timeout: "3"),
        .status(500, "HTTP 500", "error", ["HTTP 500"]),
        .status(502, "HTTP 502", "error", ["HTTP 502"]),
        .status(503, "HTTP 503", "error", ["HTTP 503"]),
        .status(429, "429 with Retry-After", "rateLimited", ["rate limited (retry after 30s)"], headers: [("Retry-After", "30")]),
        .status(429, "429 without Retry-After", "rateLimited", ["rate limited"]),
        .status(401, "HTTP 401", "unauthorized", ["unauthorized"]),
        .status(403, "HTTP 403", "unauthorized", ["unauthorized"]),
        .status(404, "HTTP 404", "error", ["not found"]),
        .fault(.malformedJSON, "malformed JSON", "error", ["undecodable"]),
        .fault(.truncated, "truncated body", "error", ["network error", "undecodable"]),
        .fault(.html, "HTML page with status 200", "error", ["undecodable"]),
        .fault(.slowDrip(interval: .milliseconds(200)), "slow-drip body past the deadline", "timeout", ["timed out"], timeout: "1"),
        .fault(.hugeBody(bytes: 64 * 1024 * 1024), "64 MiB body", "error", ["larger than"], timeout: "20"),
        .fault(.empty, "empty body", "error", ["undecodable"]),
        .fault(.redirectLoop, "redirect loop", "error", ["redirect"]),
    ] + extremeRetryAfters

    /// Retry-After values past any sense (2^63, 1e19, infinity) are capped at a day where they are parsed;
    /// negative, NaN and empty ones are no Retry-After. None may trap (issue 19).
    static let extremeRetryAfters: [ProviderFault] = [
        .status(429, "429 with Retry-After 2^63 − 2", "rateLimited", ["rate limited (retry after 86400s)"],
                headers: [("Retry-After", "9223372036854775806")]),
        .status(429, "429 with Retry-After 2^63", "rateLimited", ["rate limited (retry after 86400s)"],
                headers: [("Retry-After", "9223372036854775808")]),
        .status(429, "429 with Retry-After 1e19", "rateLimited", ["rate limited (retry after 86400s)"], headers: [("Retry-After", "1e19")]),
        .status(429, "429 with Retry-After inf", "rateLimited", ["rate limited (retry after 86400s)"], headers: [("Retry-After", "inf")]),
        .status(429, "429 with Retry-After in the year 9999", "rateLimited", ["rate limited (retry after 86400s)"],
                headers: [("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")]),
        .status(429, "429 with Retry-After -1", "rateLimited", ["rate limited: "], headers: [("Retry-After", "-1")]),
        .status(429, "429 with Retry-After NaN", "rateLimited", ["rate limited: "], headers: [("Retry-After", "NaN")]),
        .status(429, "429 with Retry-After -0", "rateLimited", ["rate limited (retry after 0s)"], headers: [("Retry-After", "-0")]),
        .status(429, "429 with an empty Retry-After", "rateLimited", ["rate limited: "], headers: [("Retry-After", "")]),
        .status(503, "503 with Retry-After 2^63 − 2", "error", ["HTTP 503"], headers: [("Retry-After", "9223372036854775806")]),
        .status(503, "503 with Retry-After 1e19", "error", ["HTTP 503"], headers: [("Retry-After", "1e19")]),
    ]
}

/// A provider under test: how to reach its search endpoint on the harness, and its key.
struct FaultTarget: Sendable {
    let id: String
    /// The search endpoint's path on the fixture server (see `CLIHarness.environment`).
    let path: String
    let urlVariable: String
    let basePath: String
    let key: (variable: String, value: String)?
    let query: String

    static let openLibrary = FaultTarget(
        id: "openlibrary", path: "/ol/search.json", urlVariable: "SEEK_OPENLIBRARY_URL", basePath: "/ol", key: nil, query: "harbor")
    static let giphy = FaultTarget(
        id: "giphy", path: "/giphy/v1/gifs/search", urlVariable: "SEEK_GIPHY_URL", basePath: "/giphy",
        key: ("SEEK_GIPHY_API_KEY", "gphSECRETkey7f3a9"), query: "cat")
    static let aladin = FaultTarget(
        id: "aladin", path: "/aladin/ttb/api/ItemSearch.aspx", urlVariable: "SEEK_ALADIN_URL", basePath: "/aladin/ttb/api",
        key: ("SEEK_ALADIN_TTB_KEY", "ttbSECRETaladin42"), query: "harbor")

    /// Providers to add to the built-in ones: Aladin while the composition root does not register it yet.
    var extraProviders: [ProviderFactory] {
        id == "aladin" && !CompositionRoot.builtInProviders.contains { $0.id == "aladin" } ? [AladinProvider.factory] : []
    }

    /// Runs `seek search` against `fault` and checks the whole contract of one row.
    func check(_ fault: ProviderFault) async throws {
        let harness = try await CLIHarness.start()
        var environment = ["SEEK_NO_CACHE": "1"]
        if let key { environment[key.variable] = key.value }
        let setup = try fault.install(harness, path, urlVariable, basePath)
        environment.merge(setup.environment) { $1 }
        let started = ContinuousClock.now
        let result = await harness.run(
            ["search", query, "--providers", id, "--timeout", fault.timeout, "--format", "json"], environment: environment,
            extraProviders: extraProviders)
        let elapsed = ContinuousClock.now - started
        withExtendedLifetime(setup.keep) {}
        try await harness.stop()

        // A refused connection fails at once: AsyncHTTPTransport turns AsyncHTTPClient's own retrying of
        // connection establishment off (RetryingTransport does the retrying).
        verify(fault, result, elapsed)
    }

    private func verify(_ fault: ProviderFault, _ result: RunResult, _ elapsed: Duration) {
        #expect(result.code == 4, "exit code; stderr: \(result.stderr)")
        let providers = result.json?["providers"] as? [[String: Any]]
        #expect(providers?.first?["id"] as? String == id)
        #expect(providers?.first?["status"] as? String == fault.status, "stdout: \(result.stdout)")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "exactly one stderr line; got: \(result.stderr)")
        let line = String(lines.first ?? "")
        #expect(line.hasPrefix("seek: \(id): \(fault.status): "), "names the provider and status: \(line)")
        #expect(fault.causes.contains { line.contains($0) }, "names the cause (\(fault.causes)): \(line)")
        if let key {
            #expect(!result.stdout.contains(key.value) && !result.stderr.contains(key.value), "the key leaked")
        }
        if let limit = Double(fault.timeout) {
            #expect(elapsed < .seconds(limit + 20), "took \(elapsed)")
        }
    }
}

@Suite("Fault matrix: every fault, every provider, a typed status, exit 4 and one stderr line")
struct FaultMatrixTests {
    @Test("Open Library", arguments: ProviderFault.all)
    func openLibrary(fault: ProviderFault) async throws {
        try await FaultTarget.openLibrary.check(fault)
    }

    @Test("GIPHY", arguments: ProviderFault.all)
    func giphy(fault: ProviderFault) async throws {
        try await FaultTarget.giphy.check(fault)
    }

    @Test("Aladin", arguments: ProviderFault.all)
    func aladin(fault: ProviderFault) async throws {
        try await FaultTarget.aladin.check(fault)
    }
}

/// A loopback TCP port that is bound but not listening: connecting to it is refused at once.
final class ReservedClosedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw CocoaError(.fileReadUnknown)
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

extension CLIHarness {
    /// Runs `seek` in-process with `extraProviders` added after the built-in ones (as `seek-itbook` does).
    func run(_ arguments: [String], environment extra: [String: String], extraProviders: [ProviderFactory]) async -> RunResult {
        let stdout = CapturedText()
        let stderr = CapturedText()
        let context = CLIContext(
            environment: environment.merging(extra) { $1 }, stdout: stdout, stderr: stderr, extraProviders: extraProviders)
        let code = await SeekMain.run(arguments: arguments, context: context)
        return RunResult(code: code, stdout: stdout.text, stderr: stderr.text)
    }
}
