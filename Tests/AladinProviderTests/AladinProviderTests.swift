import AladinProvider
import Foundation
import SeekKit
import SeekCore
import SeekLoopback
import SeekTesting
import Testing

@Suite("Aladin provider")
struct AladinProviderTests {
    // MARK: - Descriptor and configuration

    @Test("describes itself as Aladin: book kind, page paging, key needed, `al` shortcut")
    func descriptor() async throws {
        try await withAladin { provider, _ in
            let descriptor = provider.descriptor
            #expect(descriptor.id == "aladin")
            #expect(descriptor.name == "Aladin")
            #expect(descriptor.kinds == [.book])
            #expect(descriptor.capabilities == [.search, .detail, .image, .trending])
            #expect(descriptor.paging == .page)
            #expect(descriptor.needsKey)
            #expect(descriptor.shortcuts == ["al"])
            #expect(AladinProvider.factory.id == "aladin")
        }
    }

    @Test("defaults to http://www.aladin.co.kr/ttb/api and reads the key from SEEK_ALADIN_TTB_KEY")
    func environmentSettings() async throws {
        try await withTransport { transport in
            let settings = Settings(environment: ["SEEK_ALADIN_TTB_KEY": fakeKey])
            let provider = try AladinProvider(environment: ProviderEnvironment(settings: settings, transport: transport))
            #expect(provider.isConfigured)
            #expect(provider.endpoint == "http://www.aladin.co.kr/ttb/api")
        }
    }

    @Test("reads the key from the config file's providers.aladin.ttbKey and the URL from SEEK_ALADIN_URL")
    func configFileSettings() async throws {
        try await withTransport { transport in
            let file = JSONValue.object(["providers": .object(["aladin": .object(["ttbKey": .string(fakeKey)])])])
            let settings = Settings(environment: ["SEEK_ALADIN_URL": "https://mirror.example/ttb/api"], file: file)
            let provider = try AladinProvider(environment: ProviderEnvironment(settings: settings, transport: transport))
            #expect(provider.isConfigured)
            #expect(provider.endpoint == "https://mirror.example/ttb/api")
        }
    }

    // MARK: - Missing key

    @Test("without a key it is unconfigured and every call throws missingKey without a request", arguments: [nil, "", " "])
    func missingKey(key: String?) async throws {
        try await withAladin(key: key) { provider, server in
            #expect(!provider.isConfigured)
            let expected = SeekError(
                .missingKey(variable: "SEEK_ALADIN_TTB_KEY"), provider: "aladin",
                detail: "export SEEK_ALADIN_TTB_KEY=… or set providers.aladin.ttbKey in the config file")
            #expect(await seekError { _ = try await provider.search(SearchRequest(query: "오베")) } == expected)
            #expect(await seekError { _ = try await provider.trending(limit: 5) } == expected)
            #expect(await seekError { _ = try await provider.detail(ItemID(provider: "aladin", value: "9791130605210")) } == expected)
            #expect(server.totalRequestCount == 0)
        }
    }

    // MARK: - Search requests and paging

    @Test("search keeps the base path and sends key, Query, Keyword, clamped MaxResults, start, Book, output=js, Version, Cover")
    func searchParameters() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON(items(1), total: 1)))
            _ = try await provider.search(SearchRequest(query: "베니스의 상인", limit: 80))
            let sent = try #require(server.requests.last)
            #expect(sent.path == searchPath)
            #expect(sent.queryValue("ttbkey") == fakeKey)
            #expect(sent.queryValue("Query") == "베니스의 상인")
            #expect(sent.queryValue("QueryType") == "Keyword")
            #expect(sent.queryValue("MaxResults") == "50")
            #expect(sent.queryValue("start") == "1")
            #expect(sent.queryValue("SearchTarget") == "Book")
            #expect(sent.queryValue("output") == "js")
            #expect(sent.queryValue("Version") == "20131101")
            #expect(sent.queryValue("Cover") == "Big")
        }
    }

    @Test("Aladin pages by page number: page 3 sends start=3, and a full page with more left gives next page 4")
    func pageNumber() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON(items(10), total: 246, page: 3)))
            let page = try await provider.search(SearchRequest(query: "이야기", page: 3, limit: 10))
            #expect(server.requests.last?.queryValue("start") == "3")
            #expect(server.requests.last?.queryValue("MaxResults") == "10")
            #expect(page.next == "4")
            #expect(page.total == 246)
        }
    }

    @Test("a cursor is the page number a previous next gave")
    func cursorIsPage() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON(items(10), total: 246, page: 2)))
            let page = try await provider.search(SearchRequest(query: "이야기", cursor: "2", limit: 10))
            #expect(server.requests.last?.queryValue("start") == "2")
            #expect(page.next == "3")
        }
    }

    @Test("a cursor that is not a page number is invalid input and costs no request")
    func invalidCursor() async throws {
        try await withAladin { provider, server in
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "x", cursor: "abc")) }
            #expect(error?.kind == .invalidInput)
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("there is no next page once totalResults is reached or the page comes back short")
    func noNextAtEnd() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON(items(10), total: 30, page: 3)))
            let last = try await provider.search(SearchRequest(query: "x", page: 3, limit: 10))
            #expect(last.next == nil)
            server.route(searchPath, body(envelopeJSON(items(4), total: 300, page: 1)))
            let short = try await provider.search(SearchRequest(query: "x", page: 1, limit: 10))
            #expect(short.next == nil)
        }
    }

    @Test("paging stops at the 200 results Aladin lets a search reach")
    func reachCap() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON(items(10), total: 1000, page: 20)))
            let last = try await provider.search(SearchRequest(query: "x", page: 20, limit: 10))
            #expect(last.items.count == 10)
            #expect(last.next == nil)
            let beyond = try await provider.search(SearchRequest(query: "x", page: 21, limit: 10))
            #expect(beyond.items.isEmpty)
            #expect(server.totalRequestCount == 1)
        }
    }

    @Test("an empty query is invalid input and costs no request")
    func emptyQuery() async throws {
        try await withAladin { provider, server in
            #expect(await seekError { _ = try await provider.search(SearchRequest(query: " ")) }?.kind == .invalidInput)
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("trending asks ItemList.aspx for this week's book bestsellers")
    func trending() async throws {
        try await withAladin { provider, server in
            server.route(listPath, body(envelopeJSON(items(5), total: 1000)))
            let page = try await provider.trending(limit: 5)
            let sent = try #require(server.requests.last)
            #expect(sent.path == listPath)
            #expect(sent.queryValue("QueryType") == "Bestseller")
            #expect(sent.queryValue("SearchTarget") == "Book")
            #expect(sent.queryValue("MaxResults") == "5")
            #expect(sent.queryValue("start") == "1")
            #expect(sent.queryValue("output") == "js")
            #expect(sent.queryValue("Version") == "20131101")
            #expect(page.items.count == 5)
            #expect(page.next == "2")
        }
    }

    // MARK: - Detail lookups

    @Test("detail picks ItemIdType from the id's shape", arguments: [
        ("9791130605210", "ISBN13", "9791130605210"),
        ("9772799628000", "ISBN13", "9772799628000"),
        ("897288832X", "ISBN", "897288832X"),
        ("89-7288-832-x", "ISBN", "897288832X"),
        ("8579428", "ItemId", "8579428"),
    ])
    func lookupType(value: String, type: String, sent: String) async throws {
        try await withAladin { provider, server in
            server.route(lookupPath, body(envelopeJSON([itemJSON()], total: 1)))
            _ = try await provider.detail(ItemID(provider: "aladin", value: value))
            let request = try #require(server.requests.last)
            #expect(request.path == lookupPath)
            #expect(request.queryValue("ItemIdType") == type)
            #expect(request.queryValue("ItemId") == sent)
            #expect(request.queryValue("OptResult") == "ebookList,usedList,ratingInfo")
            #expect(request.queryValue("Version") == "20131101")
        }
    }

    @Test("detail of an id that is no ISBN or itemId, or of another provider, is invalid input without a request",
          arguments: ["abc", "K162832578", "12 34?x"])
    func invalidLookup(value: String) async throws {
        try await withAladin { provider, server in
            #expect(await seekError { _ = try await provider.detail(ItemID(provider: "aladin", value: value)) }?.kind == .invalidInput)
            #expect(await seekError { _ = try await provider.detail(ItemID(provider: "giphy", value: "9791130605210")) }?.kind == .invalidInput)
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("detail keeps price, sales point, category, publisher, date, pages, subtitle and decoded description")
    func detailFields() async throws {
        try await withAladin { provider, server in
            let subInfo = #""subInfo":{"subTitle":"alone","originalTitle":"En man som heter Ove","itemPage":272,"ratingInfo":{"ratingScore":7.7,"ratingCount":41},"usedList":{"aladinUsed":{"itemCount":1,"minPrice":16700},"userUsed":{"itemCount":0,"minPrice":0}}}"#
            let item = itemJSON(title: "The Tales - alone", description: "&lt;오베라는 남자&gt;의 작가 &amp; 친구", extra: subInfo)
            server.route(lookupPath, body(envelopeJSON([item], total: 1)))
            let detail = try await provider.detail(ItemID(provider: "aladin", value: "9791130605210"))
            #expect(detail.item.title == "The Tales")
            #expect(detail.item.subtitle == "alone")
            #expect(detail.description == "<오베라는 남자>의 작가 & 친구")
            #expect(detail.contributors == [Contributor(name: "프레드릭 배크만", role: "지은이"), Contributor(name: "최민우", role: "옮긴이")])
            #expect(detail.publishers == ["다산책방"])
            #expect(detail.publishDate == "2015-05-10")
            #expect(detail.pageCount == 272)
            #expect(detail.subjects == ["소설/시/희곡", "북유럽소설"])
            #expect(detail.attributes["priceSales"] == "15120")
            #expect(detail.attributes["priceStandard"] == "16800")
            #expect(detail.attributes["salesPoint"] == "41250")
            #expect(detail.attributes["categoryName"] == "국내도서>소설/시/희곡>북유럽소설")
            #expect(detail.attributes["originalTitle"] == "En man som heter Ove")
            #expect(detail.attributes["ratingScore"] == "7.7")
            #expect(detail.attributes["usedMinPrice"] == "16700")
            #expect(detail.item.year == 2015)
        }
    }

    @Test("a lookup with an empty item list is notFound")
    func emptyLookup() async throws {
        try await withAladin { provider, server in
            server.route(lookupPath, body(envelopeJSON([], total: 0)))
            let error = await seekError { _ = try await provider.detail(ItemID(provider: "aladin", value: "9791130605210")) }
            #expect(error?.kind == .notFound)
        }
    }

    // MARK: - Mapping

    @Test("an item is keyed by its ISBN-13, with ISBNs, itemId, link and sized covers")
    func itemMapping() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON([itemJSON()], total: 1)))
            let item = try #require(try await provider.search(SearchRequest(query: "오베")).items.first)
            #expect(item.id.description == "aladin:9791130605210")
            #expect(item.kind == .book)
            #expect(item.title == "오베라는 남자")
            #expect(item.creators == ["프레드릭 배크만", "최민우"])
            #expect(item.year == 2015)
            #expect(item.identifiers.isbn13 == ["9791130605210"])
            #expect(item.identifiers.isbn10.isEmpty)
            #expect(item.identifiers.other["aladinItemId"] == "312824974")
            #expect(item.url?.absoluteString == "http://www.aladin.co.kr/shop/wproduct.aspx?ItemId=312824974&partner=openAPI&start=api")
            #expect(item.images[.small]?.url.absoluteString == "https://image.aladin.co.kr/product/31282/49/coversum/k162832578_2.jpg")
            #expect(item.images[.medium]?.url.absoluteString == "https://image.aladin.co.kr/product/31282/49/cover/k162832578_2.jpg")
            #expect(item.images[.large]?.url.absoluteString == "https://image.aladin.co.kr/product/31282/49/cover500/k162832578_2.jpg")
            #expect(item.images[.medium]?.width == 200)
            #expect(item.images[.original] == nil)
        }
    }

    @Test("an item without an ISBN-13 is keyed by itemId; a real ISBN-10 is kept and converted")
    func itemIDFallback() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON([
                itemJSON(isbn: "K912835128", isbn13: "", itemId: 284863481),
                itemJSON(isbn: "897288832X", isbn13: "", itemId: 564938),
            ], total: 2)))
            let found = try await provider.search(SearchRequest(query: "x")).items
            #expect(found.map(\.id.description) == ["aladin:284863481", "aladin:564938"])
            #expect(found[0].identifiers.isbn13.isEmpty)
            #expect(found[1].identifiers.isbn10 == ["897288832X"])
            #expect(found[1].identifiers.isbn13 == ["9788972888321"])
        }
    }

    @Test("a cover outside Aladin's size directories, or named like one, is kept as the large image only", arguments: [
        "https://cdn.example/covers/123.jpg", "https://image.aladin.co.kr/product/1/cover",
    ])
    func unknownCover(cover: String) async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(envelopeJSON([itemJSON(cover: cover)], total: 1)))
            let item = try #require(try await provider.search(SearchRequest(query: "x")).items.first)
            #expect(item.images.count == 1)
            #expect(item.images[.large]?.url.absoluteString == cover)
        }
    }

    @Test("a cover's sizes swap only its last size directory, keeping the host, the port and the query")
    func coverSizesKeepTheRest() async throws {
        try await withAladin { provider, server in
            let cover = "https://img.example:8443/cover/31282/cover200/k1.jpg?v=2#top"
            server.route(searchPath, body(envelopeJSON([itemJSON(cover: cover)], total: 1)))
            let item = try #require(try await provider.search(SearchRequest(query: "x")).items.first)
            #expect(item.images[.small]?.url.absoluteString == "https://img.example:8443/cover/31282/coversum/k1.jpg?v=2#top")
            #expect(item.images[.medium]?.url.absoluteString == "https://img.example:8443/cover/31282/cover/k1.jpg?v=2#top")
            #expect(item.images[.large]?.url.absoluteString == "https://img.example:8443/cover/31282/cover500/k1.jpg?v=2#top")
        }
    }

    @Test("HTML entities in titles, authors and descriptions are decoded once", arguments: [
        ("&lt;Tom &amp; Jerry&gt;", "<Tom & Jerry>"),
        ("&quot;Q&quot; &#39;s&#x27; &apos;a&apos;", "\"Q\" 's' 'a'"),
        ("&#8217;&#xAC00;&#X41; caf&eacute; &middot; &hellip;", "’가A café · …"),
        ("&amp;lt;kept&amp;gt;", "&lt;kept&gt;"),
        ("AT&T & R&D &unknown; &#0; &#xZZ; &", "AT&T & R&D &unknown; &#0; &#xZZ; &"),
    ])
    func entities(raw: String, decoded: String) async throws {
        try await withAladin { provider, server in
            let json = raw.replacingOccurrences(of: "\"", with: "\\\"")
            server.route(lookupPath, body(envelopeJSON([itemJSON(title: json, author: json + " (지은이)", description: json)], total: 1)))
            let detail = try await provider.detail(ItemID(provider: "aladin", value: "9791130605210"))
            #expect(detail.item.title == decoded)
            #expect(detail.item.creators == [decoded])
            #expect(detail.description == decoded)
        }
    }

    @Test("author lines give names as creators and roles as contributors", arguments: [
        ("홍길동 (지은이), 김철수 (옮긴이)", [("홍길동", "지은이"), ("김철수", "옮긴이")]),
        ("케빈 드영 (지은이), 돈 클락 (그림), 박총 (옮긴이)", [("케빈 드영", "지은이"), ("돈 클락", "그림"), ("박총", "옮긴이")]),
        ("Harriette Taylor Treadwel, Margaret Free (지은이)", [("Harriette Taylor Treadwel", "지은이"), ("Margaret Free", "지은이")]),
        ("새벽달(남수진), 이현석, 롱테일 교육 연구소 (지은이)", [("새벽달(남수진)", "지은이"), ("이현석", "지은이"), ("롱테일 교육 연구소", "지은이")]),
        ("타이-마르크 르탄 (글), 바루 (그림)", [("타이-마르크 르탄", "글"), ("바루", "그림")]),
        ("김영한 지음", [("김영한", "지음")]),
        ("작가미상", [("작가미상", nil)]),
        ("", []),
    ] as [(String, [(String, String?)])])
    func authors(line: String, expected: [(String, String?)]) async throws {
        try await withAladin { provider, server in
            server.route(lookupPath, body(envelopeJSON([itemJSON(author: line)], total: 1)))
            let detail = try await provider.detail(ItemID(provider: "aladin", value: "9791130605210"))
            #expect(detail.contributors == expected.map { Contributor(name: $0.0, role: $0.1) })
            #expect(detail.item.creators == expected.map(\.0))
        }
    }

    // MARK: - Lenient bodies

    @Test("bodies that are not strict JSON are tolerated: trailing ;, JSONP, \\' escapes, raw newlines", arguments: [
        (envelopeJSON([itemJSON(title: "세미콜론")], total: 1) + ";\n", "세미콜론"),
        ("callme(true, " + envelopeJSON([itemJSON(title: "JSONP")], total: 1) + ");", "JSONP"),
        (envelopeJSON([itemJSON(title: #"It\'s"#)], total: 1), "It's"),
        (envelopeJSON([itemJSON(title: #"C:\\'s"#)], total: 1), #"C:\'s"#),
        (envelopeJSON([itemJSON(title: "line\nbreak")], total: 1), "line\nbreak"),
        ("\u{FEFF}  " + envelopeJSON([itemJSON(title: "BOM")], total: 1), "BOM"),
    ])
    func lenientBodies(text: String, title: String) async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(text))
            let item = try #require(try await provider.search(SearchRequest(query: "x")).items.first)
            #expect(item.title == title)
        }
    }

    // MARK: - Errors

    @Test("error bodies served with HTTP 200 become typed errors", arguments: [
        (#"{"errorCode":8,"errorMessage":"키에 해당하는 상품이 존재하지 않습니다."}"#, SeekError.Kind.notFound),
        (#"{'errorCode':8,'errorMessage':'키에 해당하는 상품이 존재하지 않습니다.'}"#, .notFound),
        (#"{"version":"20070901","errorCode":10,"errorMessage":"일일 요청수를 초과하였습니다."}"#, .rateLimited(retryAfterSeconds: nil)),
        (#"{"errorCode":100,"errorMessage":"잘못된 TTBKey입니다."}"#, .unauthorized),
        (#"{"errorCode":4,"errorMessage":"잘못된 ttbkey"}"#, .unauthorized),
        (#"{"errorCode":77,"errorMessage":"인증키가 유효하지 않습니다."}"#, .unauthorized),
        (#"{"errorCode":1}"#, .unauthorized),
        (#"{"errorCode":3,"errorMessage":"잘못된 Query 파라미터"}"#, .invalidInput),
    ])
    func errorBodies(text: String, kind: SeekError.Kind) async throws {
        try await withAladin { provider, server in
            server.route(searchPath, body(text))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "x")) }
            #expect(error?.kind == kind)
            #expect(error?.provider == "aladin")
            #expect(error?.detail.hasPrefix("Aladin error") == true)
        }
    }

    @Test("HTTP 401 and 403 are unauthorized, 404 notFound, 5xx httpStatus", arguments: [
        (401, SeekError.Kind.unauthorized), (403, .unauthorized), (404, .notFound), (502, .httpStatus(502)),
    ])
    func httpStatuses(status: Int, kind: SeekError.Kind) async throws {
        try await withAladin { provider, server in
            server.route(searchPath, fault: .status(status, body: "nope"))
            #expect(await seekError { _ = try await provider.search(SearchRequest(query: "x")) }?.kind == kind)
        }
    }

    @Test("429 with Retry-After: 30 is rateLimited(retryAfterSeconds: 30)")
    func rateLimited() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, fault: .status(429, body: "slow down", headers: [("Retry-After", "30")]))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "x")) }
            #expect(error?.kind == .rateLimited(retryAfterSeconds: 30))
        }
    }

    @Test("malformed, HTML, empty or item-less bodies are undecodable and name Aladin", arguments: [
        FixtureFault.malformedJSON, .html, .empty, .status(200, body: #"{"version":"20131101"}"#), .status(200, body: "[1]"),
    ])
    func undecodable(fault: FixtureFault) async throws {
        try await withAladin { provider, server in
            server.route(searchPath, fault: fault)
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "x")) }
            #expect(error?.kind == .undecodable)
            #expect(error?.description.hasPrefix("aladin: undecodable response") == true)
        }
    }

    @Test("a truncated body is a network error or undecodable, naming Aladin")
    func truncated() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, fault: .truncated)
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "x")) }
            #expect(error?.kind == .network || error?.kind == .undecodable)
            #expect(error?.provider == "aladin")
        }
    }

    @Test("the TTB key never appears in any error text, even when the server echoes it")
    func keyNeverLeaks() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, handler: { request in
                let key = request.queryValue("ttbkey") ?? ""
                switch request.queryValue("Query") {
                case "bad": return body(#"{"errorCode":100,"errorMessage":"잘못된 TTBKey입니다: \#(key)"}"#)
                case "quota": return body(#"{"errorCode":10,"errorMessage":"\#(key) 일일 요청수를 초과"}"#)
                case "odd": return body(#"{"errorCode":3,"errorMessage":"\#(request.uri)"}"#)
                case "e401": return body("denied for \(key)", status: 401)
                case "e500": return body("crash at \(request.uri)", status: 500)
                case "html": return body("<html>\(request.uri)</html>", contentType: "text/html")
                default: return body(#"{"item": "\#(key)"#)
                }
            })
            server.route(lookupPath, fault: .redirectLoop)
            var errors: [SeekError] = []
            for query in ["bad", "quota", "odd", "e401", "e500", "html", "broken"] {
                if let error = await seekError({ _ = try await provider.search(SearchRequest(query: query)) }) { errors.append(error) }
            }
            if let error = await seekError({ _ = try await provider.detail(ItemID(provider: "aladin", value: "9791130605210")) }) {
                errors.append(error)
            }
            #expect(errors.count == 8)
            try await server.shutdown()
            if let refused = await seekError({ _ = try await provider.trending(limit: 3) }) { errors.append(refused) }
            for error in errors {
                for text in [String(describing: error), String(reflecting: error), error.detail, error.cause] {
                    #expect(!text.contains(fakeKey), "key leaked in: \(text)")
                    #expect(!text.contains("ttbTESTKEY"), "key leaked in: \(text)")
                }
            }
        }
    }
}
