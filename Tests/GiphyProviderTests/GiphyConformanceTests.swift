import Foundation
import GiphyProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("GIPHY conformance")
struct GiphyConformanceTests {
    static let key = "giphyCONFORMANCEkey-do-not-leak"

    static let kit = ProviderConformance(
        factory: GiphyProvider.factory,
        environment: { base in
            ["SEEK_GIPHY_URL": base.appendingPathComponent("giphy").absoluteString, "SEEK_GIPHY_API_KEY": key]
        },
        query: "cat",
        search: .json([
            "/giphy/v1/gifs/search": listJSON([gifJSON(id: "cat1", title: "Cat GIF"), gifJSON(id: "cat2")], total: 2),
            "/giphy/v1/gifs/cat1": #"{"data": \#(gifJSON(id: "cat1", title: "Cat GIF")), "meta": {"status": 200, "msg": "OK"}}"#,
        ]),
        emptyQuery: "zzqxj",
        emptySearch: .json(["/giphy/v1/gifs/search": listJSON([], total: 0)]),
        trending: .json(["/giphy/v1/gifs/trending": listJSON([gifJSON(id: "t1")], total: 1)]),
        errors: [
            ConformanceErrorCase(
                "a rejected key", call: .search("cat"),
                recording: .responses(["/giphy/v1/gifs/search": .json(#"{"message": "Unauthorized"}"#, status: 401)]),
                expect: .status(.unauthorized)),
            ConformanceErrorCase(
                "the hourly quota", call: .search("cat"),
                recording: .responses(["/giphy/v1/gifs/search": .json(#"{"meta": {"status": 429, "msg": "API rate limit exceeded"}}"#, status: 429)]),
                expect: .status(.rateLimited)),
            ConformanceErrorCase(
                "an unknown GIF", call: .detail(ItemID(provider: "giphy", value: "nope")),
                recording: .responses(["/giphy/v1/gifs/nope": .json(#"{"data": [], "meta": {"status": 404, "msg": "Not Found"}}"#, status: 404)]),
                expect: .kind(.notFound)),
        ],
        secrets: [key])

    @Test("GIPHY passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
    }
}
