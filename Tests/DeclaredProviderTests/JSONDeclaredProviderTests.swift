import DeclaredProvider
import Foundation
import SeekKit
import SeekHTTPClient
import SeekCore
import SeekLoopback
import SeekTesting
import Testing

// MARK: Helpers shared by the declared-provider suites (and JSONDeclaredConformanceTests)

/// The issue's example declaration, pointed at `base` (the fixture server's `/it`), as a JSON object;
/// `changes` replace keys (a `nil` value removes the key).
func itJSON(base: URL, _ changes: [String: Any?] = [:]) -> [String: Any] {
    let root = base.appendingPathComponent("it").absoluteString
    var declaration: [String: Any] = [
        "id": "itjson", "name": "IT Bookstore (config)", "kind": "book",
        "searchURL": "\(root)/search/{query}/{page}",
        "detailURL": "\(root)/books/{id}",
        "itemsPath": "books", "totalPath": "total",
        "fields": [
            "id": "isbn13", "title": "title", "subtitle": "subtitle", "isbn": "isbn13",
            "image": "image", "url": "url", "creators": "authors", "year": "year",
        ],
        "keyEnv": "ITJSON_KEY",
    ]
    for (key, value) in changes { declaration[key] = value }
    return declaration
}

/// Settings whose config file declares `declarations` under `"jsonProviders"`.
func declaredSettings(_ declarations: [[String: Any]], environment: [String: String] = [:]) throws -> Settings {
    let data = try JSONSerialization.data(withJSONObject: ["jsonProviders": declarations])
    return Settings(environment: environment, file: try JSONDecoder().decode(JSONValue.self, from: data))
}

/// Validates `declarations` as `seek` does at start-up.
func validate(_ declarations: [[String: Any]], reservedIDs: Set<String> = []) throws -> [JSONProviderDeclaration] {
    try JSONProviderDeclaration.all(in: declaredSettings(declarations), reservedIDs: reservedIDs)
}

/// Builds the declared provider through its factory, as the composition root does.
func makeDeclared(
    _ declaration: [String: Any], environment: [String: String] = [:], transport: any HTTPTransport
) throws -> any SearchProvider {
    let settings = try declaredSettings([declaration], environment: environment)
    guard let factory = try JSONDeclaredProvider.factories(settings: settings).first else {
        throw SeekError(.configuration, detail: "the declaration made no provider")
    }
    return try factory.make(ProviderEnvironment(settings: settings, transport: transport))
}

/// IT Bookstore bodies in the API's shapes (`total` is a string; one `isbn13` here is a number).
enum ITJSONSamples {
    static let search = """
    {"error":"0","total":"3","page":"1","books":[
     {"title":"Harbor Patterns","subtitle":"Docking Go services","isbn13":"9781617294136","price":"$31.19",
      "image":"https://itbook.store/img/books/9781617294136.png","url":"https://itbook.store/books/9781617294136"},
     {"title":"Second Book","subtitle":"","isbn13":9781484206485,"price":"$0.00",
      "image":"/img/books/9781484206485.png","url":"https://itbook.store/books/9781484206485"}]}
    """
    static let empty = #"{"error":"0","total":"0","books":[]}"#
    static let book = """
    {"error":"0","title":"Harbor Patterns","subtitle":"Docking Go services","authors":"Ann Author, Bob Writer",
     "publisher":"Manning","isbn10":"1617294136","isbn13":"9781617294136","pages":"400","year":2019,"rating":"4",
     "desc":"A book.","price":"$31.19","image":"https://itbook.store/img/books/9781617294136.png",
     "url":"https://itbook.store/books/9781617294136"}
    """
    /// IT Bookstore's errors come with HTTP 200.
    static let error = #"{"error":"[search] Invalid request"}"#
    static let unknownBook = #"{"error":"[books] Invalid request: 9780000000002"}"#
}

/// Runs `body` with a fresh fixture server and the provider `declaration(serverBase)` declares.
func withDeclared<T>(
    _ declaration: (URL) -> [String: Any] = { itJSON(base: $0) }, environment: [String: String] = [:],
    _ body: (any SearchProvider, FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    do {
        let provider = try makeDeclared(declaration(server.baseURL), environment: environment, transport: transport)
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

/// The `SeekError` an operation throws; nil when it throws nothing or another type.
func declaredError(_ operation: () async throws -> Void) async -> SeekError? {
    do {
        try await operation()
        return nil
    } catch {
        return error as? SeekError
    }
}

private func json(_ text: String) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
}

// MARK: Declarations

@Suite("Config-declared providers: declarations are validated at start-up")
struct JSONProviderDeclarationTests {
    private static let base = URL(string: "http://127.0.0.1:9")!  // never called

    @Test("the issue's example declaration is accepted as written, keyEnv included")
    func exampleIsAccepted() throws {
        let declaration = try #require(try validate([itJSON(base: Self.base)]).first)
        #expect(declaration.id == "itjson")
        #expect(declaration.name == "IT Bookstore (config)")
        #expect(declaration.kind == .book)
        #expect(declaration.fields[.isbn]?.path.description == "isbn13")
        #expect(declaration.searchURL.placeholders == ["query", "page"])
        #expect(declaration.keyEnv == "ITJSON_KEY")
        #expect(!declaration.needsKey, "no template uses {key}, so the provider runs without the variable")
    }

    @Test("no jsonProviders, or an empty list, declares nothing")
    func nothingDeclared() throws {
        #expect(try JSONProviderDeclaration.all(in: Settings()).isEmpty)
        #expect(try validate([]).isEmpty)
    }

    /// Each case: the keys to change (as JSON; `null` removes one) and the field the error must name.
    @Test("a mistake is a configuration error naming the provider and the field", arguments: [
        (#"{"searchURL": "http://h/search/{query"}"#, "searchURL"),  // an unclosed brace
        (#"{"searchURL": "http://h/search/{qeury}"}"#, "searchURL"),  // an unknown placeholder
        (#"{"searchURL": "ftp://h/search/{query}"}"#, "searchURL"),  // not http(s)
        (#"{"searchURL": "/search/{query}"}"#, "searchURL"),  // not absolute
        (#"{"searchURL": "http://h/search/{id}"}"#, "searchURL"),  // {id} is for detail
        (#"{"searchURL": null}"#, "searchURL"),  // missing
        (#"{"searchURL": 12}"#, "searchURL"),  // not a string
        (#"{"detailURL": "http://h/books/latest"}"#, "detailURL"),  // no {id}
        (#"{"trendingURL": "http://h/new/{query}"}"#, "trendingURL"),
        (#"{"itemsPath": "books..list"}"#, "itemsPath"),
        (#"{"totalPath": "books[0]"}"#, "totalPath"),  // brackets are another path language
        (#"{"detailPath": "$.book"}"#, "detailPath"),
        (#"{"fields": {"id": "isbn13", "title": "books[0].title"}}"#, "fields.title"),
        (#"{"fields": {"id": "isbn13", "title": "title", "author": "authors"}}"#, "fields.author"),
        (#"{"fields": {"id": "isbn13", "title": "title", "creators": {"path": "authors", "split": ""}}}"#, "fields.creators"),
        (#"{"fields": {"title": "title"}}"#, "fields.id"),
        (#"{"fields": "isbn13"}"#, "fields"),
        (#"{"attributes": {"price": ""}}"#, "attributes.price"),
        (#"{"keyEnv": "lower_case"}"#, "keyEnv"),
        (#"{"kind": "Books!"}"#, "kind"),
        (#"{"colour": "blue"}"#, "colour"),
        (#"{"imageSize": "huge"}"#, "imageSize"),
        (#"{"timeout": -1}"#, "timeout"),
        (#"{"pageSize": 0}"#, "pageSize"),
        (#"{"okValues": "0"}"#, "okValues"),
    ])
    func mistakesNameProviderAndField(changes: String, field: String) throws {
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(changes.utf8)) as? [String: Any])
        let declaration = itJSON(base: Self.base, parsed.mapValues { $0 is NSNull ? nil : $0 })
        let error = #expect(throws: SeekError.self) { try validate([declaration]) }
        let text = error?.description ?? ""
        #expect(error?.kind == .configuration)
        #expect(error?.provider == "itjson")
        #expect(text.contains("\"itjson\""), "\(text)")
        #expect(text.contains("field \"\(field)\""), "\(text)")
    }

    @Test("an id that cannot be typed as provider:value is refused before anything else")
    func badID() throws {
        let error = #expect(throws: SeekError.self) { try validate([itJSON(base: Self.base, ["id": "IT Json"])]) }
        #expect(error?.description.contains("field \"id\"") == true, "\(error?.description ?? "")")
        #expect(error?.description.contains("jsonProviders[0]") == true)
    }

    @Test("{key} in a template without keyEnv is refused: the key would have nowhere to come from")
    func keyNeedsKeyEnv() throws {
        let keyed = itJSON(base: Self.base, ["searchURL": "http://h/search/{query}?k={key}", "keyEnv": nil])
        let error = #expect(throws: SeekError.self) { try validate([keyed]) }
        #expect(error?.description.contains("field \"searchURL\"") == true, "\(error?.description ?? "")")
    }

    @Test("two declarations with one id are refused, naming both places")
    func duplicateIDs() throws {
        let one = itJSON(base: Self.base)
        let other = itJSON(base: Self.base, ["id": "other"])
        let error = #expect(throws: SeekError.self) { try validate([one, other, one]) }
        let text = error?.description ?? ""
        #expect(text.contains("jsonProviders[2]") && text.contains("jsonProviders[0]"), "\(text)")
        #expect(text.contains("field \"id\""), "\(text)")
    }

    @Test("a declaration taking a built-in provider's id is refused")
    func builtInIDClash() throws {
        let error = #expect(throws: SeekError.self) {
            try validate([itJSON(base: Self.base, ["id": "openlibrary"])], reservedIDs: ["openlibrary"])
        }
        #expect(error?.description.contains("built-in") == true, "\(error?.description ?? "")")
    }

    @Test("jsonProviders that is not a list of objects is a configuration error")
    func notAList() throws {
        let notList = try json(#"{"jsonProviders": {"id": "x"}}"#)
        #expect(throws: SeekError.self) { try JSONProviderDeclaration.all(in: Settings(file: notList)) }
        let notObject = try json(#"{"jsonProviders": ["itjson"]}"#)
        let error = #expect(throws: SeekError.self) { try JSONProviderDeclaration.all(in: Settings(file: notObject)) }
        #expect(error?.description.contains("jsonProviders[0]") == true)
    }

    @Test("a field may split one string into several values")
    func splitField() throws {
        let declaration = try #require(try validate([itJSON(base: Self.base, [
            "fields": ["id": "isbn13", "title": "title", "creators": ["path": "authors", "split": ","]],
        ])]).first)
        #expect(declaration.fields[.creators]?.separator == ",")
    }
}

// MARK: Paths and templates

@Suite("Config-declared providers: JSON paths")
struct JSONPathTests {
    @Test("a dot path with numeric indexes reaches into nested lists; a missing index is nil")
    func numericIndexes() throws {
        let document = try json(#"{"volumeInfo": {"industryIdentifiers": [{"identifier": "0140328726"}, {"identifier": "9780140328721"}]}}"#)
        let path = try JSONPath(parsing: "volumeInfo.industryIdentifiers.1.identifier")
        #expect(path.resolve(in: document)?.firstString == "9780140328721")
        #expect(try JSONPath(parsing: "volumeInfo.industryIdentifiers.7.identifier").resolve(in: document) == nil)
    }

    @Test("a key applied to a list collects it from every element")
    func keyOverList() throws {
        let document = try json(#"{"authors": [{"name": "Ann"}, {"role": "x"}, {"name": "Bob"}]}"#)
        #expect(try JSONPath(parsing: "authors.name").resolve(in: document)?.allStrings == ["Ann", "Bob"])
    }

    @Test("a segment made of digits names an object key when the value is an object")
    func digitKey() throws {
        let document = try json(#"{"pages": {"2019": "yes"}}"#)
        #expect(try JSONPath(parsing: "pages.2019").resolve(in: document)?.firstString == "yes")
    }

    @Test("a number where a string is expected is converted, and the reverse")
    func numbersAndStrings() throws {
        let document = try json(#"{"isbn13": 9781617294136, "total": "48", "price": 2.5, "one": 1}"#)
        #expect(try JSONPath(parsing: "isbn13").resolve(in: document)?.firstString == "9781617294136")
        #expect(try JSONPath(parsing: "total").resolve(in: document)?.firstInt == 48)
        #expect(try JSONPath(parsing: "price").resolve(in: document)?.firstString == "2.5")
        #expect(try JSONPath(parsing: "one").resolve(in: document)?.firstInt == 1, "a 1 stays a number, not true")
    }

    @Test("a list where one value is expected gives its first element; all values keep the list")
    func listsToValues() throws {
        let document = try json(#"{"authors": ["Ann", "Bob"], "years": [null, "1999", 2001]}"#)
        let authors = try #require(try JSONPath(parsing: "authors").resolve(in: document))
        #expect(authors.firstString == "Ann")
        #expect(authors.allStrings == ["Ann", "Bob"])
        #expect(try JSONPath(parsing: "years").resolve(in: document)?.firstInt == 1999)
    }

    @Test("the empty path is the document itself")
    func root() throws {
        let document = try json(#"[1, 2]"#)
        #expect(try JSONPath(parsing: "").resolve(in: document) == document)
    }

    @Test("a malformed path is refused with the reason", arguments: ["a..b", ".a", "a.", "books. title", "books[0].title", "$.books"])
    func malformedPath(text: String) {
        #expect(throws: JSONPathError.self) { try JSONPath(parsing: text) }
    }
}

@Suite("Config-declared providers: URL templates")
struct URLTemplateTests {
    @Test("{query} is percent-encoded, so it cannot add path segments or query parameters")
    func queryIsEncoded() throws {
        let template = try URLTemplate(parsing: "http://h/s/{query}?p={page}", allowed: ["query", "page"], required: ["query"])
        let url = try #require(template.expand(["query": "c++ & go/rust?x=1 ü", "page": "2"]))
        #expect(url.absoluteString == "http://h/s/c%2B%2B%20%26%20go%2Frust%3Fx%3D1%20%C3%BC?p=2", "\(url)")
    }

    @Test("a template is refused when a placeholder is unknown, unbalanced or required but absent", arguments: [
        "http://h/{what}", "http://h/{query", "http://h/query}", "http://h/{{query}}", "http://h/search",
    ])
    func refused(text: String) {
        #expect(throws: URLTemplateError.self) {
            try URLTemplate(parsing: text, allowed: ["query"], required: ["query"])
        }
    }

    @Test("a template must make an absolute http(s) URL")
    func absolute() {
        #expect(throws: URLTemplateError.self) { try URLTemplate(parsing: "file:///x/{query}", allowed: ["query"]) }
        #expect(throws: URLTemplateError.self) { try URLTemplate(parsing: "{query}", allowed: ["query"]) }
    }
}

// MARK: Calls against the fixture server

@Suite("Config-declared providers: search, detail and errors")
struct JSONDeclaredProviderCallTests {
    @Test("search reads items through the paths: ids, ISBN-13, image, URL and a string total")
    func search() async throws {
        let page = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.search))
            return try await provider.search(SearchRequest(query: "harbor", limit: 2))
        }
        #expect(page.items.map(\.id.description) == ["itjson:9781617294136", "itjson:9781484206485"])
        let first = try #require(page.items.first)
        #expect(first.kind == .book)
        #expect(first.title == "Harbor Patterns")
        #expect(first.subtitle == "Docking Go services")
        #expect(first.identifiers.isbn13 == ["9781617294136"])
        #expect(first.image(.medium)?.url.absoluteString == "https://itbook.store/img/books/9781617294136.png")
        #expect(first.url?.absoluteString == "https://itbook.store/books/9781617294136")
        #expect(page.total == 3)
        #expect(page.next == "2")
    }

    @Test("a number where the id and ISBN are expected is converted to text")
    func numericID() async throws {
        let page = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.search))
            return try await provider.search(SearchRequest(query: "harbor"))
        }
        let second = try #require(page.items.dropFirst().first)
        #expect(second.id.value == "9781484206485")
        #expect(second.identifiers.isbn13 == ["9781484206485"])
        #expect(second.subtitle == nil, "an empty string is no subtitle")
    }

    @Test("a relative image link is made absolute against the API's host")
    func relativeImage() async throws {
        let (page, base) = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.search))
            return (try await provider.search(SearchRequest(query: "harbor")), server.baseURL)
        }
        let image = try #require(page.items.dropFirst().first?.image(.medium)?.url)
        #expect(image.absoluteString == base.absoluteString + "/img/books/9781484206485.png", "\(image)")
    }

    @Test("{page} counts from 1 and follows the cursor the previous page gave")
    func pageFromOne() async throws {
        let paths = try await withDeclared { provider, server in
            server.route("/it/search/*", .json(ITJSONSamples.search))
            let first = try await provider.search(SearchRequest(query: "harbor", limit: 2))
            _ = try await provider.search(SearchRequest(query: "harbor", cursor: first.next, limit: 2))
            _ = try await provider.search(SearchRequest(query: "harbor", page: 3, limit: 2))
            return server.requests.map(\.path)
        }
        #expect(paths == ["/it/search/harbor/1", "/it/search/harbor/2", "/it/search/harbor/3"])
    }

    @Test("{offset} counts from 0, {limit} is the request's size, and the cursor is the next offset")
    func offsetAndLimit() async throws {
        let declaration: (URL) -> [String: Any] = { base in
            itJSON(base: base, ["searchURL": base.absoluteString + "/it/find?q={query}&start={offset}&n={limit}&p={page}"])
        }
        let (first, queries) = try await withDeclared(declaration) { provider, server in
            server.route("/it/find", .json(ITJSONSamples.search))
            let first = try await provider.search(SearchRequest(query: "harbor", limit: 2))
            _ = try await provider.search(SearchRequest(query: "harbor", cursor: first.next, limit: 2))
            return (first, server.requests.map { [$0.queryValue("start"), $0.queryValue("n"), $0.queryValue("p")] })
        }
        #expect(first.next == "2")
        #expect(queries == [["0", "2", "1"], ["2", "2", "2"]])
    }

    @Test("a short page of an API with a declared page size is the last, whatever the total says")
    func shortPageIsLast() async throws {
        let page = try await withDeclared({ itJSON(base: $0, ["pageSize": 10]) }) { provider, server in
            // 2 books where 10 make a page, though the total claims 48.
            server.route("/it/search/harbor/1", .json(ITJSONSamples.search.replacingOccurrences(of: #""total":"3""#, with: #""total":"48""#)))
            return try await provider.search(SearchRequest(query: "harbor"))
        }
        #expect(page.items.count == 2)
        #expect(page.next == nil)
    }

    @Test("a template without {page} or {offset} offers no next page")
    func noPaging() async throws {
        let page = try await withDeclared({ itJSON(base: $0, ["searchURL": $0.absoluteString + "/it/search/{query}"]) }) { provider, server in
            server.route("/it/search/harbor", .json(ITJSONSamples.search))
            return try await provider.search(SearchRequest(query: "harbor"))
        }
        #expect(page.items.count == 2)
        #expect(page.next == nil)
    }

    @Test("the query is percent-encoded into the path")
    func queryIsEncoded() async throws {
        let count = try await withDeclared { provider, server in
            server.route("/it/search/*", .json(ITJSONSamples.empty))
            _ = try await provider.search(SearchRequest(query: "c++ go/rust"))
            return server.requestCount(path: "/it/search/c%2B%2B%20go%2Frust/1")
        }
        #expect(count == 1)
    }

    @Test("creators take the whole list; a list where one value is expected gives its first element")
    func listsInResults() async throws {
        let body = #"{"books": [{"isbn13": ["9781617294136", "1617294136"], "title": ["Main title", "Alt"], "authors": ["Ann", "Bob"], "year": "March 2015"}]}"#
        let item = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(body))
            return try await provider.search(SearchRequest(query: "harbor")).items.first
        }
        #expect(item?.id.value == "9781617294136")
        #expect(item?.title == "Main title")
        #expect(item?.creators == ["Ann", "Bob"])
        #expect(item?.year == 2015, "a year is read out of a date string")
        #expect(item?.identifiers.isbn10 == ["1617294136"])
    }

    @Test("a result without an id is left out; one without a title is kept as untitled")
    func missingFields() async throws {
        let body = #"{"books": [{"title": "No id"}, {"isbn13": "9781617294136"}]}"#
        let items = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(body))
            return try await provider.search(SearchRequest(query: "harbor")).items
        }
        #expect(items.map(\.id.value) == ["9781617294136"])
        #expect(items.first?.title == "(untitled)")
    }

    @Test("an empty result is an empty page, not an error")
    func emptyResult() async throws {
        let page = try await withDeclared { provider, server in
            server.route("/it/search/zzqxj/1", .json(ITJSONSamples.empty))
            return try await provider.search(SearchRequest(query: "zzqxj"))
        }
        #expect(page.items.isEmpty)
        #expect(page.total == 0)
        #expect(page.next == nil)
    }

    @Test("a missing result list with a total of zero is an empty page too")
    func missingListWithZeroTotal() async throws {
        let page = try await withDeclared { provider, server in
            server.route("/it/search/zzqxj/1", .json(#"{"total": 0}"#))
            return try await provider.search(SearchRequest(query: "zzqxj"))
        }
        #expect(page.items.isEmpty)
    }

    @Test("detail reads the record: creators, year, publisher, pages and attributes")
    func detail() async throws {
        let declaration: (URL) -> [String: Any] = { base in
            itJSON(base: base, [
                "fields": [
                    "id": "isbn13", "title": "title", "isbn": "isbn13", "year": "year", "description": "desc",
                    "creators": ["path": "authors", "split": ","], "publishers": "publisher", "pages": "pages",
                ],
                "attributes": ["price": "price", "rating": "rating"],
            ])
        }
        let (detail, path) = try await withDeclared(declaration) { provider, server in
            server.route("/it/books/9781617294136", .json(ITJSONSamples.book))
            let detail = try await provider.detail(ItemID(provider: "itjson", value: "9781617294136"))
            return (detail, server.requests.first?.path)
        }
        #expect(path == "/it/books/9781617294136")
        #expect(detail.item.id.description == "itjson:9781617294136")
        #expect(detail.item.title == "Harbor Patterns")
        #expect(detail.item.creators == ["Ann Author", "Bob Writer"])
        #expect(detail.contributors.map(\.name) == ["Ann Author", "Bob Writer"])
        #expect(detail.item.year == 2019)
        #expect(detail.item.identifiers.isbn13 == ["9781617294136"])
        #expect(detail.publishers == ["Manning"])
        #expect(detail.pageCount == 400, "\"400\" is converted to a number")
        #expect(detail.description == "A book.")
        #expect(detail.attributes == ["price": "$31.19", "rating": "4"])
    }

    @Test("detail reads the record at detailPath")
    func detailPath() async throws {
        let detail = try await withDeclared({ itJSON(base: $0, ["detailPath": "data.0"]) }) { provider, server in
            server.route("/it/books/9781617294136", .json(#"{"data": [\#(ITJSONSamples.book)]}"#))
            return try await provider.detail(ItemID(provider: "itjson", value: "9781617294136"))
        }
        #expect(detail.item.title == "Harbor Patterns")
    }

    @Test("detail with no record at detailPath is an undecodable response")
    func detailWithoutRecord() async throws {
        let error = try await withDeclared({ itJSON(base: $0, ["detailPath": "data.0"]) }) { provider, server in
            server.route("/it/books/9781617294136", .json(#"{"data": []}"#))
            return await declaredError { _ = try await provider.detail(ItemID(provider: "itjson", value: "9781617294136")) }
        }
        #expect(error?.kind == .undecodable)
        #expect(error?.provider == "itjson")
    }

    @Test("detail of another provider's id is invalid input, without a request")
    func foreignID() async throws {
        let (error, count) = try await withDeclared { provider, server in
            let error = await declaredError { _ = try await provider.detail(ItemID(provider: "openlibrary", value: "OL1W")) }
            return (error, server.totalRequestCount)
        }
        #expect(error?.kind == .invalidInput)
        #expect(count == 0)
    }

    @Test("without detailURL, detail is unsupported and not in the capabilities")
    func noDetail() async throws {
        let (error, capabilities) = try await withDeclared({ itJSON(base: $0, ["detailURL": nil]) }) { provider, _ in
            (await declaredError { _ = try await provider.detail(ItemID(provider: "itjson", value: "1")) }, provider.descriptor.capabilities)
        }
        #expect(error?.kind == .unsupported(capability: "detail"))
        #expect(!capabilities.contains(.detail))
    }

    @Test("trendingURL gives trending, cut to the limit")
    func trending() async throws {
        let (page, capabilities) = try await withDeclared({ itJSON(base: $0, ["trendingURL": $0.absoluteString + "/it/new"]) }) { provider, server in
            server.route("/it/new", .json(ITJSONSamples.search))
            return (try await provider.trending(limit: 1), provider.descriptor.capabilities)
        }
        #expect(page.items.map(\.title) == ["Harbor Patterns"])
        #expect(capabilities.contains(.trending))
    }

    @Test("an error the API reports with HTTP 200 at errorPath is a typed error with its message")
    func errorBody() async throws {
        let declaration: (URL) -> [String: Any] = { itJSON(base: $0, ["errorPath": "error", "okValues": ["0"]]) }
        let (search, detail) = try await withDeclared(declaration) { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.error))
            server.route("/it/books/9780000000002", .json(ITJSONSamples.unknownBook))
            let search = await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
            let detail = await declaredError { _ = try await provider.detail(ItemID(provider: "itjson", value: "9780000000002")) }
            return (search, detail)
        }
        #expect(search?.kind == .invalidInput)
        #expect(search?.provider == "itjson")
        #expect(search?.detail.contains("[search] Invalid request") == true, "\(search?.description ?? "")")
        #expect(detail?.kind == .notFound)
    }

    @Test("an ok value at errorPath is no error")
    func okValue() async throws {
        let page = try await withDeclared({ itJSON(base: $0, ["errorPath": "error", "okValues": ["0"]]) }) { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.search))
            return try await provider.search(SearchRequest(query: "harbor"))
        }
        #expect(page.items.count == 2)
    }

    @Test("without errorPath, an error body lacking the result list is an undecodable response quoting it")
    func errorBodyWithoutErrorPath() async throws {
        let error = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.error))
            return await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
        }
        #expect(error?.kind == .undecodable)
        #expect(error?.detail.contains("books") == true)
        #expect(error?.detail.contains("Invalid request") == true, "\(error?.description ?? "")")
    }

    @Test("HTTP statuses are typed: 429 rate limited, 404 not found, 500 an HTTP error")
    func statuses() async throws {
        let (limited, missing, failed) = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", FixtureResponse(status: 429, headers: [("Retry-After", "7")], body: Array("{}".utf8)))
            server.route("/it/books/1", .json("{}", status: 404))
            server.route("/it/search/boom/1", fault: .status(500, body: "oops"))
            let limited = await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
            let missing = await declaredError { _ = try await provider.detail(ItemID(provider: "itjson", value: "1")) }
            let failed = await declaredError { _ = try await provider.search(SearchRequest(query: "boom")) }
            return (limited, missing, failed)
        }
        #expect(limited?.kind == .rateLimited(retryAfterSeconds: 7))
        #expect(missing?.kind == .notFound)
        #expect(failed?.kind == .httpStatus(500))
    }

    @Test("malformed bodies are undecodable errors naming the provider", arguments: [
        FixtureFault.malformedJSON, .html, .empty,
    ])
    func malformed(fault: FixtureFault) async throws {
        let error = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", fault: fault)
            return await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
        }
        #expect(error?.kind == .undecodable)
        #expect(error?.description.hasPrefix("itjson:") == true, "\(error?.description ?? "")")
    }

    @Test("a truncated body is a typed error naming the provider")
    func truncated() async throws {
        let error = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", fault: .truncated)
            return await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
        }
        #expect(error?.provider == "itjson", "\(String(describing: error))")
    }

    @Test("JSON of the wrong shape is undecodable, not a crash", arguments: ["[]", "null", "12", #""text""#, #"{"books": {"a": 1}}"#])
    func wrongShape(body: String) async throws {
        let error = try await withDeclared { provider, server in
            server.route("/it/search/harbor/1", .json(body))
            return await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
        }
        #expect(error?.kind == .undecodable)
    }

    @Test("an empty query is invalid input, without a request")
    func emptyQuery() async throws {
        let (error, count) = try await withDeclared { provider, server in
            (await declaredError { _ = try await provider.search(SearchRequest(query: "  ")) }, server.totalRequestCount)
        }
        #expect(error?.kind == .invalidInput)
        #expect(count == 0)
    }
}

// MARK: Keys

@Suite("Config-declared providers: {key} from the environment")
struct JSONDeclaredKeyTests {
    static let secret = "itjsonSECRET-do-not-leak"

    private static func keyed(_ base: URL) -> [String: Any] {
        itJSON(base: base, ["searchURL": base.absoluteString + "/it/search/{query}/{page}?key={key}"])
    }

    @Test("{key} is filled from the variable keyEnv names")
    func keySent() async throws {
        let sent = try await withDeclared(Self.keyed, environment: ["ITJSON_KEY": Self.secret]) { provider, server in
            server.route("/it/search/harbor/1", .json(ITJSONSamples.search))
            _ = try await provider.search(SearchRequest(query: "harbor"))
            return server.requests.first?.queryValue("key")
        }
        #expect(sent == Self.secret)
    }

    @Test("the key never appears in an error, the endpoint or an item link")
    func keyNeverShown() async throws {
        let body = #"{"books": [{"isbn13": "9781617294136", "title": "T", "url": "details?key=\#(Self.secret)"}]}"#
        let (error, endpoint, link) = try await withDeclared(Self.keyed, environment: ["ITJSON_KEY": Self.secret]) { provider, server in
            server.route("/it/search/boom/1", fault: .status(500, body: "echo \(Self.secret)"))
            server.route("/it/search/harbor/1", .json(body))
            let error = await declaredError { _ = try await provider.search(SearchRequest(query: "boom")) }
            let link = try await provider.search(SearchRequest(query: "harbor")).items.first?.url
            return (error, provider.endpoint, link)
        }
        #expect(error != nil)
        #expect(error?.description.contains(Self.secret) == false, "\(error?.description ?? "")")
        #expect(!endpoint.contains(Self.secret))
        #expect(link == nil, "a link holding the key is dropped: \(link?.absoluteString ?? "")")
    }

    @Test("without the variable, a provider whose templates use {key} is not configured (skipped) and says which variable")
    func missingKey() async throws {
        let (configured, needsKey, error, count) = try await withDeclared(Self.keyed) { provider, server in
            let error = await declaredError { _ = try await provider.search(SearchRequest(query: "harbor")) }
            return (provider.isConfigured, provider.descriptor.needsKey, error, server.totalRequestCount)
        }
        #expect(!configured)
        #expect(needsKey)
        #expect(error?.kind == .missingKey(variable: "ITJSON_KEY"))
        #expect(count == 0)
    }

    @Test("the key is read from the environment only, never from the config file")
    func notFromConfig() async throws {
        let base = URL(string: "http://127.0.0.1:9")!
        var declaration = Self.keyed(base)
        declaration["ITJSON_KEY"] = Self.secret  // an unknown key: refused
        #expect(throws: SeekError.self) { try validate([declaration]) }
        let data = try JSONSerialization.data(withJSONObject: ["jsonProviders": [Self.keyed(base)], "ITJSON_KEY": Self.secret])
        let settings = Settings(file: try JSONDecoder().decode(JSONValue.self, from: data))
        let transport = AsyncHTTPTransport()
        let provider = try JSONDeclaredProvider.factories(settings: settings).first?
            .make(ProviderEnvironment(settings: settings, transport: transport))
        try await transport.shutdown()
        #expect(provider?.isConfigured == false)
    }

    @Test("keyEnv without {key} in any template does not make the provider need a key")
    func unusedKeyEnv() async throws {
        let configured = try await withDeclared { provider, _ in provider.isConfigured && !provider.descriptor.needsKey }
        #expect(configured)
    }
}
