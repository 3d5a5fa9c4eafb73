import Foundation
import Hummingbird
import HummingbirdTesting
@testable import SeekCore
import SeekLoopback
import SeekRuntime
import SeekTesting
@testable import SeekWeb
import Testing

/// Issue 48 through the server: `group=` and `explain=` on the API, the web UI's toggle and the
/// detail page's words for a join.
@Suite("Identity through the API and the web UI")
struct IdentityRouteTests {
    /// An Open Library work listing two editions' ISBNs, and Aladin's two editions.
    private func serveEditions(_ harness: ServerHarness) {
        harness.fixtures.route("/ol/search.json", .json(ProviderSamples.openLibrary([
            ProviderSamples.olDoc(1, title: "Harbor Lights", isbns: ["9791130605210", "9791130607887"], year: 2001),
        ])))
        harness.fixtures.route(ProviderSamples.aladinPath, .json(ProviderSamples.aladin([
            ProviderSamples.aladinItem(isbn13: "9791130605210", title: "항구의 빛", itemId: 7),
            ProviderSamples.aladinItem(isbn13: "9791130607887", title: "항구의 빛 (개정판)", itemId: 8),
        ])))
    }

    private func get(_ harness: ServerHarness, _ uri: String) async throws -> (status: HTTPResponse.Status, json: [String: Any]?, text: String) {
        let (status, text) = try await harness.withRouter { client in
            try await client.execute(uri: uri, method: .get) { ($0.status, String(buffer: $0.body)) }
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        return (status, json, text)
    }

    @Test("explain=true gives every joined source its joinedBy; without it the documents carry none")
    func explainJoinedBy() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let explained = try await get(harness, "/api/v1/search?q=harbor&providers=openlibrary,aladin&explain=true")
        let plain = try await get(harness, "/api/v1/search?q=harbor&providers=openlibrary,aladin")
        try await harness.stop()
        #expect(explained.status == .ok)
        let items = try #require(explained.json?["items"] as? [[String: Any]])
        let joined = try #require(items.first { ($0["sources"] as? [[String: Any]])?.count == 2 })
        let sources = try #require(joined["sources"] as? [[String: Any]])
        #expect(sources[0]["joinedBy"] == nil)
        #expect(sources[1]["joinedBy"] as? String == "isbn 9791130605210")
        #expect(!plain.text.contains("joinedBy"))
        #expect(plain.text.contains("\"sources\""))
    }

    @Test("group=edition keeps two editions apart that group=work joins through their work; a bad group is a 400")
    func groupParameter() async throws {
        let harness = try await ServerHarness.start()
        serveEditions(harness)
        let work = try await get(harness, "/api/v1/search?q=harbor&providers=openlibrary,aladin&no_cache=true")
        let edition = try await get(harness, "/api/v1/search?q=harbor&providers=openlibrary,aladin&group=edition&no_cache=true")
        let bad = try await get(harness, "/api/v1/search?q=harbor&group=series")
        try await harness.stop()
        let workItems = try #require(work.json?["items"] as? [[String: Any]])
        let editionItems = try #require(edition.json?["items"] as? [[String: Any]])
        #expect(workItems.count == 1)
        #expect((workItems.first?["sources"] as? [[String: Any]])?.count == 3)
        #expect(editionItems.count == 2)
        #expect(bad.status == .badRequest)
        let error = try #require(bad.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalid_parameter")
        #expect((error["message"] as? String)?.contains("group") == true)
    }

    @Test("the results page's toggle shows the grouping and carries it into the next page")
    func webToggle() async throws {
        let harness = try await ServerHarness.start()
        serveEditions(harness)
        let page = try await get(harness, "/search?q=harbor&providers=openlibrary,aladin&group=edition")
        let workPage = try await get(harness, "/search?q=harbor&providers=openlibrary,aladin")
        try await harness.stop()
        #expect(page.status == .ok)
        #expect(page.text.contains("data-group=\"edition\""))
        #expect(page.text.contains("<option value=\"edition\" selected>"))
        #expect(page.text.contains("data-grouping"))
        #expect(workPage.text.contains("<option value=\"work\" selected>"))
        #expect(WebView.searchHref("harbor", cursor: "abc", group: .edition) == "/search?q=harbor&group=edition&cursor=abc")
        #expect(WebView.searchHref("harbor", cursor: "abc") == "/search?q=harbor&cursor=abc")
    }

    @Test("the detail page says in words why the sources are one book")
    func detailWords() async throws {
        let harness = try await ServerHarness.start()
        let work = Item(id: ItemID(provider: "openlibrary", value: "OL1W"), kind: .book, title: "Harbor Lights", creators: ["Ann Lee"],
                        year: 2001, identifiers: Identifiers(isbns: ["9791130605210"]))
        let shop = Item(id: ItemID(provider: "aladin", value: "7"), kind: .book, title: "항구의 빛", creators: ["이안"], year: 2020,
                        identifiers: Identifiers(isbns: ["9791130605210"]))
        let same = Item(id: ItemID(provider: "giphy", value: "9"), kind: .book, title: "Harbour Lights", creators: ["Lee, Ann"], year: 2001)
        let details = [work, shop].map { (provider: $0.provider, detail: ItemDetail(item: $0)) }
        let words = JoinExplanation.sentences(details, grouping: .work, session: harness.session, strings: WebStrings.english)
        let korean = try #require(WebStrings.supported.first { $0.code == "ko" })
        let koreanWords = JoinExplanation.sentences(details, grouping: .work, session: harness.session, strings: korean)
        let alone = JoinExplanation.sentences(Array(details.prefix(1)), grouping: .work, session: harness.session, strings: WebStrings.english)
        let apart = JoinExplanation.sentences([details[0], (provider: "giphy", detail: ItemDetail(item: same))], grouping: .work,
                                              session: harness.session, strings: WebStrings.english)
        try await harness.stop()
        #expect(words == ["Also in Aladin: same ISBN."])
        #expect(koreanWords == ["알라딘에도 있음: 같은 ISBN."], "a Korean page names the source in Korean")
        #expect(alone.isEmpty)
        #expect(apart.isEmpty)
        #expect(JoinExplanation.key(of: "title+creator harbor lights / lee / 2001") == "joinedTitle")
        #expect(JoinExplanation.key(of: "doi 10.1/x") == "joinedDOI")
    }
}
