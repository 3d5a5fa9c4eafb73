import DeclaredProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// Kakao Book Search, shipped as the declaration Bundled/kakao.json, against a stand-in that speaks
/// `/v3/search/book` with the recorded bodies and checks `Authorization: KakaoAK <key>` as Kakao does.
@Suite("Bundled declaration: Kakao", .enabled(if: SharedFixtures.directory != nil, "needs ../shared/fixtures"))
struct KakaoDeclarationTests {
    static let key = "kakaoTESTkey-0123456789"
    static let environment = ["SEEK_KAKAO_REST_API_KEY": key]
    static let harry = "search_title_harrypotter_10docs_u0026_escapes_inline.json"
    static let programmer = "search_programmer_10docs_2020-05_sogoagain.json"
    static let coding = "search_coding_1doc_pageable_capped_2025_inline.json"
    static let empty = "search_empty_title_inline.json"

    /// The stand-in: 401 (the recorded body) without the right header, else `file` for every request.
    static func serve(_ server: FixtureServer, _ body: String, status: Int = 200) throws {
        let denied = try recorded("kakao", "error_401_access_denied_no_key_inline.json")
        server.route("/v3/search/book", handler: standIn(
            unauthorized: denied, authorized: { $0.header("Authorization") == "KakaoAK \(Self.key)" }
        ) { _ in .json(body, status: status) })
    }

    @Test("every recorded success body maps to items with titles, creators where Kakao gives authors, and ids")
    func everySuccessBody() async throws {
        let files = recordedFiles("kakao", prefix: "search_").filter { $0 != Self.empty }
        #expect(files.count >= 3)
        for file in files {
            let documents = try #require(try recordedObject("kakao", file)["documents"] as? [[String: Any]])
            let page = try await withBundled("kakao", environment: Self.environment) { provider, server in
                try Self.serve(server, try recorded("kakao", file))
                return try await provider.search(SearchRequest(query: "해리포터"))
            }
            // Every document is a row but those repeating an ISBN already given (Traps 2).
            let isbns = documents.compactMap { ($0["isbn"] as? String)?.trimmingCharacters(in: .whitespaces) }
            #expect(page.items.count == Set(isbns).count, "\(file): \(page.items.map(\.id))")
            #expect(Set(page.items.map(\.id)).count == page.items.count, "ids are unique")
            let credited = documents.filter { ($0["authors"] as? [String])?.isEmpty == false }.count
            #expect(page.items.filter { !$0.creators.isEmpty }.count >= min(credited, page.items.count) - 1, "\(file)")
            #expect(page.items.allSatisfy { !$0.title.isEmpty && $0.id.provider == "kakao" }, "\(file)")
            #expect(page.items.allSatisfy { $0.url?.host == "search.daum.net" }, "\(file)")
        }
    }

    @Test("the Harry Potter answer: ISBN pairs split and classified, the bad 13-digit part dropped, duplicates one row")
    func harryPotter() async throws {
        let page = try await withBundled("kakao", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("kakao", Self.harry))
            return try await provider.search(SearchRequest(query: "해리포터"))
        }
        let first = try #require(page.items.first)
        #expect(first.id.description == "kakao:9788983925602")
        #expect(first.identifiers.isbn13 == ["9788983925602"])
        #expect(first.identifiers.isbn10 == ["8983925604"])
        #expect(first.creators == ["조앤 K. 롤링"])
        #expect(first.year != nil)
        #expect(first.image(.small)?.url.host == "search1.kakaocdn.net")
        let x = try #require(page.items.first { $0.identifiers.isbn10 == ["059035342X"] })
        #expect(x.identifiers.isbn13 == ["9780590353427"], "an X check digit is an ISBN-10")
        // " 2015106000012": no ISBN-10, and 2015… is not an ISBN; the id is Kakao's bookId.
        let noISBN = try #require(page.items.first { $0.id.value == "295140" })
        #expect(noISBN.identifiers.isbn13.isEmpty && noISBN.identifiers.isbn10.isEmpty)
        #expect(page.items.filter { $0.id.value == "9787020033447" }.count == 1, "one ISBN on two documents is one row")
        #expect(page.total == 239, "pages by pageable_count, which Kakao caps")
        #expect(page.next == "2")
    }

    @Test("\"1160501300 9791160501308\" gives ISBN-13 9791160501308 and ISBN-10 1160501300, and no 978 form of the ten")
    func isbnPair() async throws {
        var object = try recordedObject("kakao", Self.coding)
        var documents = try #require(object["documents"] as? [[String: Any]])
        documents[0]["isbn"] = "1160501300 9791160501308"
        documents.append(documents[0].merging(["isbn": "8924009532 1400000225936", "url": "https://search.daum.net/search?w=bookpage&bookId=42&q=x"]) { $1 })
        object["documents"] = documents
        let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let page = try await withBundled("kakao", environment: Self.environment) { provider, server in
            try Self.serve(server, body)
            return try await provider.search(SearchRequest(query: "코딩"))
        }
        let first = try #require(page.items.first)
        #expect(first.id.description == "kakao:9791160501308")
        #expect(first.identifiers.isbn13 == ["9791160501308"])
        #expect(first.identifiers.isbn10 == ["1160501300"])
        let second = try #require(page.items.dropFirst().first)
        #expect(second.id.description == "kakao:8924009532", "1400000225936 is no ISBN: the ISBN-10 is the id")
        #expect(second.identifiers.isbn10 == ["8924009532"])
        #expect(second.identifiers.isbn13 == ["9788924009538"])
    }

    @Test("the key travels as `Authorization: KakaoAK <key>`, the query, page and size as Kakao names them")
    func request() async throws {
        let sent = try await withBundled("kakao", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("kakao", Self.programmer))
            _ = try await provider.search(SearchRequest(query: "프로그래머", page: 2, limit: 80))
            return server.requests.first
        }
        let request = try #require(sent)
        #expect(request.header("Authorization") == "KakaoAK \(Self.key)")
        #expect(request.path == "/v3/search/book")
        #expect(request.queryValue("query") == "프로그래머")
        #expect(request.queryValue("page") == "2")
        #expect(request.queryValue("size") == "50", "Kakao's size is at most 50")
    }

    @Test("the stand-in refuses a wrong key with 401: unauthorized, and the key Kakao echoes is never shown")
    func wrongKey() async throws {
        let echoed = #"{"errorType":"AccessDeniedError","message":"wrong appKey(\#(Self.key)) format"}"#
        let (error, shown) = try await withBundled("kakao", environment: Self.environment) { provider, server in
            server.route("/v3/search/book", .json(echoed, status: 401))
            let error = await declaredError { _ = try await provider.search(SearchRequest(query: "해리포터")) }
            return (error, shownText(nil, error, provider))
        }
        #expect(error?.kind == .unauthorized)
        #expect(error?.provider == "kakao")
        #expect(!shown.contains(Self.key), "\(shown)")
        #expect(error?.description.contains("wrong appKey") == true, "\(error?.description ?? "")")
        let refused = try await withBundled("kakao", environment: ["SEEK_KAKAO_REST_API_KEY": "not-the-key"]) { provider, server in
            try Self.serve(server, try recorded("kakao", Self.harry))
            return await declaredError { _ = try await provider.search(SearchRequest(query: "해리포터")) }
        }
        #expect(refused?.kind == .unauthorized, "the stand-in checks the header")
    }

    @Test("without SEEK_KAKAO_REST_API_KEY Kakao is skipped, names the variable and calls nothing")
    func missingKey() async throws {
        let (configured, error, count) = try await withBundled("kakao") { provider, server in
            let error = await declaredError { _ = try await provider.search(SearchRequest(query: "해리포터")) }
            return (provider.isConfigured, error, server.totalRequestCount)
        }
        #expect(!configured)
        #expect(error?.kind == .missingKey(variable: "SEEK_KAKAO_REST_API_KEY"))
        #expect(ProviderStatus(error: try #require(error)) == .skipped)
        #expect(count == 0)
    }

    @Test("the empty answer is an empty last page")
    func empty() async throws {
        let page = try await withBundled("kakao", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("kakao", Self.empty))
            return try await provider.search(SearchRequest(query: "zzqxj"))
        }
        #expect(page.items.isEmpty)
        #expect(page.next == nil)
        #expect(page.total == 0)
    }

    @Test("each recorded error body becomes its status, naming Kakao and the cause")
    func errors() async throws {
        let cases: [(String, Int, ProviderStatus, String)] = [
            ("error_400_missing_parameter_query_inline.json", 400, .error, "query parameter required"),
            ("error_400_invalid_argument_page_more_than_max_inline.json", 400, .error, "page is more than max"),
            ("error_401_access_denied_no_key_inline.json", 401, .unauthorized, "wrong appKey(null) format"),
        ]
        for (file, status, expected, words) in cases {
            let error = try await withBundled("kakao", environment: Self.environment) { provider, server in
                server.route("/v3/search/book", .json(try recorded("kakao", file), status: status))
                return await declaredError { _ = try await provider.search(SearchRequest(query: "해리포터")) }
            }
            let found = try #require(error, "\(file)")
            #expect(ProviderStatus(error: found) == expected, "\(file): \(found)")
            #expect(found.description.hasPrefix("kakao:"), "\(found)")
            #expect(found.description.contains(words), "\(found)")
        }
        // Kakao's platform quota envelope (not recorded for book search; reference §6) is a rate limit.
        let quota = try await withBundled("kakao", environment: Self.environment) { provider, server in
            server.route("/v3/search/book", .json(#"{"code":-10,"msg":"API limit has been exceeded.","extras":{}}"#, status: 400))
            return await declaredError { _ = try await provider.search(SearchRequest(query: "해리포터")) }
        }
        #expect(quota.map { ProviderStatus(error: $0) } == .rateLimited, "\(String(describing: quota))")
        #expect(quota?.description.contains("API limit has been exceeded") == true)
    }

    @Test("detail looks the book up by ISBN (target=isbn) and keeps the document that has it")
    func detail() async throws {
        let (detail, request, missing) = try await withBundled("kakao", environment: Self.environment) { provider, server in
            try Self.serve(server, try recorded("kakao", Self.harry))
            let detail = try await provider.detail(ItemID(provider: "kakao", value: "9780590353427"))
            let request = server.requests.last
            let missing = await declaredError { _ = try await provider.detail(ItemID(provider: "kakao", value: "9791160501308")) }
            return (detail, request, missing)
        }
        #expect(request?.queryValue("target") == "isbn")
        #expect(request?.queryValue("query") == "9780590353427")
        #expect(detail.item.id.description == "kakao:9780590353427")
        #expect(detail.item.title.hasPrefix("Harry Potter"))
        #expect(detail.publishers.isEmpty == false)
        #expect(detail.description?.isEmpty == false)
        #expect(detail.publishDate?.count == 10, "the date without its time: \(detail.publishDate ?? "")")
        #expect(missing?.kind == .notFound)
    }

    @Test("Kakao passes the conformance kit")
    func conformance() async throws {
        let harry = try recorded("kakao", Self.harry)
        let empty = try recorded("kakao", Self.empty)
        let denied = try recorded("kakao", "error_401_access_denied_no_key_inline.json")
        let missing = try recorded("kakao", "error_400_missing_parameter_query_inline.json")
        let key = Self.key
        let kit = ProviderConformance(
            factory: try bundledFactory("kakao"),
            environment: { ["SEEK_KAKAO_URL": $0.absoluteString, "SEEK_KAKAO_REST_API_KEY": key] },
            query: "해리포터",
            search: .responses(["/v3/search/book": .json(harry)]),
            emptySearch: .responses(["/v3/search/book": .json(empty)]),
            errors: [
                ConformanceErrorCase("no key", call: .search("해리포터"),
                    recording: .responses(["/v3/search/book": .json(denied, status: 401)]), expect: .status(.unauthorized)),
                ConformanceErrorCase("no query", call: .search("해리포터"),
                    recording: .responses(["/v3/search/book": .json(missing, status: 400)]), expect: .status(.error)),
                ConformanceErrorCase("rate limited", call: .search("해리포터"),
                    recording: .responses(["/v3/search/book": .json("{}", status: 429)]), expect: .status(.rateLimited)),
            ],
            secrets: [key])
        let report = await kit.run()
        #expect(report.passed, "\(report)")
    }
}
