import Foundation
import SeekCore
import SeekIdentity
import SeekKit
import SeekLoopback
import Testing

func book(_ provider: String, _ value: String, _ title: String, isbns: [String] = [], creator: String? = nil, year: Int? = nil) -> Item {
    Item(id: ItemID(provider: provider, value: value), kind: .book, title: title,
         creators: creator.map { [$0] } ?? [], year: year, identifiers: Identifiers(isbns: isbns))
}

@Suite("Search engine")
struct SearchEngineTests {
    @Test("a hung provider does not hold back the others; it times out at the deadline")
    func hungProviderTimesOut() async throws {
        let fast = StubProvider(id: "fast", items: [book("fast", "1", "Harbor")])
        let hung = StubProvider(id: "hung", items: [book("hung", "1", "Other")], delay: .seconds(30))
        let engine = SearchEngine(registry: try ProviderRegistry([fast, hung]), merger: ResultMerger())
        let started = ContinuousClock.now
        let result = try await engine.search(SearchOptions(query: "harbor", timeout: .milliseconds(300)))
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(result.outcomes.map(\.status) == [.ok, .timeout])
        #expect(result.results.map(\.item.title) == ["Harbor"])
        #expect(result.anyAnswered && !result.allAnswered)
    }

    @Test("a failing provider reports its typed status and error")
    func failureStatus() async throws {
        let limited = StubProvider(id: "lim", failure: SeekError(.rateLimited(retryAfterSeconds: 5)))
        let engine = SearchEngine(registry: try ProviderRegistry([limited]), merger: ResultMerger())
        let result = try await engine.search(SearchOptions(query: "x"))
        #expect(result.outcomes.first?.status == .rateLimited)
        #expect(result.outcomes.first?.error?.provider == "lim")
    }

    @Test("an empty answer is status empty, not an error")
    func emptyAnswer() async throws {
        let engine = SearchEngine(registry: try ProviderRegistry([StubProvider(id: "e")]), merger: ResultMerger())
        let result = try await engine.search(SearchOptions(query: "x"))
        #expect(result.outcomes.first?.status == .empty)
        #expect(result.allAnswered)
    }
}

@Suite("Result merging")
struct ResultMergerTests {
    @Test("the same book by ISBN-10 in one source and ISBN-13 in another is one result with two sources")
    func mergesByISBN() {
        let merged = ResultMerger.merge([
            ("openlibrary", [book("openlibrary", "OL1W", "Quiet", isbns: ["0307352145", "9780307352149"])]),
            ("aladin", [book("aladin", "9780307352149", "Quiet (Korean)", isbns: ["9780307352149"])]),
        ])
        #expect(merged.count == 1)
        #expect(merged.first?.sources.map(\.provider) == ["openlibrary", "aladin"])
    }

    @Test("A=B by one ISBN and B=C by another merge into one result")
    func chainMerge() {
        let merged = ResultMerger.merge([
            ("a", [book("a", "1", "T", isbns: ["9780306406157"])]),
            ("b", [book("b", "2", "T", isbns: ["9780306406157", "9781841498584"])]),
            ("c", [book("c", "3", "T", isbns: ["9781841498584"])]),
        ])
        #expect(merged.count == 1)
        #expect(merged.first?.sources.count == 3)
    }

    @Test("an invalid ISBN never merges anything")
    func invalidISBNDoesNotMerge() {
        let merged = ResultMerger.merge([
            ("a", [book("a", "1", "One", isbns: ["9780306406158"])]),
            ("b", [book("b", "2", "Two", isbns: ["9780306406158"])]),
        ])
        #expect(merged.count == 2)
    }

    @Test("without ISBNs, the title key joins a work's editions; group=edition only those a year apart at most")
    func titleFallback() {
        let lists: [(provider: String, items: [Item])] = [
            ("a", [book("a", "1", "The Hobbit", creator: "J.R.R. Tolkien", year: 1937)]),
            ("b", [book("b", "2", "the hobbit!", creator: "J.R.R. Tolkien", year: 1937),
                   book("b", "3", "The Hobbit", creator: "J.R.R. Tolkien", year: 1950)]),
        ]
        let work = ResultMerger.merge(lists)
        #expect(work.count == 1)
        #expect(work.first?.sources.count == 3)
        let edition = ResultMerger.merge(lists, grouping: .edition)
        #expect(edition.count == 2)
        #expect(edition.first?.sources.count == 2)
    }

    @Test("GIFs are never merged")
    func gifsNeverMerge() {
        let gif = Item(id: ItemID(provider: "giphy", value: "x"), kind: .gif, title: "Cat")
        let gif2 = Item(id: ItemID(provider: "giphy", value: "y"), kind: .gif, title: "Cat")
        #expect(ResultMerger.merge([("giphy", [gif, gif2])]).count == 2)
    }

    @Test("score is |P| · Πw · Σ 1/p")
    func scoreFormula() throws {
        let merged = ResultMerger.merge([
            ("a", [book("a", "0", "Zero"), book("a", "1", "T", isbns: ["9780306406157"])]),
            ("b", [book("b", "2", "T", isbns: ["9780306406157"])]),
        ], weights: ["a": 2, "b": 1.5])
        let shared = try #require(merged.first { $0.sources.count == 2 })
        #expect(abs(shared.score - 2 * (2 * 1.5) * (1.0 / 2 + 1.0 / 1)) < 1e-9)
        #expect(merged.first?.item.title == "T")
    }

    @Test("merged fields follow the policy and record their provenance")
    func fieldPolicy() throws {
        var first = book("a", "1", "Title A", isbns: ["9780306406157"], year: 2001)
        first.creators = ["One"]
        var second = book("b", "2", "Title B", isbns: ["9780306406157"], year: 1999)
        second.creators = ["One", "Two"]
        second.images = [.large: ImageReference(url: try #require(URL(string: "http://x/l.jpg")), size: .large)]
        let merged = try #require(ResultMerger.merge([("a", [first]), ("b", [second])]).first)
        #expect(merged.item.title == "Title A")
        #expect(merged.item.year == 1999)
        #expect(merged.item.creators == ["One", "Two"])
        #expect(merged.provenance["year"] == "b")
        #expect(merged.provenance["image"] == "b")
        #expect(merged.provenance["title"] == "a")
    }
}
