import Foundation
import ITBookstoreProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("IT Bookstore conformance")
struct ITBookstoreConformanceTests {
    /// The kit, run as the composition root builds the provider: through its factory and SEEK_ITBOOK_URL.
    static let kit = ProviderConformance(
        factory: ITBookstoreProvider.factory,
        environment: { base in ["SEEK_ITBOOK_URL": base.appendingPathComponent("itbook").absoluteString] },
        query: "devops",
        search: .json([
            "/itbook/search/devops/1": ITBookSamples.search,
            "/itbook/books/9781617294136": ITBookSamples.book,
        ]),
        emptyQuery: "zzqxj",
        emptySearch: .json(["/itbook/search/zzqxj/1": ITBookSamples.empty]),
        trending: .json(["/itbook/new": ITBookSamples.new]),
        errors: [
            ConformanceErrorCase(
                "a search error sent with HTTP 200", call: .search("devops"),
                recording: .json(["/itbook/search/devops/1": #"{"error": "[search] Invalid request"}"#]),
                expect: .kind(.invalidInput)),
            ConformanceErrorCase(
                "an unknown book", call: .detail(ItemID(provider: "itbook", value: "9780000000002")),
                recording: .json(["/itbook/books/9780000000002": ITBookSamples.invalid]), expect: .kind(.notFound)),
            ConformanceErrorCase(
                "rate limited", call: .search("devops"),
                recording: .responses(["/itbook/search/devops/1": .json(#"{"error": "slow down"}"#, status: 429)]),
                expect: .status(.rateLimited)),
        ])

    @Test("the example provider passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
        #expect(report.checks.allSatisfy { $0.skipped == nil }, "\(report)")
    }
}
