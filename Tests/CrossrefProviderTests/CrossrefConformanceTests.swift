import CrossrefProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("Crossref conformance")
struct CrossrefConformanceTests {
    static let kit = ProviderConformance(
        factory: CrossrefProvider.factory,
        environment: { base in ["SEEK_CROSSREF_URL": base.absoluteString, "SEEK_CROSSREF_MAILTO": fakeMailto] },
        query: "lovelace",
        search: .json([
            worksPath: worksJSON([workJSON(), workJSON(doi: "10.1000/book.2", title: "Another Book")], total: 2),
            worksPath + "/10.1000/book.1": workAnswer(workJSON(extra: #""abstract": "<jats:p>Notes &amp; more.</jats:p>""#)),
        ]),
        emptyQuery: "zzqxj",
        emptySearch: .json([worksPath: worksJSON([], total: 0)]),
        errors: [
            ConformanceErrorCase(
                "an unknown DOI (plain-text 404)", call: .detail(ItemID(provider: "crossref", value: "10.1371/notarealdoi")),
                recording: .responses([worksPath + "/10.1371/notarealdoi": FixtureResponse(
                    status: 404, headers: [("Content-Type", "text/plain")], body: Array("Resource not found.".utf8))]),
                expect: .kind(.notFound)),
            ConformanceErrorCase(
                "a validation failure (400)", call: .search("x"),
                recording: .responses([worksPath: .json(#"{"status":"failed","message-type":"validation-failure","message":[{"type":"parameter-not-allowed","value":"query.*","message":"This route does not support field query parameters"}]}"#, status: 400)]),
                expect: .kind(.invalidInput)),
            ConformanceErrorCase(
                "too many requests (429)", call: .search("x"),
                recording: .responses([worksPath: FixtureResponse(status: 429, headers: [("Retry-After", "3")], body: [])]),
                expect: .status(.rateLimited)),
        ],
        secrets: [fakeMailto])

    @Test("Crossref passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
    }
}
