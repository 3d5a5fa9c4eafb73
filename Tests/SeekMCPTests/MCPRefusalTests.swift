import Foundation
import MCP
import SeekLoopback
import SeekRuntime
import Testing

/// The MCP server reports the session's refusal as it is: an `isError` result in the session's words.
@Suite("seek mcp: the session's refusals as tool errors")
struct MCPRefusalTests {
    static let badSearches: [(arguments: [String: Value], request: SearchQuery)] = [
        (["limit": 0], SearchQuery(query: "harbor", limit: 0)),
        (["limit": 101], SearchQuery(query: "harbor", limit: 101)),
        (["limit": -5], SearchQuery(query: "harbor", limit: -5)),
        (["limit": 1_000_000_000_000], SearchQuery(query: "harbor", limit: 1_000_000_000_000)),
        (["providers": ["nope"]], SearchQuery(query: "harbor", providers: "nope")),
        (["cursor": "not-a-cursor"], SearchQuery(query: "harbor", cursor: "not-a-cursor")),
        (["query": "!ol"], SearchQuery(query: "!ol")),
        (["language": "fra"], SearchQuery(query: "harbor", language: "fra")),
    ]

    @Test("a bad search is an isError result naming what the session refused", arguments: badSearches)
    func sameRefusal(arguments: [String: Value], request: SearchQuery) async throws {
        let harness = try await MCPHarness.start()
        let expected = await #expect(throws: RequestError.self) { try await harness.session.check(request) }
        let result = try await harness.call("search", ["query": "harbor"].merging(arguments) { $1 })
        let requests = harness.fixtures.totalRequestCount
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text == "invalid argument: " + (expected?.message ?? "?"), "\(result.text)")
        #expect(requests == 0)
    }

    @Test("a malformed item id is an isError result saying it is not PROVIDER:ID")
    func malformedItemID() async throws {
        let harness = try await MCPHarness.start()
        let result = try await harness.call("detail", ["id": "nocolon"])
        try await harness.stop()
        #expect(result.isError == true)
        #expect(result.text == "invalid argument: 'nocolon' is not a PROVIDER:ID item id")
    }
}
