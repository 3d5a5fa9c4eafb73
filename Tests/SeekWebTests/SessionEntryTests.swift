import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekRuntime
import SeekStore
import SeekTesting
import Testing

/// The session entries hosts render from (issue 51): the verdict comes with every fan-out's answer,
/// a results page is one call, an item page's merge and a `seek image` target are the session's.
@Suite("the session's host entries: what hosts render, the verdict included")
struct SessionEntryTests {
    @Test("a search's verdict: all answered, some failed, none answered; skipped unchosen providers do not count")
    func searchVerdict() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let all = try await harness.session.search(SearchQuery(query: "harbor", providers: "openlibrary,aladin"))
        harness.fixtures.route(ProviderSamples.aladinPath, fault: .status(500))
        let some = try await harness.session.search(SearchQuery(query: "harbor", providers: "openlibrary,aladin", noCache: true))
        harness.fixtures.route("/ol/search.json", fault: .malformedJSON)
        let none = try await harness.session.search(SearchQuery(query: "harbor", providers: "openlibrary,aladin", noCache: true))
        try await harness.stop()
        #expect(all.verdict == .allAnswered)
        #expect(some.verdict == .someFailed)
        #expect(none.verdict == .noneAnswered)
        #expect(none.counted.map(\.provider).sorted() == ["aladin", "openlibrary"])
        #expect(none.counted.allSatisfy { !$0.status.answered })
    }

    @Test("a suggestion call's verdict: answered, and none answered when its one provider fails")
    func suggestVerdict() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/giphy/v1/gifs/search/tags", .json(#"{"data": [{"name": "cats"}], "meta": {"status": 200, "msg": "OK"}}"#))
        let (answered, _) = try await harness.session.suggest(FanOutQuery(text: "cat", providers: "giphy"))
        harness.fixtures.route("/giphy/v1/gifs/search/tags", fault: .status(503))
        let (failed, selection) = try await harness.session.suggest(FanOutQuery(text: "dog", providers: "giphy"))
        try await harness.stop()
        #expect(answered.verdict == .allAnswered)
        #expect(answered.suggestions == ["cats"])
        #expect(selection.explicit)
        #expect(failed.suggestions.isEmpty)
        #expect(failed.verdict == .noneAnswered, "\(failed.outcomes.map { "\($0.provider): \($0.status.rawValue)" })")
        #expect(failed.counted.map(\.provider) == ["giphy"])
    }

    @Test("a streamed results page checks the request and names the providers it waits for, asking none")
    func streamedPage() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let page = try await harness.session.resultsPage(SearchQuery(query: "harbor", providers: "aladin,openlibrary"), streaming: true)
        let requests = harness.fixtures.totalRequestCount
        try await harness.stop()
        #expect(page.answer == nil)
        #expect(page.pending == ["aladin", "openlibrary"])
        #expect(requests == 0)
    }

    @Test("a results page runs the search and brings the favourites and the next page's token in one call")
    func fullPage() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let page = try await harness.session.resultsPage(SearchQuery(query: "harbor", providers: "openlibrary", limit: 1), streaming: false)
        let entries = try await harness.session.history(of: .instanceOwner)
        try await harness.stop()
        let answer = try #require(page.answer)
        #expect(answer.verdict == .allAnswered)
        #expect(page.pending.isEmpty)
        #expect(page.next?.isEmpty == false)
        #expect(page.favorites.isEmpty)
        #expect(entries.map(\.query) == ["harbor"])
    }

    @Test("a bad results page is refused before any provider is asked", arguments: BadSearchInput.cases.indices)
    func badPage(index: Int) async throws {
        let bad = BadSearchInput.cases[index]
        let harness = try await ServerHarness.start()
        let refusal = await #expect(throws: RequestError.self, "\(bad.name)") {
            try await harness.session.resultsPage(bad.request, streaming: false)
        }
        let requests = harness.fixtures.totalRequestCount
        try await harness.stop()
        #expect(refusal?.code == bad.code, "\(bad.name)")
        #expect(requests == 0, "\(bad.name)")
    }

    @Test("an item page: another source that fails is listed, not thrown; the item's own failure is thrown")
    func mergedDetail() async throws {
        let harness = try await ServerHarness.start()
        harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        harness.fixtures.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
        harness.fixtures.route("/aladin/ttb/api/ItemLookUp.aspx", fault: .status(500))
        let merged = try await harness.session.mergedDetail(
            ItemQuery("openlibrary:OL45804W"), also: "aladin:K1,openlibrary:OL45804W,nope:1,not-an-id", grouping: .work, owner: .instanceOwner)
        harness.fixtures.route("/ol/works/OL9W.json", fault: .status(404))
        let failed = await #expect(throws: SeekError.self) {
            try await harness.session.mergedDetail(ItemQuery("openlibrary:OL9W"), also: nil, grouping: .work, owner: nil)
        }
        try await harness.stop()
        #expect(merged.id == ItemID(provider: "openlibrary", value: "OL45804W"))
        #expect(merged.sources.map(\.provider) == ["openlibrary"])
        #expect(merged.failures.map(\.id.description) == ["aladin:K1"])
        #expect(merged.failures.first?.error.provider == "aladin")
        #expect(merged.joins.isEmpty)
        #expect(!merged.favorite)
        #expect(failed?.kind == .notFound)
    }

    @Test("an image target: an item id of a registered provider, or a URL under a provider's host; else refused")
    func imageTargets() async throws {
        let harness = try await ServerHarness.start()
        let item = try harness.session.imageTarget("openlibrary:OL1W")
        let cover = try harness.session.imageTarget(harness.fixtures.url("/ol/works/OL1W.jpg").absoluteString)
        let elsewhere = #expect(throws: RequestError.self) { try harness.session.imageTarget("https://elsewhere.example/a.jpg?key=secret") }
        let unknown = #expect(throws: RequestError.self) { try harness.session.imageTarget("nope:1") }
        let malformed = #expect(throws: RequestError.self) { try harness.session.imageTarget("nocolon") }
        try await harness.stop()
        #expect(item.provider == "openlibrary")
        #expect(cover.provider == "openlibrary")
        #expect(elsewhere?.code == .invalidParameter)
        #expect(elsewhere?.message.contains("is not an image URL of a configured provider") == true)
        #expect(elsewhere?.message.contains("secret") == false, "a URL's key is never repeated")
        #expect(unknown?.code == .unknownProvider)
        #expect(malformed?.code == .invalidID)
    }

    @Test("a cool-down reset names the providers it cleared; an unknown one is unknown_provider")
    func resetCoolDown() async throws {
        let harness = try await ServerHarness.start()
        let all = try await harness.session.resetCoolDown(" ALL ")
        let one = try await harness.session.resetCoolDown("openlibrary")
        let refusal = await #expect(throws: RequestError.self) { try await harness.session.resetCoolDown("nope") }
        let ids = harness.session.providerIDs
        try await harness.stop()
        #expect(all == ids)
        #expect(one == ["openlibrary"])
        #expect(refusal?.code == .unknownProvider)
    }

    @Test("what hosts show of providers: names, kinds and weights come from the session")
    func providerFacts() async throws {
        let harness = try await ServerHarness.start()
        let ids = harness.session.providerIDs
        let weights = harness.session.providerWeights
        let openLibrary = harness.session.descriptor(of: "openlibrary")
        let none = harness.session.descriptor(of: "nope")
        try await harness.stop()
        #expect(ids.contains("openlibrary"))
        #expect(Set(weights.keys) == Set(ids))
        #expect(openLibrary?.kinds == [.book])
        #expect(none == nil)
    }
}
