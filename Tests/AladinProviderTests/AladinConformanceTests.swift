import AladinProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("Aladin conformance")
struct AladinConformanceTests {
    static let kit = ProviderConformance(
        factory: AladinProvider.factory,
        environment: { base in
            ["SEEK_ALADIN_URL": base.appendingPathComponent("ttb/api").absoluteString, "SEEK_ALADIN_TTB_KEY": fakeKey]
        },
        query: "오베",
        search: .json([
            searchPath: envelopeJSON([itemJSON(), itemJSON(title: "다른 책", isbn13: "9788936434120", itemId: 1)], total: 2),
            lookupPath: envelopeJSON([itemJSON(description: "까칠한 남자 오베 &lt;이야기&gt;")], total: 1),
        ]),
        emptyQuery: "zzqxj",
        emptySearch: .json([searchPath: envelopeJSON([], total: 0)]),
        trending: .json([listPath: envelopeJSON([itemJSON()], total: 1)]),
        errors: [
            ConformanceErrorCase(
                "an invalid key, sent with HTTP 200", call: .search("오베"),
                recording: .json([searchPath: #"{"errorCode": 100, "errorMessage": "잘못된 TTBKey 입니다."}"#]),
                expect: .status(.unauthorized)),
            ConformanceErrorCase(
                "an unknown book", call: .detail(ItemID(provider: "aladin", value: "9791130600000")),
                recording: .json([lookupPath: #"{"errorCode": 8, "errorMessage": "존재하지 않는 상품입니다."}"#]),
                expect: .kind(.notFound)),
        ],
        secrets: [fakeKey])

    @Test("Aladin passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
    }
}
