import Foundation
import GoogleBooksProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("Google Books conformance")
struct GoogleBooksConformanceTests {
    static let kit = ProviderConformance(
        factory: GoogleBooksProvider.factory,
        environment: { base in ["SEEK_GOOGLEBOOKS_URL": base.absoluteString, "SEEK_GOOGLEBOOKS_API_KEY": fakeKey] },
        query: "fantastic beasts",
        search: .json([
            volumesPath: volumesJSON([volumeJSON(), volumeJSON(id: "f280CwAAQBAJ", title: "Harry Potter: The Complete Collection")], total: 2),
            volumesPath + "/s77iyQEACAAJ": volumeJSON(info: #""description": "<p>A book.</p>""#),
        ]),
        emptyQuery: "zzqxj",
        emptySearch: .json([volumesPath: #"{"kind": "books#volumes", "totalItems": 0}"#]),
        errors: [
            ConformanceErrorCase(
                "an invalid key (400 API_KEY_INVALID)", call: .search("x"),
                recording: .responses([volumesPath: .json(#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "errors": [{"reason": "badRequest"}], "status": "INVALID_ARGUMENT", "details": [{"reason": "API_KEY_INVALID"}]}}"#, status: 400)]),
                expect: .status(.unauthorized)),
            ConformanceErrorCase(
                "the daily quota (429)", call: .search("x"),
                recording: .responses([volumesPath: .json(#"{"error": {"code": 429, "message": "Quota exceeded for quota metric 'Queries' and limit 'Queries per day'", "status": "RESOURCE_EXHAUSTED"}}"#, status: 429)]),
                expect: .status(.rateLimited)),
            ConformanceErrorCase(
                "an unknown volume", call: .detail(ItemID(provider: "googlebooks", value: "missingAAAAJ")),
                recording: .responses([volumesPath + "/missingAAAAJ": .json(#"{"error": {"code": 404, "message": "The volume ID could not be found."}}"#, status: 404)]),
                expect: .kind(.notFound)),
        ],
        secrets: [fakeKey])

    @Test("Google Books passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
    }
}
