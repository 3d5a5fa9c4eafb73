import Foundation
import SeekCore
import SeekTesting
import Testing

/// The issue's example declaration, pointed at `base` (the fixture server).
func itJSONDeclaration(base: URL, extra: String = "") -> String {
    """
    { "id": "itjson", "name": "IT Bookstore (config)", "kind": "book",
      "searchURL": "\(base.absoluteString)/it/search/{query}/{page}",
      "detailURL": "\(base.absoluteString)/it/books/{id}",
      "itemsPath": "books", "totalPath": "total",
      "fields": { "id": "isbn13", "title": "title", "subtitle": "subtitle", "isbn": "isbn13",
                  "image": "image", "url": "url", "creators": "authors", "year": "year" }\(extra) }
    """
}

func declaredSettings(withDeclarations declarations: [String], environment: [String: String] = [:]) throws -> Settings {
    let file = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"jsonProviders": [\#(declarations.joined(separator: ","))]}"#.utf8))
    return Settings(environment: environment, file: file)
}

enum ITJSONSamples {
    static let search = """
    {"error":"0","total":"3","page":"1","books":[
     {"title":"Harbor Patterns","subtitle":"Docking Go services","isbn13":"9781617294136","price":"$31.19",
      "image":"https://itbook.store/img/books/9781617294136.png","url":"https://itbook.store/books/9781617294136"},
     {"title":"Second Book","subtitle":"","isbn13":9781484206485,"price":"$0.00",
      "image":"https://itbook.store/img/books/9781484206485.png","url":"https://itbook.store/books/9781484206485"}]}
    """
    static let empty = #"{"error":"0","total":"0","books":[]}"#
    static let book = """
    {"error":"0","title":"Harbor Patterns","subtitle":"Docking Go services","authors":"Ann Author, Bob Writer",
     "publisher":"Manning","isbn10":"1617294136","isbn13":"9781617294136","pages":"400","year":2019,"rating":"4",
     "desc":"A book.","price":"$31.19","image":"https://itbook.store/img/books/9781617294136.png",
     "url":"https://itbook.store/books/9781617294136"}
    """
}

@Suite("Config-declared providers: declarations")
struct JSONProviderDeclarationTests {
    private static let base = URL(string: "http://127.0.0.1:9")!  // never called

    @Test("the issue's example declaration is accepted with its fields mapped")
    func exampleIsAccepted() throws {
        let declarations = try JSONProviderDeclaration.all(in: declaredSettings(withDeclarations: [itJSONDeclaration(base: Self.base)]))
        let declaration = try #require(declarations.first)
        #expect(declaration.id == "itjson")
        #expect(declaration.kind == .book)
        #expect(declaration.fields[.isbn]?.path.description == "isbn13")
        #expect(declaration.searchURL.placeholders == ["query", "page"])
    }

    @Test("a mistake names the provider and the field", arguments: [
        (#", "trendingURL": "http://x/{nope}""#, "trendingURL"),
        (#", "detailPath": "record..book""#, "detailPath"),
        (#", "keyEnv": "lower_case""#, "keyEnv"),
        (#", "colour": "blue""#, "colour"),
        (#", "imageSize": "huge""#, "imageSize"),
    ])
    func mistakesNameProviderAndField(extra: String, field: String) throws {
        let error = #expect(throws: SeekError.self) {
            try JSONProviderDeclaration.all(in: declaredSettings(withDeclarations: [itJSONDeclaration(base: Self.base, extra: extra)]))
        }
        let text = error?.description ?? ""
        #expect(text.contains("itjson"), "\(text)")
        #expect(text.contains(field), "\(text)")
        #expect(error?.kind == .configuration)
    }

    @Test("a search template without {query} is refused")
    func searchNeedsQuery() throws {
        let declaration = itJSONDeclaration(base: Self.base).replacingOccurrences(of: "{query}", with: "fixed")
        let error = #expect(throws: SeekError.self) { try JSONProviderDeclaration.all(in: declaredSettings(withDeclarations: [declaration])) }
        #expect(error?.description.contains("searchURL") == true, "\(error?.description ?? "")")
    }

    @Test("{key} without keyEnv is refused, and keyEnv without {key} too")
    func keyNeedsKeyEnv() throws {
        let withKey = itJSONDeclaration(base: Self.base).replacingOccurrences(of: "{page}", with: "{page}?k={key}")
        #expect(throws: SeekError.self) { try JSONProviderDeclaration.all(in: declaredSettings(withDeclarations: [withKey])) }
        let unused = itJSONDeclaration(base: Self.base, extra: #", "keyEnv": "ITJSON_KEY""#)
        #expect(throws: SeekError.self) { try JSONProviderDeclaration.all(in: declaredSettings(withDeclarations: [unused])) }
    }

    @Test("two declarations with one id, or a built-in's id, are refused")
    func duplicateIDs() throws {
        let one = itJSONDeclaration(base: Self.base)
        let duplicate = #expect(throws: SeekError.self) { try JSONProviderDeclaration.all(in: declaredSettings(withDeclarations: [one, one])) }
        #expect(duplicate?.description.contains("itjson") == true)
        let clash = #expect(throws: SeekError.self) {
            try JSONProviderDeclaration.all(in: declaredSettings(withDeclarations: [one]), reservedIDs: ["itjson"])
        }
        #expect(clash?.description.contains("built-in") == true, "\(clash?.description ?? "")")
    }

    @Test("jsonProviders that is not a list is a configuration error")
    func notAList() throws {
        let file = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"jsonProviders": {"id": "x"}}"#.utf8))
        #expect(throws: SeekError.self) { try JSONProviderDeclaration.all(in: Settings(file: file)) }
    }
}

@Suite("Config-declared providers: paths and templates")
struct JSONPathAndTemplateTests {
    private func json(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    @Test("a dot path with numeric indexes reaches into nested lists")
    func numericIndexes() throws {
        let document = try json(#"{"volumeInfo": {"industryIdentifiers": [{"identifier": "0140328726"}, {"identifier": "9780140328721"}]}}"#)
        let path = try JSONPath(parsing: "volumeInfo.industryIdentifiers.1.identifier")
        #expect(path.resolve(in: document)?.firstString == "9780140328721")
        #expect(try JSONPath(parsing: "volumeInfo.industryIdentifiers.7.identifier").resolve(in: document) == nil)
    }

    @Test("a number where a string is expected is converted, and the reverse")
    func numbersAndStrings() throws {
        let document = try json(#"{"isbn13": 9781617294136, "total": "48"}"#)
        #expect(try JSONPath(parsing: "isbn13").resolve(in: document)?.firstString == "9781617294136")
        #expect(try JSONPath(parsing: "total").resolve(in: document)?.firstInt == 48)
    }

    @Test("a list where one value is expected gives its first element; creators take the whole list")
    func listsToValues() throws {
        let document = try json(#"{"authors": ["Ann", "Bob"]}"#)
        let value = try #require(try JSONPath(parsing: "authors").resolve(in: document))
        #expect(value.firstString == "Ann")
        #expect(value.allStrings == ["Ann", "Bob"])
    }

    @Test("a malformed path is refused with the reason")
    func malformedPath() {
        #expect(throws: JSONPathError.self) { try JSONPath(parsing: "a..b") }
        #expect(throws: JSONPathError.self) { try JSONPath(parsing: "books. title") }
    }

    @Test("{query} is percent-encoded, {page}, {offset} and {limit} are filled in")
    func templateExpansion() throws {
        let template = try URLTemplate(
            parsing: "http://h/s/{query}?p={page}&o={offset}&n={limit}", allowed: ["query", "page", "offset", "limit"], required: ["query"])
        let url = try #require(template.expand(["query": "c++ & go/rust", "page": "2", "offset": "10", "limit": "10"]))
        #expect(url.absoluteString.hasPrefix("http://h/s/c%2B%2B%20%26%20go%2Frust?"), "\(url)")
        #expect(url.absoluteString.hasSuffix("p=2&o=10&n=10"), "\(url)")
    }

    @Test("an unknown placeholder is refused")
    func unknownPlaceholder() {
        #expect(throws: URLTemplateError.self) { try URLTemplate(parsing: "http://h/{what}", allowed: ["query"]) }
    }
}

@Suite("Config-declared providers: calls")
struct JSONDeclaredProviderCallTests {
    /// Runs `body` with the example provider built by its factory against a fresh fixture server.
    private func withDeclared<T>(
        extra: String = "", environment: [String: String] = [:],
        _ body: (any SearchProvider, FixtureServer) async throws -> T
    ) async throws -> T {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        do {
            let settings = try declaredSettings(withDeclarations: [itJSONDeclaration(base: server.baseURL, extra: extra)], environment: environment)
            let factory = try #require(try JSONDeclaredProvider.factories(settings: settings).first)
            let provider = try factory.make(ProviderEnvironment(settings: settings, transport: transport))
            let result = try await body(provider, server)
            try await transport.shutdown()
            try await server.shutdown()
            return result
        } catch {
            try? await transport.shutdown()
            try? await server.shutdown()
            throw error
        }
    }

    @Test("search reads items through the paths: ids, ISBN-13, creators and a string total")
    func search() async throws {
        try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.search))
            let page = try await provider.search(SearchRequest(query: "harbor", limit: 2))
            #expect(page.items.map(\.id.description) == ["itjson:9781617294136", "itjson:9781484206485"])
            #expect(page.items.first?.identifiers.isbn13 == ["9781617294136"])
            #expect(page.items.first?.image(.large)?.url.absoluteString.hasPrefix("https://") == true)
            #expect(page.total == 3)
            #expect(page.next == "2")
        }
    }

    @Test("the query is percent-encoded into the path")
    func queryIsEncoded() async throws {
        try await withDeclared { provider, server in
            server.route("/it/search/c%2B%2B%20go/1", .json(ITJSONSamples.empty))
            let page = try await provider.search(SearchRequest(query: "c++ go"))
            #expect(page.items.isEmpty)
            #expect(server.requestCount(path: "/it/search/c%2B%2B%20go/1") == 1)
        }
    }

    @Test("detail reads the record, authors split into creators")
    func detail() async throws {
        try await withDeclared { provider, server in
            server.route("/it/books/9781617294136", .json(ITJSONSamples.book))
            let detail = try await provider.detail(ItemID(provider: "itjson", value: "9781617294136"))
            #expect(detail.item.title == "Harbor Patterns")
            #expect(detail.item.year == 2019)
            #expect(!detail.item.creators.isEmpty)
        }
    }

    @Test("an empty result is an empty page, not an error")
    func emptyResult() async throws {
        try await withDeclared { provider, server in
            server.route("/it/search/zzqxj/1", .json(ITJSONSamples.empty))
            let page = try await provider.search(SearchRequest(query: "zzqxj"))
            #expect(page.items.isEmpty)
            #expect(page.next == nil)
        }
    }

    @Test("malformed JSON is undecodable, naming the provider")
    func malformed() async throws {
        try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", fault: .malformedJSON)
            let error = await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "harbor")) }
            #expect(error?.kind == .undecodable)
            #expect(error?.description.hasPrefix("itjson:") == true)
        }
    }

    @Test("an error field other than an ok value is a typed error", arguments: [#"{"error": "[search] Invalid request"}"#])
    func errorBody(body: String) async throws {
        try await withDeclared(extra: #", "errorPath": "error", "okValues": ["0"]"#) { provider, server in
            server.route("/it/search/harbor/1", .json(body))
            let error = await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "harbor")) }
            #expect(error?.provider == "itjson")
            #expect(error?.description.contains("Invalid request") == true, "\(error?.description ?? "")")
        }
    }

    @Test("{key} comes from the variable keyEnv names and never appears in an error")
    func keyFromEnvironment() async throws {
        let secret = "itjsonSECRET-do-not-leak"
        let keyed = #", "keyEnv": "ITJSON_KEY""#
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let declaration = itJSONDeclaration(base: server.baseURL, extra: keyed)
            .replacingOccurrences(of: "{query}/{page}\"", with: "{query}/{page}?key={key}\"")
        let settings = try declaredSettings(withDeclarations: [declaration], environment: ["ITJSON_KEY": secret])
        let provider = try #require(try JSONDeclaredProvider.factories(settings: settings).first)
            .make(ProviderEnvironment(settings: settings, transport: transport))
        server.route("/it/search/harbor/1", fault: .status(500, body: "echo \(secret)"))
        let error = await #expect(throws: SeekError.self) { try await provider.search(SearchRequest(query: "harbor")) }
        let sent = server.requests.first?.queryValue("key")
        let unkeyed = try #require(try JSONDeclaredProvider.factories(settings: try declaredSettings(withDeclarations: [declaration])).first)
            .make(ProviderEnvironment(settings: try declaredSettings(withDeclarations: [declaration]), transport: transport))
        try await transport.shutdown()
        try await server.shutdown()
        #expect(sent == secret)
        #expect(error?.description.contains(secret) == false, "\(error?.description ?? "")")
        #expect(provider.isConfigured)
        #expect(!unkeyed.isConfigured, "without ITJSON_KEY the provider is skipped")
    }
}

@Suite("Config-declared providers: conformance")
struct JSONDeclaredConformanceTests {
    static let kit = ProviderConformance(
        provider: { base, transport in
            let settings = try declaredSettings(withDeclarations: [itJSONDeclaration(base: base)])
            guard let factory = try JSONDeclaredProvider.factories(settings: settings).first else {
                throw SeekError(.configuration, detail: "the declaration made no provider")
            }
            return try factory.make(ProviderEnvironment(settings: settings, transport: transport))
        },
        query: "harbor",
        search: .json(["/it/search/harbor/1": ITJSONSamples.search, "/it/books/9781617294136": ITJSONSamples.book]),
        emptyQuery: "zzqxj",
        emptySearch: .json(["/it/search/zzqxj/1": ITJSONSamples.empty]))

    @Test("a config-declared provider passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
    }
}
