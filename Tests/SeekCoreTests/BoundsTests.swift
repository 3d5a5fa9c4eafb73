import Foundation
import SeekCore
import SeekIdentity
import Testing

/// The values the fuzzer fed seek: huge, negative, NaN, infinite, 2^63, -0.
let extremeDoubles: [Double] = [.nan, .infinity, -.infinity, 9_223_372_036_854_775_808, 1e19, 1e300, -1e300, -0.0, -1]

@Suite("Checked conversions of outside numbers")
struct CheckedConversionTests {
    @Test("Int(checked:) is nil for NaN, infinity and anything past 2^53, instead of trapping", arguments: extremeDoubles.prefix(7))
    func checkedIntRefusesOutOfRange(value: Double) {
        #expect(Int(checked: value) == nil)
    }

    @Test("Int(checked:) rounds a value in range toward zero; -0 is 0")
    func checkedIntRoundsTowardZero() {
        #expect(Int(checked: 3.9) == 3)
        #expect(Int(checked: -3.9) == -3)
        #expect(Int(checked: -0.0) == 0)
    }

    @Test("Int(saturating:) clamps to ±2^53 and makes NaN 0")
    func saturatingIntClamps() {
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: .infinity) == 9_007_199_254_740_992)
        #expect(Int(saturating: -1e300) == -9_007_199_254_740_992)
        #expect(Int(saturating: 42.7) == 42)
    }

    @Test("Duration.seconds(clamping:) is zero for NaN, negatives and -0, and the limit for infinity and 1e300")
    func durationClamps() {
        #expect(Duration.seconds(clamping: .nan) == .zero)
        #expect(Duration.seconds(clamping: -0.0) == .zero)
        #expect(Duration.seconds(clamping: -5) == .zero)
        let limit = Duration.seconds(clamping: Duration.clampingLimitSeconds)
        #expect(Duration.seconds(clamping: .infinity) == limit)
        #expect(Duration.seconds(clamping: 1e300) == limit)
        #expect(Duration.seconds(clamping: Double(Int.max - 1)) == limit)
        #expect(Duration.seconds(clamping: 1.5) == .milliseconds(1500))
        #expect(Duration.seconds(clamping: 1e19, maximum: 86_400) == .seconds(86_400))
    }

    @Test("SeekError.format writes any number without trapping: 2^63 and 1e19 in short form")
    func formatNeverTraps() {
        #expect(SeekError.format(Double(Int.max - 1)) == "9.223372036854776e+18")
        #expect(SeekError.format(1e19) == "1e+19")
        #expect(SeekError.format(.infinity) == "inf")
        #expect(SeekError.format(.nan) == "nan")
        #expect(SeekError.format(-0.0) == "0")
        #expect(SeekError.format(30) == "30")
        #expect(SeekError.format(2.5) == "2.5")
    }

    @Test("a rate-limited error with a Retry-After of 1e19 seconds describes itself without trapping")
    func hugeRetryAfterDescription() {
        let error = SeekError(.rateLimited(retryAfterSeconds: 1e19), provider: "openlibrary")
        #expect(error.description == "openlibrary: rate limited (retry after 1e+19s)")
    }
}

@Suite("How deep a search pages")
struct PagingDepthTests {
    @Test("(page − 1) × limit is checked: up to maxOffset, nil past it or on overflow")
    func checkedOffset() {
        #expect(SearchRequest.checkedOffset(page: 5001, limit: 20) == 100_000)
        #expect(SearchRequest.checkedOffset(page: 5002, limit: 20) == nil)
        #expect(SearchRequest.checkedOffset(page: 1_000_000_000_000_000_000, limit: 20) == nil)
        #expect(SearchRequest.checkedOffset(page: .max, limit: .max) == nil)
        #expect(SearchRequest.checkedOffset(page: 0, limit: 20) == nil)
        #expect(SearchRequest.checkedOffset(page: 1, limit: 0) == nil)
    }

    @Test("a request for page 10^18 keeps its offset at maxOffset instead of overflowing")
    func hugePageDoesNotOverflow() {
        let request = SearchRequest(query: "cat", page: 1_000_000_000_000_000_000, limit: 20)
        #expect(request.page == SearchRequest.maxPage)
        #expect(request.offset == SearchRequest.maxOffset)
        #expect(SearchRequest(query: "cat", page: .max, limit: .max).offset == SearchRequest.maxOffset)
    }

    @Test("an offset cursor of 2^63 − 1 is clamped to maxOffset; a negative one falls back to the page")
    func offsetCursorIsClamped() {
        #expect(SearchRequest(query: "cat", cursor: "9223372036854775807").offset == SearchRequest.maxOffset)
        #expect(SearchRequest(query: "cat", page: 2, cursor: "-5", limit: 10).offset == 10)
    }

    @Test("the next offset stops at maxOffset instead of overflowing")
    func nextOffsetStops() {
        let deep = SearchRequest(query: "cat", cursor: String(SearchRequest.maxOffset - 10), limit: 20)
        #expect(SearchPage.nextOffset(after: deep, received: 20, total: nil) == nil)
        let near = SearchRequest(query: "cat", cursor: "100", limit: 20)
        #expect(SearchPage.nextOffset(after: near, received: 20, total: nil) == "120")
        #expect(SearchPage.nextOffset(after: near, received: .max, total: nil) == nil)
    }

    @Test("a cursor token whose page is past maxPage is not a cursor")
    func hugeCursorPageIsRefused() {
        let forged = SearchCursor(positions: ["stub": "20"], page: .max).token
        #expect(throws: SeekError.self) { try SearchCursor(token: forged) }
        let deepest = SearchCursor(positions: ["stub": "20"], page: SearchRequest.maxPage).token
        #expect((try? SearchCursor(token: deepest))?.page == SearchRequest.maxPage)
    }

    @Test("engine.search refuses page 10^18 as invalid input instead of trapping")
    func engineRefusesHugePage() async throws {
        let engine = SearchEngine(registry: try ProviderRegistry([StubProvider(id: "stub")]), merger: ResultMerger())
        let error = await #expect(throws: SeekError.self) {
            try await engine.search(SearchOptions(query: "cat", page: 1_000_000_000_000_000_000))
        }
        #expect(error?.kind == .invalidInput)
        #expect(error?.detail.contains("100000") == true)
    }

    @Test("an offset position that is huge, negative or not a number is not a cursor from seek",
          arguments: ["9223372036854775807", "100001", "-1", "1e3", "abc", ""])
    func forgedOffsetPosition(position: String) async throws {
        let engine = SearchEngine(registry: try ProviderRegistry([StubProvider(id: "stub")]), merger: ResultMerger())
        let cursor = SearchCursor(positions: ["stub": position], page: 2)
        let error = await #expect(throws: SeekError.self) {
            try await engine.search(SearchOptions(query: "cat", cursor: cursor))
        }
        #expect(error?.kind == .invalidInput)
        #expect(error?.detail.hasPrefix("not a cursor from seek") == true)
    }

    @Test("a page position past the deepest page is not a cursor from seek", arguments: ["9223372036854775807", "0", "-3"])
    func forgedPagePosition(position: String) async throws {
        let paged = PagedStub()
        let engine = SearchEngine(registry: try ProviderRegistry([paged]), merger: ResultMerger())
        let cursor = SearchCursor(positions: ["paged": position], page: 2)
        let error = await #expect(throws: SeekError.self) {
            try await engine.search(SearchOptions(query: "cat", cursor: cursor))
        }
        #expect(error?.detail.contains("paged's page") == true)
    }

    @Test("an offset position at maxOffset is still followed")
    func deepestOffsetPosition() async throws {
        let engine = SearchEngine(registry: try ProviderRegistry([StubProvider(id: "stub", items: [book("stub", "1", "A")])]), merger: ResultMerger())
        let cursor = SearchCursor(positions: ["stub": String(SearchRequest.maxOffset)], page: 2)
        let result = try await engine.search(SearchOptions(query: "cat", cursor: cursor))
        #expect(result.outcomes.first?.status == .empty)
    }
}

/// A page-paged provider that answers nothing.
private struct PagedStub: SearchProvider {
    let descriptor = ProviderDescriptor(id: "paged", name: "Paged", kinds: [.book], capabilities: [.search], paging: .page)
    var endpoint: String { "stub://paged" }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage { SearchPage(items: []) }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { throw SeekError(.notFound) }
}
