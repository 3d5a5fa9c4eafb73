import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekRuntime
import SeekStore
import Testing

/// The bad inputs every host passes through as they are, each with the code the session refuses it with.
/// The host tests (API, MCP, CLI) use the same table.
enum BadSearchInput {
    static let cases: [(name: String, request: SearchQuery, code: RequestErrorCode)] = [
        ("limit 0", SearchQuery(query: "harbor", limit: 0), .invalidParameter),
        ("limit 101", SearchQuery(query: "harbor", limit: 101), .invalidParameter),
        ("limit -5", SearchQuery(query: "harbor", limit: -5), .invalidParameter),
        ("limit 10^12", SearchQuery(query: "harbor", limit: 1_000_000_000_000), .invalidParameter),
        ("an unknown provider", SearchQuery(query: "harbor", providers: "nope"), .unknownProvider),
        ("a malformed cursor", SearchQuery(query: "harbor", cursor: "not-a-cursor"), .invalidCursor),
        ("a page past 100,000 results", SearchQuery(query: "harbor", limit: 100, page: 1002), .invalidParameter),
        ("an empty query", SearchQuery(query: "  "), .missingParameter),
        ("a query of bangs only", SearchQuery(query: "!ol"), .missingParameter),
        ("an unknown content rating", SearchQuery(query: "harbor", rating: "nc-17"), .invalidParameter),
        ("a page and a cursor", SearchQuery(query: "harbor", page: 2, cursor: "abc"), .invalidParameter),
    ]
}

@Suite("the session's requests: one validation, one code, whatever the host")
struct SessionRequestTests {
    @Test("a bad search is refused with its code before any provider is asked", arguments: BadSearchInput.cases.indices)
    func badSearch(index: Int) async throws {
        let bad = BadSearchInput.cases[index]
        let harness = try await ServerHarness.start()
        let refusal = await #expect(throws: RequestError.self, "\(bad.name)") { try await harness.session.search(bad.request) }
        let requests = harness.fixtures.totalRequestCount
        try await harness.stop()
        #expect(refusal?.code == bad.code, "\(bad.name): \(String(describing: refusal))")
        #expect(requests == 0, "\(bad.name)")
    }

    @Test("the deepest page (100,000 results in) is accepted")
    func deepestPage() async throws {
        let harness = try await ServerHarness.start()
        let checked = try await harness.session.check(SearchQuery(query: "harbor", limit: 100, page: 1001))
        try await harness.stop()
        #expect(checked.options.page == 1001)
        #expect(checked.options.limit == 100)
    }

    @Test("bangs choose the providers and leave the query text")
    func bangsChooseProviders() async throws {
        let harness = try await ServerHarness.start()
        let checked = try await harness.session.check(SearchQuery(query: "!ol harbor", providers: "giphy"))
        try await harness.stop()
        #expect(checked.options.query == "harbor")
        #expect(checked.selection == ProviderSelection(ids: ["openlibrary"], explicit: true))
    }

    @Test("a search is recorded once in its owner's history")
    func searchRecordsHistory() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        _ = try await harness.session.search(SearchQuery(query: "harbor", providers: "openlibrary"))
        let entries = try await harness.session.history(of: .instanceOwner)
        try await harness.stop()
        #expect(entries.map(\.query) == ["harbor"])
        #expect(entries.first?.providers == ["openlibrary"])
    }

    @Test("a search without an owner is recorded nowhere")
    func searchWithoutOwnerRecordsNothing() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        _ = try await harness.session.search(SearchQuery(query: "harbor", providers: "openlibrary", owner: nil))
        let entries = try await harness.session.history(of: .instanceOwner)
        try await harness.stop()
        #expect(entries.isEmpty)
    }

    @Test("an item id that is not PROVIDER:ID is invalid_id", arguments: ["nocolon", ":OL1W", "openlibrary:"])
    func malformedItemID(text: String) async throws {
        let harness = try await ServerHarness.start()
        let refusal = await #expect(throws: RequestError.self) { try await harness.session.detail(ItemQuery(text)) }
        try await harness.stop()
        #expect(refusal?.code == .invalidID)
    }

    @Test("an item id of no registered provider is unknown_provider")
    func itemOfUnknownProvider() async throws {
        let harness = try await ServerHarness.start()
        let refusal = await #expect(throws: RequestError.self) { try await harness.session.detail(ItemQuery("nope:1")) }
        try await harness.stop()
        #expect(refusal?.code == .unknownProvider)
        let known = CompositionRoot.builtInProviders.map(\.id).joined(separator: ", ")
        #expect(refusal?.message.contains("known: \(known)") == true, "\(refusal?.message ?? "")")
    }

    @Test("trending holds its limit to the same bounds as search", arguments: [0, 101, -5, 1_000_000_000_000])
    func trendingLimit(limit: Int) async throws {
        let harness = try await ServerHarness.start()
        let refusal = await #expect(throws: RequestError.self) { try await harness.session.trending(FanOutQuery(limit: limit)) }
        try await harness.stop()
        #expect(refusal?.code == .invalidParameter)
    }

    @Test("suggest refuses an empty prefix as missing_parameter")
    func suggestEmptyPrefix() async throws {
        let harness = try await ServerHarness.start()
        let refusal = await #expect(throws: RequestError.self) { try await harness.session.suggest(FanOutQuery(text: " ")) }
        try await harness.stop()
        #expect(refusal?.code == .missingParameter)
    }

    @Test("a provider timeout of NaN, infinity, -0, 0, -1, 3601 or 1e300 seconds is invalid_parameter",
          arguments: [Double.nan, .infinity, -.infinity, -0.0, 0, -1, 3600.001, 1e300, Double(Int64.max)])
    func timeoutOutOfBounds(seconds: Double) throws {
        let refusal = #expect(throws: RequestError.self) { try SeekSession.providerTimeout(seconds: seconds) }
        #expect(refusal?.code == .invalidParameter)
    }

    @Test("a provider timeout within bounds is its duration, rounded up to the millisecond")
    func timeoutWithinBounds() throws {
        #expect(try SeekSession.providerTimeout(seconds: 0.0001) == .milliseconds(1))
        #expect(try SeekSession.providerTimeout(seconds: 2.5) == .milliseconds(2500))
        #expect(try SeekSession.providerTimeout(seconds: 3600) == .seconds(3600))
        #expect(try SeekSession.providerTimeout(seconds: nil) == nil)
    }

    @Test("a search's language reaches Open Library as its lang parameter, lowercased")
    func languageReachesTheProvider() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        _ = try await harness.session.search(SearchQuery(query: "harbor", providers: "openlibrary", language: "FR"))
        let asked = harness.fixtures.requests.last { $0.path.hasSuffix("/search.json") }
        try await harness.stop()
        #expect(asked?.queryValue("lang") == "fr")
    }

    @Test("a language that is not two letters is invalid_parameter", arguments: ["fra", "e1", "", "日本"])
    func malformedLanguage(language: String) async throws {
        let harness = try await ServerHarness.start()
        let refusal = await #expect(throws: RequestError.self) {
            try await harness.session.check(SearchQuery(query: "harbor", language: language))
        }
        try await harness.stop()
        #expect(refusal?.code == .invalidParameter)
    }

    @Test("the codes are the API's stable strings")
    func stableCodes() {
        #expect(RequestErrorCode.allCases.map(\.rawValue) == [
            "missing_parameter", "invalid_parameter", "unknown_provider", "invalid_cursor", "invalid_id",
        ])
    }
}
