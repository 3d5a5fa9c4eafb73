import DeclaredProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// The conformance kit, run on a provider declared in the config file with no Swift: the issue's
/// example declaration (plus `errorPath`, so IT Bookstore's HTTP 200 errors are read as errors).
@Suite("Config-declared providers: conformance")
struct JSONDeclaredConformanceTests {
    static let kit = ProviderConformance(
        provider: { base, transport in
            try makeDeclared(
                itJSON(base: base, ["errorPath": "error", "okValues": ["0"], "trendingURL": base.absoluteString + "/it/new"]),
                transport: transport)
        },
        query: "harbor",
        search: .json(["/it/search/harbor/1": ITJSONSamples.search, "/it/books/9781617294136": ITJSONSamples.book]),
        emptyQuery: "zzqxj",
        emptySearch: .json(["/it/search/zzqxj/1": ITJSONSamples.empty]),
        trending: .json(["/it/new": ITJSONSamples.search]),
        errors: [
            ConformanceErrorCase(
                "a search error sent with HTTP 200", call: .search("harbor"),
                recording: .json(["/it/search/harbor/1": ITJSONSamples.error]), expect: .kind(.invalidInput)),
            ConformanceErrorCase(
                "an unknown book sent with HTTP 200", call: .detail(ItemID(provider: "itjson", value: "9780000000002")),
                recording: .json(["/it/books/9780000000002": ITJSONSamples.unknownBook]), expect: .kind(.notFound)),
            ConformanceErrorCase(
                "rate limited", call: .search("harbor"),
                recording: .responses(["/it/search/harbor/1": .json("{}", status: 429)]), expect: .status(.rateLimited)),
            ConformanceErrorCase(
                "a trending error", call: .trending,
                recording: .responses(["/it/new": .json("{}", status: 503)]), expect: .status(.error)),
        ])

    /// The same declaration with a key in its search URL, so the kit also checks the key never shows.
    static let keyedKit = ProviderConformance(
        provider: { base, transport in
            try makeDeclared(
                itJSON(base: base, ["searchURL": base.absoluteString + "/it/search/{query}/{page}?key={key}"]),
                environment: ["ITJSON_KEY": "itjsonCONFORMANCEkey"], transport: transport)
        },
        query: "harbor",
        search: .json(["/it/search/harbor/1": ITJSONSamples.search, "/it/books/9781617294136": ITJSONSamples.book]),
        emptyQuery: "zzqxj",
        emptySearch: .json(["/it/search/zzqxj/1": ITJSONSamples.empty]),
        errors: [
            ConformanceErrorCase(
                "a rejected key that the server echoes", call: .search("harbor"),
                recording: .responses(["/it/search/harbor/1": .json(#"{"message": "bad key itjsonCONFORMANCEkey"}"#, status: 401)]),
                expect: .status(.unauthorized)),
        ],
        secrets: ["itjsonCONFORMANCEkey"])

    @Test("a config-declared provider passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
        #expect(report.checks.allSatisfy { $0.skipped == nil }, "\(report)")
    }

    @Test("a config-declared provider with a key passes the conformance kit without showing the key")
    func keyedConformance() async {
        let report = await Self.keyedKit.run()
        #expect(report.passed, "\(report)")
    }

    @Test("the kit fails a declaration whose paths miss the results, so its pass means something")
    func kitCanFail() async {
        var kit = Self.kit
        kit.makeProvider = { base, transport in
            try makeDeclared(itJSON(base: base, ["itemsPath": "results"]), transport: transport)
        }
        let report = await kit.run()
        #expect(!report.passed)
        #expect(report.failures.contains { $0.hasPrefix("search decodes") }, "\(report)")
    }
}
