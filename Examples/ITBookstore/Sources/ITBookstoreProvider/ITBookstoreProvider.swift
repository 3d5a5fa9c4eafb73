import Foundation
import SeekKit
import SeekCore

/// IT Bookstore (`api.itbook.store/1.0`) as a Seek provider: search, detail and new releases.
/// Written as a user would: one file (and its demo answers in Demo/), on the contract (SeekCore) and the
/// provider kit (SeekKit; see docs/writing-a-provider.md).
public struct ITBookstoreProvider: SearchProvider {
    public static let id = "itbook"
    public static let urlVariable = "SEEK_ITBOOK_URL"
    public static let defaultBaseURL = "https://api.itbook.store/1.0"
    /// The API serves ten books a page, whatever the caller asks for.
    public static let pageSize = 10

    /// How `seek-itbook` adds this provider to `seek`, and its policy: the API publishes no rate, so a
    /// polite two a second; `--demo` serves the answers in Demo/ (`demo`, at the end of this file).
    public static let factory = ProviderFactory(
        id: id, defaultRateLimit: RateLimit(requests: 2, per: .seconds(1), burst: 5), demo: demo
    ) { try ITBookstoreProvider(environment: $0) }

    public let descriptor = ProviderDescriptor(
        id: Self.id, name: "IT Bookstore", kinds: [.book], capabilities: [.search, .detail, .image, .trending],
        paging: .page, shortcuts: ["itb"])
    public let baseURL: URL
    private let client: ProviderClient

    public init(baseURL: URL, transport: any HTTPTransport) {
        self.baseURL = baseURL
        client = ProviderClient(provider: Self.id, transport: transport)
    }

    /// Reads `SEEK_ITBOOK_URL` (or `providers.itbook.url` in the config file).
    public init(environment: ProviderEnvironment) throws {
        let url = try environment.settings.baseURL(Self.urlVariable, provider: Self.id, default: Self.defaultBaseURL)
        self.init(baseURL: url, transport: environment.transport)
    }

    public var endpoint: String { baseURL.absoluteString }

    /// `GET /search/{query}/{page}`; the cursor, when set, is the next page number.
    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let query = request.query.trimmed()
        guard !query.isEmpty else { throw failure(.invalidInput, "the search text is empty") }
        let page = request.cursor.flatMap { Int($0) }.map { max(1, $0) } ?? request.page
        let body = try await call("/search/\(URL.encodeSegment(query))/\(page)", onError: .invalidInput)
        let books = try list(body)
        let total = body["total"]?.intValue  // A string: `"total": "48"`.
        let more = !books.isEmpty && page * Self.pageSize < (total ?? 0)
        return SearchPage(items: books.compactMap(item), total: total, next: more ? String(page + 1) : nil)
    }

    /// `GET /new`: the latest releases.
    public func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        let books = try list(try await call("/new", onError: .invalidInput))
        return SearchPage(items: Array(books.compactMap(item).prefix(max(1, limit))))
    }

    /// `GET /books/{isbn13}`: the full record.
    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        guard id.provider == Self.id, (1...13).contains(id.value.count), id.value.allSatisfy({ $0.isASCII && $0.isNumber })
        else { throw failure(.invalidInput, "'\(id.value)' is not an IT Bookstore ISBN-13") }
        let book = try await call("/books/\(id.value)", onError: .notFound)
        guard let item = item(book) else { throw failure(.undecodable, "the record of \(id.value) has no isbn13") }
        var attributes: [String: String] = [:]
        for key in ["price", "rating", "language"] { attributes[key] = text(book[key]) }
        return ItemDetail(
            item: item, description: text(book["desc"]),
            contributors: item.creators.map { Contributor(name: $0, role: "author") },
            publishers: text(book["publisher"]).map { [$0] } ?? [], publishDate: text(book["year"]),
            pageCount: book["pages"]?.intValue, attributes: attributes)
    }

    /// GETs `path` as a JSON object; an `error` other than "0" (sent with HTTP 200) is a typed error of `kind`.
    private func call(_ path: String, onError kind: SeekError.Kind) async throws -> JSONValue {
        let response = try await client.get(baseURL.appending(path: path, query: []))
        let body = try client.decode(JSONValue.self, from: response)
        guard body.objectValue != nil else {
            throw failure(.undecodable, client.body("expected a JSON object", response))
        }
        if let error = body["error"]?.stringValue, error != "0" {
            throw failure(kind, "IT Bookstore says: \(error)")
        }
        return body
    }

    private func list(_ body: JSONValue) throws -> [JSONValue] {
        guard let books = body["books"]?.arrayValue else { throw failure(.undecodable, "the response has no \"books\" list") }
        return books
    }

    /// One book (a search result or a full record) as an item; nil without an isbn13.
    private func item(_ book: JSONValue) -> Item? {
        guard let isbn13 = text(book["isbn13"]) else { return nil }
        let image = text(book["image"]).flatMap(absolute).map { ImageReference(url: $0, size: .medium) }
        // `authors` is one string: "Mark Lutz, David Ascher".
        let authors = (text(book["authors"]) ?? "").split(separator: ",").map { $0.trimmed() }
        return Item(
            id: ItemID(provider: Self.id, value: isbn13), kind: .book, title: text(book["title"]) ?? "(untitled)",
            subtitle: text(book["subtitle"]), creators: authors.filter { !$0.isEmpty }, year: book["year"]?.intValue,
            identifiers: Identifiers(isbnsIn: [isbn13] + [text(book["isbn10"])].compactMap { $0 }),
            images: image.map { [.medium: $0] } ?? [:], url: text(book["url"]).flatMap(absolute))
    }

    /// A trimmed, non-empty string (numbers converted).
    private func text(_ value: JSONValue?) -> String? {
        let text = value?.stringValue?.trimmed()
        return text?.isEmpty == false ? text : nil
    }

    private func failure(_ kind: SeekError.Kind, _ detail: String) -> SeekError {
        SeekError(kind, provider: Self.id, detail: detail)
    }

    /// An absolute http(s) URL, resolving a relative one against the API's base.
    private func absolute(_ text: String) -> URL? {
        guard let url = URL(string: text, relativeTo: baseURL)?.absoluteURL,
              url.scheme == "http" || url.scheme == "https", url.host != nil else { return nil }
        return url
    }
}

// MARK: Demo

extension ITBookstoreProvider {
    /// What `--demo` serves: the answers in Demo/ (see its PROVENANCE.md), compiled in by the EmbedFiles plugin.
    static let demo = ProviderDemo(
        settings: [urlVariable: .url(path: "")],
        routes: [
            DemoRoute("/search/*") { request in
                // `/search/{query}/{page}`: the sample answers a query about its books, on its first page.
                let parts = request.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
                let query = parts.dropFirst().first?.lowercased() ?? ""
                let first = parts.count < 3 || parts.last == "1"
                guard first, ["devops", "mongodb", "securing"].contains(where: { query.contains($0) }) else {
                    return .json(#"{"error": "0", "total": "0", "books": []}"#)
                }
                return .recording(demoFile("search_devops_sample.json"), named: "search_devops_sample.json")
            },
            DemoRoute("/new") { _ in .recording(demoFile("new_sample.json"), named: "new_sample.json") },
            DemoRoute("/books/*") { request in
                let isbn = request.lastSegment
                if isbn == "9781617294136" {
                    return .recording(demoFile("book_9781617294136_sample.json"), named: "book_9781617294136_sample.json")
                }
                let lists = ["search_devops_sample.json", "new_sample.json"].map(demoFile)
                guard var book = ProviderDemo.entry(in: lists, key: "books", where: { $0["isbn13"] as? String == isbn }) else {
                    return .object(["error": "[books] Invalid request: \(isbn)"])
                }
                book["error"] = "0"
                book["desc"] = ProviderDemo.noted(nil)
                return .object(book)
            },
        ],
        recording: demoFile)

    private static func demoFile(_ name: String) -> String? { EmbeddedFiles.text("Demo/" + name) }
}
