@testable import DeclaredProvider
import Foundation
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting
import Testing

/// The declaration format as it grew for the bundled sources (issue 47): named keys in URL and header
/// templates, a base URL setting, field transforms, filters, error rules, policy and demos. Every
/// mistake is a configuration error naming the provider and the field.
@Suite("Config-declared providers: the grown format")
struct DeclarationFormatTests {
    private static let base = URL(string: "http://127.0.0.1:9")!  // never called

    /// A small valid declaration using the new keys, with `changes` applied (nil removes a key).
    static func grown(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var declaration: [String: Any] = [
            "id": "grown", "name": "Grown",
            "baseURL": "https://api.example.com", "baseURLEnv": "SEEK_GROWN_URL",
            "headers": ["Authorization": "Token {key:SEEK_GROWN_KEY}", "X-Contact": "{key:SEEK_GROWN_MAIL}"],
            "optionalKeys": ["SEEK_GROWN_MAIL"],
            "searchURL": "/v1/search?q={query}&start={start}&n={limit}",
            "detailURL": "/v1/find?isbn={id}",
            "itemsPath": "hits", "detailPath": "hits", "maxLimit": 40,
            "filter": ["path": "kind", "equals": "book"],
            "bangs": ["gr", "!grr"], "rateLimit": "5/s,burst=5", "concurrency": 3,
            "fields": [
                "id": [["path": "ids", "where": ["path": "type", "equals": "ISBN_13"], "value": "identifier"], "code"],
                "title": ["path": "title", "stripMarkup": true],
                "creators": ["path": "people[].name", "names": "last, first"],
                "isbn": ["path": "ids", "where": ["path": "type", "equals": ["ISBN_13", "ISBN_10"]], "value": "identifier"],
                "url": ["path": "code", "format": "https://example.com/books/{value}"],
                "year": "published", "language": "lang",
            ],
            "errors": [["path": "error.code", "equals": ["QUOTA"], "as": "rateLimited", "message": "error.text"]],
        ]
        for (key, value) in changes { declaration[key] = value }
        return declaration
    }

    @Test("a declaration with every new key is accepted and read as written")
    func accepted() throws {
        let declaration = try #require(try validate([Self.grown()]).first)
        #expect(declaration.keyVariables == ["SEEK_GROWN_KEY", "SEEK_GROWN_MAIL"])
        #expect(declaration.requiredKeys == ["SEEK_GROWN_KEY"])
        #expect(declaration.needsKey)
        #expect(declaration.bangs == ["gr", "grr"])
        #expect(declaration.concurrency == 3)
        #expect(declaration.rateLimit == RateLimit(requests: 5, per: .seconds(1), burst: 5))
        #expect(declaration.searchURL.text == "https://api.example.com/v1/search?q={query}&start={start}&n={limit}")
        #expect(declaration.fields[.id]?.alternatives.count == 1)
        #expect(declaration.fields[.creators]?.path.description == "people.name", "`[]` marks a list and may be left out")
    }

    @Test("each mistake in the new keys is a configuration error naming the provider and the field", arguments: [
        ("headers", #"{"Bad Name": "x"}"#, "headers.Bad Name"),
        ("headers", #"{"Authorization": "Token {key:lower}"}"#, "headers.Authorization"),
        ("headers", #"{"Authorization": "Token {query}"}"#, "headers.Authorization"),
        ("headers", #"{"Authorization": "a\r\nInjected: yes"}"#, "headers.Authorization"),
        ("baseURL", #""ftp://example.com""#, "baseURL"),
        ("baseURLEnv", #""lower_case""#, "baseURLEnv"),
        ("optionalKeys", #"["SEEK_NOT_USED"]"#, "optionalKeys"),
        ("filter", #"{"equals": "x"}"#, "filter"),
        ("errors", #"[{"path": "code", "as": "explode"}]"#, "errors[0]"),
        ("errors", #"[{"as": "rateLimited"}]"#, "errors[0]"),
        ("errors", #"[{"status": 999, "as": "error"}]"#, "errors[0]"),
        ("errors", #"[{"path": "code", "as": "rateLimited", "resetsAt": "25:00"}]"#, "errors[0]"),
        ("errors", #"[{"path": "code", "as": "error", "resetsAt": "00:00+09:00"}]"#, "errors[0]"),
        ("bangs", #"["Not A Bang"]"#, "bangs"),
        ("rateLimit", #""fast""#, "rateLimit"),
        ("concurrency", "1.5", "concurrency"),
        ("concurrency", "0", "concurrency"),
        ("maxLimit", "0", "maxLimit"),
        ("demo", #"{"routes": []}"#, "demo.routes"),
        ("demo", #"{"routes": [{"path": "/x", "files": ["../etc/passwd"]}]}"#, "demo.routes[0]"),
        ("demo", #"{"routes": [{"path": "/x", "files": ["a.json"], "record": "id"}]}"#, "demo.routes[0]"),
    ])
    func refused(key: String, json: String, field: String) throws {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        let error = #expect(throws: SeekError.self) { try validate([Self.grown([key: value])]) }
        #expect(error?.kind == .configuration)
        #expect(error?.provider == "grown")
        #expect(error?.description.contains("field \"\(field)\"") == true, "\(error?.description ?? "")")
    }

    @Test("each mistake in a field's object is refused, naming the field", arguments: [
        #"{"path": "t", "names": "first last"}"#,
        #"{"path": "t", "isbn": "12"}"#,
        #"{"path": "t", "format": "https://example.com/no-value"}"#,
        #"{"path": "t", "stripMarkup": "yes"}"#,
        #"{"path": "t", "where": "type"}"#,
        #"{"path": "t", "value": ""}"#,
        #"{"path": "t", "after": ""}"#,
        #"{"path": "t", "colour": "red"}"#,
        #"[]"#,
        #"[["t"]]"#,
    ])
    func refusedField(json: String) throws {
        let spec = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let fields = (Self.grown()["fields"] as? [String: Any] ?? [:]).merging(["title": spec]) { $1 }
        let error = #expect(throws: SeekError.self) { try validate([Self.grown(["fields": fields])]) }
        #expect(error?.description.contains("field \"fields.title") == true, "\(error?.description ?? "")")
    }

    @Test("a path template needs a base URL, and a base URL setting needs a default")
    func templates() {
        let noBase = #expect(throws: SeekError.self) { try validate([Self.grown(["baseURL": nil, "baseURLEnv": nil])]) }
        #expect(noBase?.description.contains("field \"searchURL\"") == true, "\(noBase?.description ?? "")")
        let envOnly = #expect(throws: SeekError.self) { try validate([Self.grown(["baseURL": nil, "searchURL": "https://a.example/s?q={query}"])]) }
        #expect(envOnly?.description.contains("field \"baseURLEnv\"") == true)
    }

    @Test("a bundled declaration's error names its file")
    func bundledOrigin() throws {
        let value = try JSONValue(parsing: Data(#"{"id": "x", "searchURL": 3}"#.utf8))
        let error = #expect(throws: SeekError.self) { try JSONProviderDeclaration(parsing: value, origin: "Bundled/x.json") }
        #expect(error?.description.contains("Bundled/x.json[0] (\"x\"), field \"searchURL\"") == true, "\(error?.description ?? "")")
    }

    @Test("the three bundled declarations validate as users' would, with their ids, names, bangs and base URLs")
    func bundled() throws {
        #expect(JSONDeclaredProvider.bundled.map(\.id) == ["kakao", "naver", "gutendex"])
        let expected: [(String, String, String, String, [String])] = [
            ("kakao", "Kakao Book Search", "SEEK_KAKAO_URL", "https://dapi.kakao.com", ["SEEK_KAKAO_REST_API_KEY"]),
            ("naver", "Naver Book Search", "SEEK_NAVER_URL", "https://openapi.naver.com", ["SEEK_NAVER_CLIENT_ID", "SEEK_NAVER_CLIENT_SECRET"]),
            ("gutendex", "Project Gutenberg", "SEEK_GUTENDEX_URL", "https://gutendex.com", []),
        ]
        for (id, name, variable, base, keys) in expected {
            let declaration = try JSONDeclaredProvider.bundledDeclaration(id)
            #expect(declaration.name == name)
            #expect(declaration.baseURLEnv == variable)
            #expect(declaration.baseURL == base)
            #expect(declaration.requiredKeys == keys)
            #expect(declaration.demo?.sampleQueries.isEmpty == false)
            #expect(try bundledFactory(id).demo != nil, "\(id) has a demo")
            // The default base URL when the variable is unset.
            let provider = try bundledFactory(id).make(ProviderEnvironment(settings: Settings(), transport: NoTransport()))
            #expect(provider.endpoint.hasPrefix(base + "/"), "\(provider.endpoint)")
            // `seek providers` lists what each needs: every key variable, required, and not set here.
            #expect(provider.requirements.map(\.variable) == keys)
            #expect(provider.requirements.allSatisfy { $0.required && !$0.isSet })
            #expect(provider.missingRequirements.map(\.variable) == keys)
        }
        #expect(try JSONDeclaredProvider.bundledDeclaration("kakao").headers.map(\.name) == ["Authorization"])
    }

    @Test("a base URL setting that is not http(s) is a configuration error naming the variable")
    func badBaseSetting() {
        let error = #expect(throws: SeekError.self) {
            _ = try bundledFactory("kakao").make(ProviderEnvironment(
                settings: Settings(environment: ["SEEK_KAKAO_URL": "file:///etc"]), transport: NoTransport()))
        }
        #expect(error?.description.contains("SEEK_KAKAO_URL") == true, "\(error?.description ?? "")")
    }

    @Test("the declared concurrency can be set or lifted by SEEK_<ID>_CONCURRENCY, and nonsense there is refused")
    func concurrencySetting() throws {
        let settings = { (value: String) in Settings(environment: ["SEEK_GUTENDEX_CONCURRENCY": value]) }
        _ = try bundledFactory("gutendex").make(ProviderEnvironment(settings: settings("off"), transport: NoTransport()))
        _ = try bundledFactory("gutendex").make(ProviderEnvironment(settings: settings("8"), transport: NoTransport()))
        let error = #expect(throws: SeekError.self) {
            _ = try bundledFactory("gutendex").make(ProviderEnvironment(settings: settings("lots"), transport: NoTransport()))
        }
        #expect(error?.description.contains("SEEK_GUTENDEX_CONCURRENCY") == true)
    }
}

/// A transport for providers that are built but never called.
struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw SeekError(.network, detail: "no transport in this test")
    }
}

@Suite("Config-declared providers: the grown format at work")
struct DeclarationBehaviourTests {
    static let key = "grownSECRET-4242"

    private static func make(_ base: URL) -> [String: Any] {
        DeclarationFormatTests.grown(["baseURL": base.absoluteString])
    }

    static let body = """
    {"hits": [
      {"kind": "book", "code": "A1", "title": "<b>Harbor</b> &amp; Sea", "people": [{"name": "Dickens, Charles"}, {"name": "Homer"}],
       "ids": [{"type": "OTHER", "identifier": "9780000000002"}, {"type": "ISBN_13", "identifier": "9781617294136"}],
       "published": "20190301", "lang": ["en", "fr"]},
      {"kind": "audio", "code": "A2", "title": "Spoken"},
      {"kind": "book", "code": "B2", "title": "No ISBN", "ids": [{"type": "OTHER", "identifier": "9781617294136"}]}
    ]}
    """

    @Test("headers are filled from named keys; an unset optional key leaves its header out; the base URL setting wins")
    func headersAndBase() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        server.route("/v1/search", .json(Self.body))
        let outcome = await declaredError {
            let provider = try makeDeclared(
                DeclarationFormatTests.grown(), environment: ["SEEK_GROWN_KEY": Self.key, "SEEK_GROWN_URL": server.baseURL.absoluteString],
                transport: transport)
            let page = try await provider.search(SearchRequest(query: "harbor", page: 2, limit: 10))
            #expect(page.items.count == 2, "the filter keeps kind == book")
        }
        let request = server.requests.first
        try await transport.shutdown()
        try await server.shutdown()
        #expect(outcome == nil, "\(String(describing: outcome))")
        #expect(request?.path == "/v1/search", "the base URL setting, not the declared default")
        #expect(request?.header("Authorization") == "Token \(Self.key)")
        #expect(request?.header("X-Contact") == nil, "an unset optional key's header is left out")
        #expect(request?.queryValue("start") == "11")
        #expect(request?.queryValue("n") == "10")
    }

    @Test("typed identifier lists, alternatives, markup, names, years and formats")
    func fields() async throws {
        let page = try await withDeclared(Self.make, environment: ["SEEK_GROWN_KEY": Self.key]) { provider, server in
            server.route("/v1/search", .json(Self.body))
            return try await provider.search(SearchRequest(query: "harbor"))
        }
        let first = try #require(page.items.first)
        #expect(first.id.value == "9781617294136", "the ISBN_13 entry, never the OTHER one")
        #expect(first.identifiers.isbn13 == ["9781617294136"])
        #expect(first.title == "Harbor & Sea")
        #expect(first.creators == ["Charles Dickens", "Homer"])
        #expect(first.year == 2019)
        #expect(first.url?.absoluteString == "https://example.com/books/A1")
        let second = try #require(page.items.last)
        #expect(second.id.value == "B2", "no ISBN_13: the next alternative")
        #expect(second.identifiers.isbn13.isEmpty, "an OTHER identifier is never an ISBN")
    }

    @Test("an error rule reads the body: a quota answered 200 is rateLimited, with the API's words")
    func errorRule() async throws {
        let error = try await withDeclared(Self.make, environment: ["SEEK_GROWN_KEY": Self.key]) { provider, server in
            server.route("/v1/search", .json(#"{"error": {"code": "QUOTA", "text": "daily quota spent for \#(Self.key)"}}"#))
            return await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
        }
        #expect(error.map { ProviderStatus(error: $0) } == .rateLimited)
        #expect(error?.description.contains("daily quota spent") == true)
        #expect(error?.description.contains(Self.key) == false, "\(error?.description ?? "")")
    }

    @Test("without the required named key the provider is skipped, naming it")
    func missingKey() async throws {
        let (configured, error) = try await withDeclared(Self.make) { provider, _ in
            (provider.isConfigured, await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) })
        }
        #expect(!configured)
        #expect(error?.kind == .missingKey(variable: "SEEK_GROWN_KEY"))
    }

    @Test("the concurrency gate lets at most N calls through at once")
    func gate() async throws {
        let gate = ConcurrencyGate(limit: 2)
        let counter = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await gate.run {
                        counter.enter()
                        try await Task.sleep(for: .milliseconds(20))
                        counter.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counter.peak == 2)
    }
}

/// Counts calls in flight and the most at once.
final class Counter: Sendable {
    private let state = LockedPeak()
    func enter() { state.update { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
    func leave() { state.update { $0.now -= 1 } }
    var peak: Int { state.read { $0.peak } }
}

/// A tiny lock box for the counter (the test target links no NIO).
final class LockedPeak: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var value = (now: 0, peak: 0)
    func update(_ change: (inout (now: Int, peak: Int)) -> Void) { lock.lock(); change(&value); lock.unlock() }
    func read<T>(_ body: ((now: Int, peak: Int)) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(value) }
}

@Suite("Config-declared providers: text transforms")
struct DeclaredTextTests {
    @Test("a daily reset time reads as minutes after midnight UTC, and the next reset follows it")
    func resets() throws {
        typealias Rule = JSONProviderDeclaration.ErrorRule
        #expect(Rule.minutes("00:00+09:00") == 900, "midnight in Korea is 15:00 UTC")
        #expect(Rule.minutes("00:00-08:00") == 480)
        #expect(Rule.minutes("08:30Z") == 510)
        #expect(Rule.minutes("23:59") == 1439)
        for bad in ["24:00", "1:00", "00:00+15:00", "00:00+09", "aa:bb", "", "00:00+09:00x"] {
            #expect(Rule.minutes(bad) == nil, "\(bad)")
        }
        let value = try JSONValue(parsing: Data(#"{"id": "r", "searchURL": "https://a.example/s?q={query}", "fields": {"id": "i", "title": "t"}, "errors": [{"path": "code", "as": "rateLimited", "resetsAt": "00:00+09:00"}]}"#.utf8))
        let rule = try #require(try JSONProviderDeclaration(parsing: value).errorRules.first)
        let before = Date(timeIntervalSince1970: 1_796_565_600)  // 2026-12-06T14:00:00Z
        #expect(rule.reset(after: before) == Date(timeIntervalSince1970: 1_796_569_200), "15:00 the same day")
        let after = Date(timeIntervalSince1970: 1_796_572_800)  // 16:00Z
        #expect(rule.reset(after: after) == Date(timeIntervalSince1970: 1_796_569_200 + 86_400), "15:00 the next day")
    }

    @Test("markup is stripped and references decoded once; a lone < stays")
    func markup() {
        #expect(DeclaredText.strippingMarkup("<b>보노보노</b>처럼") == "보노보노처럼")
        #expect(DeclaredText.strippingMarkup("a &amp;lt; b &#39;c&#39; &#x0D;d") == "a &lt; b 'c' \nd")
        #expect(DeclaredText.strippingMarkup("1 < 2 and 3 > 2") == "1 < 2 and 3 > 2")
        #expect(DeclaredText.strippingMarkup("&#0; &#xFFFFFFFF; &bogus;") == "&#0; &#xFFFFFFFF; &bogus;")
        #expect(DeclaredText.strippingMarkup("<b unterminated") == "<b unterminated")
    }

    @Test("\"Last, First\" names read First Last", arguments: [
        ("Dickens, Charles", "Charles Dickens"),
        ("Forster, E. M. (Edward Morgan)", "E. M. Forster"),
        ("Du Bois, W. E. B. (William Edward Burghardt)", "W. E. B. Du Bois"),
        ("King, Martin Luther, Jr.", "Martin Luther King Jr."),
        ("Homer", "Homer"),
        ("", ""),
        (",", ","),
    ])
    func names(raw: String, expected: String) {
        #expect(DeclaredText.firstLast(raw) == expected)
    }

    @Test("a part of a value is cut out between markers")
    func cut() {
        #expect(DeclaredText.cut("https://x/?w=bookpage&bookId=1343189&q=a", after: "bookId=", before: "&") == "1343189")
        #expect(DeclaredText.cut("https://x/catalog/123", after: "catalog/", before: "?") == "123")
        #expect(DeclaredText.cut("no marker", after: "bookId=", before: nil) == nil)
    }

    @Test("years from numbers and date strings, Naver's yyyyMMdd included")
    func years() {
        #expect(JSONDeclaredProvider.year(in: "20250328") == 2025)
        #expect(JSONDeclaredProvider.year(in: "2016-09-15T00:00:00.000+09:00") == 2016)
        #expect(JSONDeclaredProvider.year(in: "March 2015") == 2015)
        #expect(JSONDeclaredProvider.year(in: "12345") == nil)
    }
}
