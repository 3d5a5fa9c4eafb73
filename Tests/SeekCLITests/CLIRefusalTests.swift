import Foundation
import SeekKit
import SeekLoopback
import SeekRuntime
import Testing

/// The CLI reports the session's refusal as a usage error: exit 64 and the session's words on stderr.
@Suite("seek: the session's refusals as usage errors")
struct CLIRefusalTests {
    /// The registered sources as a refusal lists them.
    static let known = CompositionRoot.builtInProviders.map(\.id).joined(separator: ", ")

    @Test("a bad search is exit 64 with the session's message, and no provider is asked", arguments: [
        (["--limit", "0"], "seek: 'limit' must be between 1 and 100 (got 0)"),
        (["--limit", "101"], "seek: 'limit' must be between 1 and 100 (got 101)"),
        (["--limit=-5"], "seek: 'limit' must be between 1 and 100 (got -5)"),
        (["--limit", "1000000000000"], "seek: 'limit' must be between 1 and 100 (got 1000000000000)"),
        (["--providers", "nope"], "seek: unknown provider 'nope' (known: \(CLIRefusalTests.known))"),
        (["--cursor", "not-a-cursor"], "seek: 'cursor' is not a cursor from seek"),
        (["--limit", "100", "--page", "1002"], "seek: 'page' 1002 is too deep"),
        (["--language", "xyz"], "seek: 'language' must be a two-letter ISO 639-1 code such as en (got 'xyz')"),
    ])
    func sameRefusal(flags: [String], message: String) async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "harbor"] + flags)
        let requests = harness.server.totalRequestCount
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.hasPrefix(message), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(requests == 0)
    }

    @Test("a query of bangs only is exit 64: the query is empty")
    func emptyQuery() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "!ol"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr == "seek: the query is empty\n")
    }

    @Test("a malformed item id is exit 64 saying it is not PROVIDER:ID")
    func malformedItemID() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["detail", "nocolon"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr == "seek: 'nocolon' is not a PROVIDER:ID item id\n")
    }
}
