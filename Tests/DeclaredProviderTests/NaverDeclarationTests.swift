import DeclaredProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// Naver Book Search, shipped as the declaration Bundled/naver.json, against a stand-in that speaks
/// `/v1/search/book.json` and `book_adv.json` with the recorded bodies and, as Naver does, answers 401
/// unless both `X-Naver-Client-Id` and `X-Naver-Client-Secret` are sent.
@Suite("Bundled declaration: Naver", .enabled(if: SharedFixtures.directory != nil, "needs ../shared/fixtures"))
struct NaverDeclarationTests {
    static let id = "naverTESTclientID"
    static let secret = "naverTESTsecret-0123"
    static let environment = ["SEEK_NAVER_CLIENT_ID": id, "SEEK_NAVER_CLIENT_SECRET": secret]
    static let harry = "search_harry_empty_authors_2025-07_fegguri.json"
    static let lemonde = "search_lemonde_caret_authors_trimmed_2025-12_inline.json"
    static let bonobono = "search_bonobono_display2_sort_count_legacy_2017-09_inline.json"
    static let empty = "search_empty_apihub_2026-10_inline.json"

    static func serve(_ server: FixtureServer, _ body: String, path: String = "/v1/search/book.json") throws {
        let denied = try recorded("naver", "error_401_not_exist_client_id_inline.json")
        server.route(path, handler: standIn(
            unauthorized: denied,
            authorized: { $0.header("X-Naver-Client-Id") == Self.id && $0.header("X-Naver-Client-Secret") == Self.secret }
        ) { _ in .json(body) })
    }

    static func search(_ file: String, query: String = "harry") async throws -> SearchPage {
        try await withBundled("naver", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("naver", file))
            return try await provider.search(SearchRequest(query: query))
        }
    }

    @Test("every recorded success body maps to items with titles and ids; Naver's `^` authors are separate creators")
    func everySuccessBody() async throws {
        let files = recordedFiles("naver", prefix: "search_").filter { $0 != Self.empty }
        #expect(files.count >= 3)
        for file in files {
            let count = try #require(try recordedObject("naver", file)["items"] as? [Any]).count
            let page = try await Self.search(file)
            #expect(page.items.count == count, "\(file)")
            #expect(page.items.allSatisfy { !$0.title.isEmpty && !$0.title.contains("<b>") }, "\(file)")
            #expect(page.items.allSatisfy { $0.id.provider == "naver" && !$0.identifiers.isbn13.isEmpty }, "\(file)")
        }
        let lemonde = try await Self.search(Self.lemonde)
        #expect(lemonde.items.first?.creators == ["브누아 브레빌", "르몽드디플로마티크 편집부"])
        #expect(lemonde.items.first?.id.description == "naver:9791192618944")
        #expect(lemonde.items.first?.year == 2025)
        let harry = try await Self.search(Self.harry)
        #expect(harry.items.allSatisfy { $0.creators.isEmpty }, "an empty author is no creator")
        #expect(harry.items.first?.url?.absoluteString == "https://search.shopping.naver.com/book/catalog/54297850481")
        #expect(harry.items.first?.image(.medium)?.url.host == "shopping-phinf.pstatic.net")
        #expect(harry.total == 4905)
        #expect(harry.next != nil)
    }

    @Test("markup is stripped from text, and a legacy \"ISBN10 ISBN13\" pair is classified")
    func legacy() async throws {
        let (page, detail) = try await withBundled("naver", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("naver", Self.bonobono))
            try Self.serve(server, try recorded("naver", Self.bonobono), path: "/v1/search/book_adv.json")
            let page = try await provider.search(SearchRequest(query: "보노보노"))
            return (page, try await provider.detail(ItemID(provider: "naver", value: "9791130611853")))
        }
        let first = try #require(page.items.first)
        #expect(first.title == "보노보노처럼 살다니 다행이야")
        #expect(first.identifiers.isbn13 == ["9791130611853"])
        #expect(first.identifiers.isbn10 == ["113061185X"])
        #expect(first.creators == ["김신회"])
        #expect(first.year == 2017)
        let description = try #require(detail.description)
        #expect(!description.contains("<b>") && !description.contains("&#x0D;"), "\(description)")
        #expect(description.contains("보노보노"))
        #expect(detail.publishers == ["놀"])
        #expect(detail.publishDate == "20170406")
    }

    @Test("both headers travel, with the query, display and start as Naver names them")
    func request() async throws {
        let sent = try await withBundled("naver", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("naver", Self.harry))
            _ = try await provider.search(SearchRequest(query: "harry", page: 3, limit: 10))
            return server.requests.first
        }
        let request = try #require(sent)
        #expect(request.header("X-Naver-Client-Id") == Self.id)
        #expect(request.header("X-Naver-Client-Secret") == Self.secret)
        #expect(request.queryValue("query") == "harry")
        #expect(request.queryValue("display") == "10")
        #expect(request.queryValue("start") == "21", "start is a 1-based item offset")
    }

    @Test("without one or both variables Naver is skipped, naming what is missing, and calls nothing")
    func missingKeys() async throws {
        let cases: [([String: String], String)] = [
            ([:], "SEEK_NAVER_CLIENT_ID and SEEK_NAVER_CLIENT_SECRET"),
            (["SEEK_NAVER_CLIENT_ID": Self.id], "SEEK_NAVER_CLIENT_SECRET"),
            (["SEEK_NAVER_CLIENT_SECRET": Self.secret], "SEEK_NAVER_CLIENT_ID"),
        ]
        for (environment, missing) in cases {
            let (configured, error, count) = try await withBundled("naver", environment: environment) { provider, server in
                let error = await declaredError { _ = try await provider.search(SearchRequest(query: "harry")) }
                return (provider.isConfigured, error, server.totalRequestCount)
            }
            #expect(!configured)
            #expect(error?.kind == .missingKey(variable: missing), "\(String(describing: error))")
            #expect(count == 0)
            #expect(error?.description.contains(Self.secret) == false && error?.description.contains(Self.id) == false)
        }
    }

    @Test("the stand-in answers 401 without both right headers: unauthorized, and no key is shown")
    func wrongKeys() async throws {
        let (error, shown) = try await withBundled(
            "naver", environment: ["SEEK_NAVER_CLIENT_ID": Self.id, "SEEK_NAVER_CLIENT_SECRET": "wrong-secret-777"]
        ) { provider, server in
            try Self.serve(server, try recorded("naver", Self.harry))
            let error = await declaredError { _ = try await provider.search(SearchRequest(query: "harry")) }
            return (error, shownText(nil, error, provider))
        }
        #expect(error?.kind == .unauthorized)
        #expect(!shown.contains(Self.id) && !shown.contains("wrong-secret-777"), "\(shown)")
        #expect(error?.description.contains("Not Exist Client ID") == true, "\(error?.description ?? "")")
    }

    @Test("each recorded error body becomes its status, naming Naver and the cause; the daily quota (010) is rateLimited")
    func errors() async throws {
        let cases: [(String, Int, ProviderStatus, String)] = [
            ("error_010_query_limit_exceeded_papago_inline.json", 429, .rateLimited, "Query limit exceeded"),
            ("error_010_query_limit_exceeded_papago_inline.json", 200, .rateLimited, "Query limit exceeded"),
            ("error_010_query_limit_exceeded_papago_inline.json", 400, .rateLimited, "Query limit exceeded"),
            ("error_400_se01_incorrect_query_apihub_2026-10_inline.json", 400, .error, "Incorrect query request"),
            ("error_401_auth_failed_nid_auth_invalid_2026-09_inline.json", 401, .unauthorized, "NID AUTH Result Invalid"),
            ("error_401_not_exist_client_id_inline.json", 401, .unauthorized, "Not Exist Client ID"),
        ]
        for (file, status, expected, words) in cases {
            let error = try await withBundled("naver", environment: Self.environment) { provider, server in
                server.route("/v1/search/book.json", .json(try recorded("naver", file), status: status))
                return await declaredError { _ = try await provider.search(SearchRequest(query: "harry")) }
            }
            let found = try #require(error, "\(file) with \(status)")
            #expect(ProviderStatus(error: found) == expected, "\(file) with \(status): \(found)")
            #expect(found.description.hasPrefix("naver:"), "\(found)")
            #expect(found.description.contains(words), "\(found)")
            if file.hasPrefix("error_010") {
                // The daily quota: rate limited until midnight in Korea, not retried before.
                guard case .rateLimited = found.kind, let seconds = found.kind.retryAfterSeconds else { Issue.record("no retry time: \(found)"); continue }
                #expect(seconds > 0 && seconds <= 86_400)
                #expect(found.retryAfter.map { $0.timeIntervalSinceNow > 0 } == true)
                #expect(found.description.contains("the quota resets at"))
            }
        }
    }

    @Test("the empty answer is an empty last page")
    func empty() async throws {
        let page = try await Self.search(Self.empty, query: "zzqxj")
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
    }

    @Test("detail looks the book up with book_adv.json?d_isbn= and keeps the item that has it")
    func detail() async throws {
        let (detail, request, missing) = try await withBundled("naver", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("naver", Self.harry), path: "/v1/search/book_adv.json")
            let detail = try await provider.detail(ItemID(provider: "naver", value: "9781546292456"))
            let request = server.requests.last
            let missing = await declaredError { _ = try await provider.detail(ItemID(provider: "naver", value: "9780000000002")) }
            return (detail, request, missing)
        }
        #expect(request?.path == "/v1/search/book_adv.json")
        #expect(request?.queryValue("d_isbn") == "9781546292456")
        #expect(detail.item.id.value == "9781546292456")
        #expect(detail.publishers == ["Authorhouse UK"], "the right one of two books with one text")
        #expect(detail.attributes["salePrice"] != nil)
        #expect(missing?.kind == .notFound)
    }

    @Test("Naver passes the conformance kit")
    func conformance() async throws {
        let harry = try recorded("naver", Self.harry)
        let empty = try recorded("naver", Self.empty)
        let quota = try recorded("naver", "error_010_query_limit_exceeded_papago_inline.json")
        let denied = try recorded("naver", "error_401_auth_failed_nid_auth_invalid_2026-09_inline.json")
        let environment = Self.environment
        let kit = ProviderConformance(
            factory: try bundledFactory("naver"),
            environment: { environment.merging(["SEEK_NAVER_URL": $0.absoluteString]) { $1 } },
            query: "harry",
            search: .responses(["/v1/search/book.json": .json(harry), "/v1/search/book_adv.json": .json(harry)]),
            emptySearch: .responses(["/v1/search/book.json": .json(empty)]),
            errors: [
                ConformanceErrorCase("daily quota", call: .search("harry"),
                    recording: .responses(["/v1/search/book.json": .json(quota, status: 429)]), expect: .status(.rateLimited)),
                ConformanceErrorCase("bad keys", call: .search("harry"),
                    recording: .responses(["/v1/search/book.json": .json(denied, status: 401)]), expect: .status(.unauthorized)),
                ConformanceErrorCase("no record", call: .detail(ItemID(provider: "naver", value: "9780000000002")),
                    recording: .responses(["/v1/search/book_adv.json": .json(empty)]), expect: .kind(.notFound)),
            ],
            secrets: [Self.id, Self.secret])
        let report = await kit.run()
        #expect(report.passed, "\(report)")
    }
}
