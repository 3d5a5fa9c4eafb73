import Foundation
import SeekCore
import SeekKit

/// Book search and detail from the Google Books API v1 (`/books/v1/volumes`), public data only.
///
/// Every call needs an API key (`SEEK_GOOGLEBOOKS_API_KEY` or `providers.googlebooks.apiKey`): since
/// 2026-09 Google answers every keyless call 429 with a quota of 0, so without a key the provider is
/// `skipped`. The key travels as the `key` query parameter, which `Redaction` masks in every URL, and
/// is scrubbed from every error this provider throws.
public struct GoogleBooksProvider: SearchProvider {
    /// The provider id used in item ids (`googlebooks:<volume id>`) and `--providers`.
    public static let id = "googlebooks"
    public static let keyVariable = "SEEK_GOOGLEBOOKS_API_KEY"
    public static let urlVariable = "SEEK_GOOGLEBOOKS_URL"
    public static let defaultBaseURL = "https://www.googleapis.com"
    /// `maxResults` above 40 is a 400 (`invalidParameter`): larger limits are clamped.
    public static let maxLimit = 40
    /// Google serves no page starting past this index, whatever `totalItems` says (an estimate).
    public static let offsetCeiling = 1000

    public let descriptor: ProviderDescriptor
    public let baseURL: URL
    private let apiKey: String?
    private let client: ProviderClient
    /// When Google says a daily quota resets, for a given moment (midnight Pacific time).
    let dailyReset: @Sendable (Date) -> Date

    /// A provider calling `baseURL` with `apiKey`; a nil or empty key leaves it unconfigured (every call
    /// throws `.missingKey`).
    public init(baseURL: URL, apiKey: String?, transport: any HTTPTransport) {
        self.init(baseURL: baseURL, apiKey: apiKey, transport: transport, dailyReset: GoogleBooksError.nextPacificMidnight)
    }

    init(baseURL: URL, apiKey: String?, transport: any HTTPTransport, dailyReset: @escaping @Sendable (Date) -> Date) {
        let key = apiKey?.trimmed()
        let cleanedKey = (key?.isEmpty ?? true) ? nil : key
        self.baseURL = baseURL
        self.apiKey = cleanedKey
        self.dailyReset = dailyReset
        self.descriptor = ProviderDescriptor(
            id: Self.id, name: "Google Books", kinds: [.book], capabilities: [.search, .detail, .image],
            paging: .offset, needsKey: true, shortcuts: ["gb"])
        self.client = ProviderClient(
            provider: Self.id, transport: transport, secrets: cleanedKey.map { [$0] } ?? [], timeout: .seconds(30))
    }

    /// Builds the provider from settings: `SEEK_GOOGLEBOOKS_URL` and `SEEK_GOOGLEBOOKS_API_KEY`
    /// (or `providers.googlebooks.url|apiKey` in the config file). `providers.googlebooks.timeout|weight`
    /// are the engine's, read once for every provider (`ProviderTuning`), never here.
    public init(environment: ProviderEnvironment) throws {
        let settings = environment.settings
        self.init(
            baseURL: try settings.baseURL(Self.urlVariable, provider: Self.id, default: Self.defaultBaseURL),
            apiKey: settings.string(Self.keyVariable, provider: Self.id, key: "apiKey"),
            transport: environment.transport)
    }

    /// How the composition root builds this provider, and its policy: a free key has 1,000 calls a day
    /// and Google throttles bursts per minute (reference §6), so it gets a polite pace of 2 a second
    /// with bursts of 5; its demo is GoogleBooksDemo.swift.
    public static let factory = ProviderFactory(
        id: id, defaultRateLimit: RateLimit(requests: 2, per: .seconds(1), burst: 5), demo: demo
    ) { try GoogleBooksProvider(environment: $0) }

    public var isConfigured: Bool { apiKey != nil }

    public var endpoint: String { baseURL.absoluteString }

    public var secrets: [String] { client.secrets }

    public var requirements: [ProviderRequirement] {
        [ProviderRequirement(variable: Self.keyVariable, purpose: "API key", isSet: apiKey != nil)]
    }

    // MARK: - Calls

    /// Searches volumes (books only, not magazines). Google pages by offset (`startIndex`); the cursor is
    /// the next offset. A query `isbn:…` keeps only volumes that carry that ISBN: Google answers it as a
    /// relevance search, with unrelated books when it has none.
    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let key = try requireKey()
        let query = request.query.trimmed()
        guard !query.isEmpty else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "the search text is empty")
        }
        let limit = min(request.limit, Self.maxLimit)
        let offset = request.offset
        guard offset < Self.offsetCeiling else { return SearchPage(items: [], total: nil, next: nil) }
        let url = baseURL.appending(path: "/books/v1/volumes", query: [
            ("q", query),
            ("startIndex", String(offset)),
            ("maxResults", String(limit)),
            ("printType", "books"),
            ("key", key),
        ])
        let (body, response) = try await call(url)
        guard let object = body.objectValue else {
            throw undecodable("expected a JSON object with `items`", response)
        }
        let volumes = object["items"]?.arrayValue ?? []
        guard object["items"] == nil || object["items"]?.arrayValue != nil else {
            throw undecodable("`items` is not a list", response)
        }
        // A server that sends more than `maxResults` asked for does not get to overfill the page.
        let received = volumes.prefix(limit)
        let wantedLanguage = Self.language(request.language)
        var items: [Item] = []
        for volume in received {
            // `langRestrict` is measured to do nothing: the language is checked here, where Google gives one.
            if let wantedLanguage, let language = Self.language(volume["volumeInfo"]?["language"]?.stringValue),
               language != wantedLanguage { continue }
            guard let item = GoogleBooksMapping.item(volume) else { continue }
            items.append(item)
        }
        if let isbn = Self.askedISBN(query) {
            items = items.filter { $0.identifiers.isbn13.contains(isbn) || $0.identifiers.isbn10.contains(isbn) }
        }
        // `totalItems` is an estimate (0 past the real end): paging stops on a short page, not on it.
        let total = object["totalItems"]?.intValue
        let next = received.count >= limit
            ? SearchPage.nextOffset(after: request, received: received.count, total: nil, ceiling: Self.offsetCeiling)
            : nil
        return SearchPage(items: items, total: total.map { max($0, offset + received.count) }, next: next)
    }

    /// One volume by its id. Volume ids are case-sensitive: `PNJZAAAAcAAJ` and `pNJZAAAAcAAJ` are two books.
    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        let key = try requireKey()
        guard id.provider == Self.id else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "\(id) is not a Google Books id")
        }
        guard Self.isVolumeID(id.value) else {
            throw SeekError(
                .invalidInput, provider: Self.id,
                detail: "a Google Books volume id holds only letters, digits, '-' and '_' (got \(id.value.prefix(80)))")
        }
        let url = baseURL.appending(path: "/books/v1/volumes/" + id.value, query: [("key", key)])
        let (body, response) = try await call(url)
        guard let detail = GoogleBooksMapping.detail(body) else {
            throw undecodable("expected a volume with an `id`", response)
        }
        return detail
    }

    // MARK: - Plumbing

    private func requireKey() throws -> String {
        guard let apiKey else {
            throw SeekError(
                .missingKey(variable: Self.keyVariable), provider: Self.id,
                detail: "export \(Self.keyVariable)=… or set providers.googlebooks.apiKey in the config file "
                    + "(Google answers keyless calls 429 with a quota of 0)")
        }
        return apiKey
    }

    /// GETs `url` and returns its JSON once it is known not to be an error. Errors are read by their
    /// reason, not only their status: a daily quota, a bad key and a bad parameter can share a status.
    private func call(_ url: URL) async throws -> (JSONValue, HTTPResponse) {
        let response = try await client.fetch(url)
        guard (200..<300).contains(response.status) else {
            let parsed = try? JSONValue(parsing: response.body)
            let failure = GoogleBooksError(status: response.status, body: parsed)
            throw client.scrub(failure.seekError(response: response, url: url, now: Date(), dailyReset: dailyReset))
        }
        return (try client.decodeJSON(from: response), response)
    }

    private func undecodable(_ message: String, _ response: HTTPResponse) -> SeekError {
        client.scrub(SeekError(.undecodable, provider: Self.id, detail: client.body(message, response)))
    }

    /// The ISBN a query that is one `isbn:` term asks for (`isbn:9784815602666`, `isbn:0-306-40615-2`), as
    /// an ISBN-13 when it is a valid ISBN, else as written (then no volume has it: Google's answer to it is
    /// unrelated books); nil for any other query.
    static func askedISBN(_ query: String) -> String? {
        guard query.lowercased().hasPrefix("isbn:") else { return nil }
        let value = ISBN.clean(String(query.dropFirst(5)))
        guard !value.isEmpty, !value.contains(" ") else { return nil }
        if ISBN.isValid13(value) { return value }
        return ISBN.isbn13(from: value) ?? value
    }

    /// A language tag's primary subtag, lowercased (`pt` for `pt-BR`); nil for none.
    static func language(_ tag: String?) -> String? {
        guard let tag = tag?.trimmed().lowercased(), !tag.isEmpty else { return nil }
        let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? tag
        return primary.isEmpty ? nil : primary
    }

    /// Google's volume ids: 12 characters in practice, of letters, digits, `-` and `_`.
    static func isVolumeID(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 64
            && value.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
