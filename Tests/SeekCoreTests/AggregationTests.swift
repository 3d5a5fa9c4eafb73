import Foundation
import NIOConcurrencyHelpers
import SeekKit
import SeekHTTPClient
import SeekCore
import SeekIdentity
import SeekLoopback
import SeekTesting
import Testing

/// Books `prefix-1 … prefix-count`, each with its own valid ISBN-13 drawn from `isbnBase`.
func books(_ provider: String, count: Int, isbnBase: Int = 0) -> [Item] {
    (1...count).map { index in
        book(provider, "\(provider)-\(index)", "Book \(index) of \(provider)", isbns: [isbn13(isbnBase + index)])
    }
}

/// A valid ISBN-13 `978` + 9 digits of `number` + its check digit.
func isbn13(_ number: Int) -> String {
    let stem = "978" + String(format: "%09d", number % 1_000_000_000)
    let digits = stem.compactMap(\.wholeNumberValue)
    let sum = digits.enumerated().reduce(0) { $0 + ($1.offset % 2 == 0 ? $1.element : $1.element * 3) }
    return stem + String((10 - sum % 10) % 10)
}

func gif(_ value: String, _ title: String = "A GIF") -> Item {
    Item(id: ItemID(provider: "giphy", value: value), kind: .gif, title: title)
}

@Suite("Aggregation: cursor paging")
struct AggregationCursorTests {
    @Test("a cursor survives its token: positions, page and seen-set")
    func tokenRoundTrip() throws {
        var cursor = SearchCursor(positions: ["openlibrary": "100", "aladin": "3", "ünï": "x y"], page: 2)
        cursor.remember(books("a", count: 30), by: ResultMerger())
        let decoded = try SearchCursor(token: cursor.token)
        #expect(decoded == cursor)
        #expect(!cursor.token.contains("=") && !cursor.token.contains("+") && !cursor.token.contains("/"))
    }

    @Test("anything that is not a token is an invalid-input error, never a crash", arguments: [
        "", "abc", "!!!!", "AQ", "AQE", "AQEBYQ", "AgEAAA", "AQEAAQ", "AQEAAf____8P", String(repeating: "_", count: 400),
    ])
    func invalidTokens(token: String) {
        #expect(throws: SeekError.self) { try SearchCursor(token: token) }
    }

    @Test("a truncated token is rejected")
    func truncatedToken() {
        var cursor = SearchCursor(positions: ["a": "10"], page: 2)
        cursor.remember(books("a", count: 5), by: ResultMerger())
        #expect(throws: SeekError.self) { try SearchCursor(token: String(cursor.token.dropLast(3))) }
    }

    @Test("the seen-set stays compact: 300 shown books fit in a few kilobytes")
    func compactToken() {
        var cursor = SearchCursor(positions: ["a": "100", "b": "100", "c": "100"], page: 2)
        cursor.remember(books("a", count: 100) + books("b", count: 100, isbnBase: 500) + books("c", count: 100, isbnBase: 900), by: ResultMerger())
        #expect(cursor.token.count < 3300, "token is \(cursor.token.count) characters")
    }

    @Test("an Open Library work with hundreds of ISBNs adds only a few keys, yet any of them is recognised later")
    func manyISBNs() {
        let isbns = (1...300).map(isbn13)
        var cursor = SearchCursor(positions: [:], page: 2)
        cursor.remember([book("openlibrary", "OL1W", "Big", isbns: isbns)], by: ResultMerger())
        #expect(cursor.seen.count == 1 + SearchCursor.rememberedISBNs)
        #expect(cursor.hasSeen(book("aladin", isbn13(1), "Big", isbns: [isbn13(1)]), by: ResultMerger()))
        #expect(cursor.hasSeen(book("other", "x", "Big", isbns: Array(isbns.suffix(10)) + [isbn13(2)]), by: ResultMerger()))
        #expect(!cursor.hasSeen(book("aladin", isbn13(299), "Big", isbns: [isbn13(299)]), by: ResultMerger()))
    }

    @Test("paging with the cursor never repeats an item, even when a provider's pages overlap")
    func overlappingPagesDoNotRepeat() async throws {
        let provider = OverlappingProvider(id: "drift", items: books("drift", count: 25), overlap: 3)
        let engine = SearchEngine(registry: try ProviderRegistry([provider]), merger: ResultMerger())
        var seen: [ItemID] = []
        var options = SearchOptions(query: "x", limit: 10)
        var pages = 0
        while true {
            let result = try await engine.search(options)
            seen += result.results.map(\.item.id)
            pages += 1
            guard let next = result.next, pages < 10 else { break }
            options.cursor = next
        }
        #expect(pages == 3)
        #expect(seen.count == 25)
        #expect(Set(seen).count == 25)
    }

    @Test("a book one provider showed on page 1 is not repeated when another provider finds it on page 2")
    func crossProviderRepeatIsDropped() async throws {
        let shared = isbn13(777)
        let first = StubProvider(id: "a", items: [book("a", "1", "Shared", isbns: [shared])] + books("a", count: 1, isbnBase: 10))
        let second = StubProvider(id: "b", items: books("b", count: 2, isbnBase: 20) + [book("b", "late", "Shared", isbns: [shared])])
        let engine = SearchEngine(registry: try ProviderRegistry([first, second]), merger: ResultMerger())
        let page1 = try await engine.search(SearchOptions(query: "x", limit: 2))
        #expect(page1.results.contains { $0.item.title == "Shared" })
        let page2 = try await engine.search(SearchOptions(query: "x", limit: 2, cursor: page1.next))
        #expect(page2.results.isEmpty)
        #expect(page2.outcomes.first { $0.provider == "b" }?.count == 0)
        #expect(page2.next == nil)
    }

    @Test("exhausted providers drop out of the cursor; with all exhausted there is no next page")
    func exhaustedProvidersDropOut() async throws {
        let short = StubProvider(id: "short", items: books("short", count: 3))
        let long = StubProvider(id: "long", items: books("long", count: 8, isbnBase: 100))
        let engine = SearchEngine(registry: try ProviderRegistry([short, long]), merger: ResultMerger())
        let page1 = try await engine.search(SearchOptions(query: "x", limit: 5))
        #expect(page1.next?.positions == ["long": "5"])
        let page2 = try await engine.search(SearchOptions(query: "x", limit: 5, cursor: page1.next))
        #expect(page2.outcomes.map(\.provider) == ["long"])
        #expect(page2.page == 2)
        #expect(page2.results.count == 3)
        #expect(page2.next == nil)
    }

    @Test("a provider that times out while continuing keeps its place for the next page")
    func failedProviderKeepsPlace() async throws {
        let slow = StubProvider(id: "slow", items: books("slow", count: 10), delay: .seconds(5))
        let engine = SearchEngine(registry: try ProviderRegistry([slow]), merger: ResultMerger())
        let cursor = SearchCursor(positions: ["slow": "4"], page: 2)
        let result = try await engine.search(SearchOptions(query: "x", limit: 4, cursor: cursor, timeout: .milliseconds(100)))
        #expect(result.outcomes.first?.status == .timeout)
        #expect(result.next?.positions == ["slow": "4"])
        #expect(result.next?.page == 3)
    }

    @Test("--page N asks every provider for page N directly")
    func pageShortcut() async throws {
        let provider = StubProvider(id: "a", items: books("a", count: 30))
        let engine = SearchEngine(registry: try ProviderRegistry([provider]), merger: ResultMerger())
        let result = try await engine.search(SearchOptions(query: "x", limit: 10, page: 3))
        #expect(result.results.first?.item.id.value == "a-21")
        #expect(result.page == 3)
        #expect(result.next == nil)
    }
}

@Suite("Aggregation: deadlines and cancellation")
struct AggregationDeadlineTests {
    @Test("a provider that ignores cancellation cannot hold the search past its deadline")
    func stubbornProviderDoesNotHoldBack() async throws {
        let stubborn = StubbornProvider(id: "stubborn", holdFor: .seconds(6))
        let fast = StubProvider(id: "fast", items: books("fast", count: 2))
        let engine = SearchEngine(registry: try ProviderRegistry([stubborn, fast]), merger: ResultMerger())
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await engine.search(SearchOptions(query: "x", timeout: .milliseconds(300)))
        #expect(clock.now - started < .seconds(3))
        #expect(result.outcomes.map(\.status) == [.timeout, .ok])
        #expect(result.results.count == 2)
    }

    @Test("past the deadline the hung HTTP request is cancelled and its connection closed")
    func hungConnectionIsClosed() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        server.route("/hang", fault: .hang)
        let hung = HTTPProvider(id: "hung", url: server.url("/hang"), transport: transport)
        let fast = StubProvider(id: "fast", items: books("fast", count: 1))
        let engine = SearchEngine(registry: try ProviderRegistry([hung, fast]), merger: ResultMerger())
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await engine.search(SearchOptions(query: "x", timeout: .milliseconds(500)))
        let elapsed = clock.now - started
        let closed = await eventually { server.openConnectionCount == 0 }
        let requests = server.requestCount(path: "/hang")
        try await transport.shutdown()
        try await server.shutdown()
        #expect(elapsed < .seconds(4))
        #expect(requests == 1)
        #expect(closed, "the hung connection is still open after the deadline")
        #expect(result.outcomes.first?.status == .timeout)
        #expect(result.outcomes.first?.error?.provider == "hung")
        #expect(result.results.map(\.item.id.provider) == ["fast"])
    }

    @Test("every outcome carries the provider's elapsed time")
    func elapsedTimes() async throws {
        let slow = StubProvider(id: "slow", items: books("slow", count: 1), delay: .milliseconds(200))
        let engine = SearchEngine(registry: try ProviderRegistry([slow, StubProvider(id: "quick")]), merger: ResultMerger())
        let result = try await engine.search(SearchOptions(query: "x"))
        let slowOutcome = try #require(result.outcomes.first)
        #expect(slowOutcome.elapsed >= .milliseconds(200))
        #expect(slowOutcome.elapsedMilliseconds >= 200)
        #expect((result.outcomes.last?.elapsed ?? .seconds(9)) < slowOutcome.elapsed)
    }

    @Test("onBatch sees the fast provider's answer before the slow provider has answered")
    func batchesStreamAsTheyArrive() async throws {
        let slow = StubProvider(id: "slow", items: books("slow", count: 1), delay: .milliseconds(800))
        let fast = StubProvider(id: "fast", items: books("fast", count: 1))
        let engine = SearchEngine(registry: try ProviderRegistry([slow, fast]), merger: ResultMerger())
        let arrivals = NIOLockedValueBox<[(String, ContinuousClock.Instant)]>([])
        let started = ContinuousClock.now
        let result = try await engine.search(SearchOptions(query: "x")) { batch in
            arrivals.withLockedValue { $0.append((batch.outcome.provider, ContinuousClock.now)) }
        }
        let seen = arrivals.withLockedValue { $0 }
        #expect(seen.map(\.0) == ["fast", "slow"])
        #expect((seen.last?.1 ?? started) - started >= .milliseconds(800))
        #expect(result.outcomes.map(\.provider) == ["slow", "fast"])
    }

    @Test("a configured timeout replaces the descriptor default, and the search's own timeout beats both")
    func tunedTimeout() async throws {
        let slow = StubProvider(id: "slow", items: books("slow", count: 1), delay: .milliseconds(600))
        let tuned = SearchEngine(registry: try ProviderRegistry([slow]), tuning: ["slow": ProviderTuning(timeout: .milliseconds(200))], merger: ResultMerger())
        #expect(try await tuned.search(SearchOptions(query: "x")).outcomes.first?.status == .timeout)
        let overridden = try await tuned.search(SearchOptions(query: "x", timeout: .seconds(5)))
        #expect(overridden.outcomes.first?.status == .ok)
        #expect(tuned.timeout(for: slow) == .milliseconds(200))
        #expect(tuned.timeout(for: StubProvider(id: "other")) == .seconds(10))
    }

    @Test("timeouts and weights come from providers.<id> in the config file; bad ones are configuration errors")
    func tuningFromSettings() throws {
        let file = JSONValue.object(["providers": .object([
            "giphy": .object(["timeout": .number(2.5), "weight": .number(0.5)]),
            "aladin": .object(["weight": .number(2)]),
        ])])
        let tuning = try ProviderTuning.load(from: Settings(file: file), providers: ["openlibrary", "giphy", "aladin"])
        #expect(tuning["giphy"] == ProviderTuning(timeout: .milliseconds(2500), weight: 0.5))
        #expect(tuning["aladin"] == ProviderTuning(weight: 2))
        #expect(tuning["openlibrary"] == nil)
        for bad in [JSONValue.object(["timeout": .number(0)]), .object(["weight": .number(-1)])] {
            let settings = Settings(file: .object(["providers": .object(["giphy": bad])]))
            #expect(throws: SeekError.self) { try ProviderTuning.load(from: settings, providers: ["giphy"]) }
        }
    }

    @Test("a configured weight lifts a provider's results above an unweighted one's")
    func tunedWeight() async throws {
        let a = StubProvider(id: "a", items: books("a", count: 2))
        let b = StubProvider(id: "b", items: books("b", count: 2, isbnBase: 50))
        let plain = SearchEngine(registry: try ProviderRegistry([a, b]), merger: ResultMerger())
        #expect(try await plain.search(SearchOptions(query: "x")).results.first?.item.provider == "a")
        let weighted = SearchEngine(registry: try ProviderRegistry([a, b]), tuning: ["b": ProviderTuning(weight: 3)], merger: ResultMerger())
        let result = try await weighted.search(SearchOptions(query: "x"))
        #expect(result.results.prefix(2).map(\.item.provider) == ["b", "b"])
        #expect(result.results.first?.sources.first?.weight == 3)
    }
}

@Suite("Aggregation: ranking and merging")
struct AggregationRankingTests {
    @Test("reciprocal rank fusion scores Σ w/(60 + p)")
    func rrfScore() throws {
        let merged = ResultMerger.merge([
            ("a", [book("a", "0", "Zero"), book("a", "1", "T", isbns: ["9780306406157"])]),
            ("b", [book("b", "2", "T", isbns: ["9780306406157"])]),
        ], weights: ["a": 2, "b": 1.5], ranking: .rrf)
        let shared = try #require(merged.first { $0.sources.count == 2 })
        #expect(abs(shared.score - (2.0 / 62 + 1.5 / 61)) < 1e-12)
        #expect(merged.first?.item.title == "T")
    }

    @Test("the two rankings can order results differently")
    func rankingsDiffer() {
        // One book first at a single provider, another found by two providers further down.
        let lists: [(provider: String, items: [Item])] = [
            ("a", [book("a", "solo", "Solo")] + books("a", count: 8, isbnBase: 100) + [book("a", "x", "Both", isbns: [isbn13(900)])]),
            ("b", books("b", count: 8, isbnBase: 200) + [book("b", "y", "Both", isbns: [isbn13(900)])]),
        ]
        let searxng = ResultMerger.merge(lists, ranking: .searxng)
        let rrf = ResultMerger.merge(lists, ranking: .rrf)
        #expect(searxng.first?.item.title == "Solo")
        #expect(rrf.first?.item.title == "Both")
    }

    @Test("the score's terms spell out each formula")
    func explainTerms() {
        let sources = [
            ResultSource(provider: "a", id: ItemID(provider: "a", value: "1"), rank: 1, weight: 1),
            ResultSource(provider: "b", id: ItemID(provider: "b", value: "2"), rank: 3, weight: 1.5),
        ]
        #expect(RankingMethod.searxng.terms(sources) == "2 × (1 × 1.5) × (1/1 + 1/3)")
        #expect(RankingMethod.rrf.terms(sources) == "1/(60+1) + 1.5/(60+3)")
        #expect(abs(RankingMethod.searxng.score(sources) - 2 * 1.5 * (1 + 1.0 / 3)) < 1e-12)
    }

    @Test("a mixed search interleaves GIFs and books by score")
    func mixedInterleaves() async throws {
        let library = StubProvider(id: "library", items: books("library", count: 3))
        let gifs = StubProvider(id: "giphy", items: [gif("g1"), gif("g2"), gif("g3")])
        let engine = SearchEngine(registry: try ProviderRegistry([library, gifs]), merger: ResultMerger())
        let result = try await engine.search(SearchOptions(query: "x"))
        #expect(result.results.map(\.item.kind) == [.book, .gif, .book, .gif, .book, .gif])
        #expect(result.results.allSatisfy { $0.sources.count == 1 })
    }

    @Test("a GIF never merges with a book, whatever their titles")
    func gifNeverMergesWithBook() {
        let merged = ResultMerger.merge([
            ("library", [book("library", "1", "Cats")]),
            ("giphy", [gif("c", "Cats")]),
        ])
        #expect(merged.count == 2)
    }

    @Test("full records merge to the longest description, and say which provider gave it")
    func detailsPolicy() throws {
        let short = ItemDetail(item: book("a", "1", "T", isbns: [isbn13(5)], year: 2001), description: "Short.", subjects: ["One"])
        let long = ItemDetail(item: book("b", "2", "T", isbns: [isbn13(5)], year: 1999),
                              description: "A much longer description of the same book.", subjects: ["One", "Two"])
        let (detail, provenance) = try #require(ResultMerger.mergeDetails([("a", short), ("b", long)]))
        #expect(detail.description == long.description)
        #expect(provenance["description"] == "b")
        #expect(detail.subjects == ["One", "Two"])
        #expect(detail.item.year == 1999)
        #expect(provenance["year"] == "b")
        #expect(provenance["title"] == "a")
    }

    @Test("the largest cover wins, by size and then by pixels")
    func largestCover() throws {
        let small = try #require(URL(string: "http://x/s.jpg")), big = try #require(URL(string: "http://x/b.jpg"))
        var first = book("a", "1", "T", isbns: [isbn13(8)])
        first.images = [.large: ImageReference(url: small, size: .large, width: 200, height: 300)]
        var second = book("b", "2", "T", isbns: [isbn13(8)])
        second.images = [.large: ImageReference(url: big, size: .large, width: 400, height: 600)]
        let merged = try #require(ResultMerger.merge([("a", [first]), ("b", [second])]).first)
        #expect(merged.item.image(.large)?.url == big)
        #expect(merged.provenance["image"] == "b")
    }

    @Test("covers whose pixel counts overflow an Int are compared as the largest, without a trap")
    func hugeCovers() throws {
        let url = try #require(URL(string: "http://x/c.jpg")), other = try #require(URL(string: "http://x/d.jpg"))
        var first = book("a", "1", "T", isbns: [isbn13(9)])
        first.images = [.large: ImageReference(url: other, size: .large, width: 400, height: 600)]
        var second = book("b", "2", "T", isbns: [isbn13(9)])
        second.images = [.large: ImageReference(url: url, size: .large, width: 9_000_000_000_000_000, height: 9_000_000_000_000_000)]
        var third = book("c", "3", "T", isbns: [isbn13(9)])
        third.images = [.large: ImageReference(url: other, size: .large, width: -9_000_000_000_000_000, height: 9_000_000_000_000_000)]
        let merged = try #require(ResultMerger.merge([("a", [first]), ("b", [second]), ("c", [third])]).first)
        #expect(merged.item.image(.large)?.url == url)
        #expect(merged.provenance["image"] == "b")
    }

    @Test("an item's image is the size asked for, else the next larger, else the largest smaller")
    func closestImage() throws {
        let small = try #require(URL(string: "http://x/s.jpg")), large = try #require(URL(string: "http://x/l.jpg"))
        var item = book("a", "1", "T", isbns: [])
        item.images = [.small: ImageReference(url: small, size: .small), .large: ImageReference(url: large, size: .large)]
        #expect(item.image(.small)?.url == small)
        #expect(item.image(.medium)?.url == large)
        #expect(item.image(.large)?.url == large)
        #expect(item.image(.original)?.url == large)
        item.images[.large] = nil
        #expect(item.image(.original)?.url == small)
        item.images = [:]
        #expect(item.image(.medium) == nil)
    }

    @Test("image sizes order, compare and hash by their place, smallest first")
    func imageSizes() {
        #expect(ImageSize.ascending == [.small, .medium, .large, .original])
        #expect(ImageSize.ascending.map(\.rank) == [0, 1, 2, 3])
        #expect(ImageSize.small < .medium && .large < .original && !(ImageSize.original < .small))
        #expect(Set(ImageSize.allCases).count == 4)
        #expect(ImageSize(rawValue: "large") == .large && ImageSize.large != .medium)
    }
}

// MARK: - Test providers

/// Polls `condition` every 20 ms for up to `limit`.
func eventually(within limit: Duration = .seconds(3), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// An offset-paged provider whose pages start `overlap` items early, repeating the end of the last page.
struct OverlappingProvider: SearchProvider {
    let descriptor: ProviderDescriptor
    let items: [Item]
    let overlap: Int

    init(id: String, items: [Item], overlap: Int) {
        descriptor = ProviderDescriptor(id: id, name: id, kinds: [.book], capabilities: [.search], paging: .offset)
        self.items = items
        self.overlap = overlap
    }

    var endpoint: String { "stub://\(descriptor.id)" }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let start = max(0, request.offset - overlap)
        let end = min(items.count, request.offset + request.limit)
        let slice = start < end ? Array(items[start..<end]) : []
        let next = end < items.count ? String(end) : nil
        return SearchPage(items: slice, total: items.count, next: next)
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { throw SeekError(.notFound, provider: descriptor.id) }
}

/// A provider that ignores cancellation: it answers only after `holdFor`, whatever happens.
struct StubbornProvider: SearchProvider {
    let descriptor: ProviderDescriptor
    let holdFor: Duration

    init(id: String, holdFor: Duration) {
        descriptor = ProviderDescriptor(id: id, name: id, kinds: [.book], capabilities: [.search], paging: .offset)
        self.holdFor = holdFor
    }

    var endpoint: String { "stub://\(descriptor.id)" }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let seconds = holdFor.seconds
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { continuation.resume() }
        }
        return SearchPage(items: [])
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { throw SeekError(.notFound, provider: descriptor.id) }
}

/// A provider that GETs one URL over real HTTP and returns nothing: for deadline and cancellation tests.
struct HTTPProvider: SearchProvider {
    let descriptor: ProviderDescriptor
    let url: URL
    let client: ProviderClient

    init(id: String, url: URL, transport: any HTTPTransport) {
        descriptor = ProviderDescriptor(id: id, name: id, kinds: [.book], capabilities: [.search], paging: .offset)
        self.url = url
        client = ProviderClient(provider: id, transport: transport, timeout: .seconds(30))
    }

    var endpoint: String { url.absoluteString }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        _ = try await client.get(url)
        return SearchPage(items: [])
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { throw SeekError(.notFound, provider: descriptor.id) }
}
