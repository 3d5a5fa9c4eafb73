import Foundation
import SeekKit
import SeekCore

/// Korean book search, detail and bestsellers from the Aladin (알라딘) Open API "TTB" (`/ttb/api/*.aspx`, `output=js`).
///
/// Every call needs a TTB key (`SEEK_ALADIN_TTB_KEY` or `providers.aladin.ttbKey`); it travels as the
/// `ttbkey` query parameter and is scrubbed from every error this provider throws.
public struct AladinProvider: SearchProvider {
    /// The provider id used in item ids (`aladin:<ISBN-13 or itemId>`) and `--providers`.
    public static let id = "aladin"
    /// The environment variable that holds the TTB key.
    public static let keyVariable = "SEEK_ALADIN_TTB_KEY"
    public static let urlVariable = "SEEK_ALADIN_URL"
    public static let defaultBaseURL = "http://www.aladin.co.kr/ttb/api"
    /// The response shape this provider reads; without it Aladin answers in its 2007 shape.
    public static let apiVersion = "20131101"
    /// Aladin serves at most 50 results per page…
    public static let maxLimit = 50
    /// …and only the first 200 results of any search or list.
    public static let reachableResults = 200

    public let descriptor: ProviderDescriptor
    public let baseURL: URL
    private let apiKey: String?
    private let client: ProviderClient

    /// A provider calling `baseURL` (which may carry a path, like `/ttb/api`) with `apiKey`; a nil or empty
    /// key leaves it unconfigured (every call throws `.missingKey`).
    public init(baseURL: URL, apiKey: String?, transport: any HTTPTransport) {
        let key = apiKey?.trimmed()
        let cleanedKey = (key?.isEmpty ?? true) ? nil : key
        self.baseURL = baseURL
        self.apiKey = cleanedKey
        self.descriptor = ProviderDescriptor(
            id: Self.id, name: "Aladin", kinds: [.book],
            capabilities: [.search, .detail, .image, .trending],
            paging: .page, needsKey: true, shortcuts: ["al"])
        self.client = ProviderClient(
            provider: Self.id, transport: transport, secrets: cleanedKey.map { [$0] } ?? [], timeout: .seconds(30))
    }

    /// Builds the provider from settings: `SEEK_ALADIN_URL` and `SEEK_ALADIN_TTB_KEY`
    /// (or `providers.aladin.url|ttbKey` in the config file). `providers.aladin.timeout|weight` are the
    /// engine's, read once for every provider (`ProviderTuning`), never here.
    public init(environment: ProviderEnvironment) throws {
        let settings = environment.settings
        self.init(
            baseURL: try settings.baseURL(Self.urlVariable, provider: Self.id, default: Self.defaultBaseURL),
            apiKey: settings.string(Self.keyVariable, provider: Self.id, key: "ttbKey"),
            transport: environment.transport)
    }

    /// How the composition root builds this provider, and its policy: Aladin states no rate (its daily
    /// quota is reported in the body), so it gets a polite pace; its demo is AladinDemo.swift.
    public static let factory = ProviderFactory(
        id: id, defaultRateLimit: RateLimit(requests: 2, per: .seconds(1), burst: 10), demo: demo
    ) { try AladinProvider(environment: $0) }

    public var isConfigured: Bool { apiKey != nil }

    public var endpoint: String { baseURL.absoluteString }

    public var secrets: [String] { client.secrets }

    public var requirements: [ProviderRequirement] {
        [ProviderRequirement(variable: Self.keyVariable, purpose: "TTB key", isSet: apiKey != nil)]
    }

    // MARK: - Calls

    /// Searches books by keyword. Aladin pages by page number: the cursor, when set, is the next page number.
    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let key = try requireKey()
        let query = request.query.trimmed()
        guard !query.isEmpty else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "the search text is empty")
        }
        let page = try Self.page(of: request)
        let limit = min(request.limit, Self.maxLimit)
        // Past the first 200 results Aladin serves nothing: an empty page, without a call.
        guard let offset = SearchRequest.checkedOffset(page: page, limit: limit), offset < Self.reachableResults else {
            return SearchPage(items: [], total: nil, next: nil)
        }
        let envelope = try await call(key, endpoint: "ItemSearch.aspx", query: [
            ("Query", query),
            ("QueryType", "Keyword"),
            ("MaxResults", String(limit)),
            ("start", String(page)),
            ("SearchTarget", "Book"),
        ])
        return Self.searchPage(envelope, page: page, limit: limit)
    }

    /// This week's bestsellers (books).
    public func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        let key = try requireKey()
        let limit = min(max(1, limit), Self.maxLimit)
        let envelope = try await call(key, endpoint: "ItemList.aspx", query: [
            ("QueryType", "Bestseller"),
            ("MaxResults", String(limit)),
            ("start", "1"),
            ("SearchTarget", "Book"),
        ])
        return Self.searchPage(envelope, page: 1, limit: limit)
    }

    /// Looks one book up by ISBN-13, ISBN-10 or Aladin itemId, chosen by the id's shape.
    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        let key = try requireKey()
        guard id.provider == Self.id else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "\(id) is not an Aladin id")
        }
        guard let (type, value) = Self.lookupKey(id.value) else {
            throw SeekError(
                .invalidInput, provider: Self.id,
                detail: "an Aladin id is an ISBN-13, an ISBN-10 or a numeric itemId (got \(id.value))")
        }
        let envelope = try await call(key, endpoint: "ItemLookUp.aspx", query: [
            ("ItemIdType", type),
            ("ItemId", value),
            ("OptResult", "ebookList,usedList,ratingInfo"),
        ])
        guard let object = envelope.firstItem else {
            throw SeekError(.notFound, provider: Self.id, detail: "no item for \(type) \(value)")
        }
        guard let detail = AladinMapping.detail(object) else {
            throw SeekError(.undecodable, provider: Self.id, detail: "the item for \(type) \(value) has no itemId or ISBN")
        }
        return detail
    }

    /// Whether `item` is the record of `requested` as Aladin looks books up: a 13-digit id by ISBN-13,
    /// an ISBN-10 by the ISBN-13 it converts to (Aladin keys items by ISBN-13), other digits by itemId;
    /// hyphens and spaces do not count.
    public func isRecord(_ item: Item, of requested: ItemID) -> Bool {
        guard item.id.provider == requested.provider, let (type, value) = Self.lookupKey(requested.value) else {
            return item.id == requested
        }
        let identifiers = item.identifiers
        switch type {
        case "ISBN13":
            return item.id.value == value || identifiers.isbn13.contains(value)
        case "ISBN":
            return identifiers.isbn10.contains(value)
                || ISBN.isbn13(from: value).map { item.id.value == $0 || identifiers.isbn13.contains($0) } == true
        default:
            return item.id.value == value || identifiers.other["aladinItemId"] == value
        }
    }

    // MARK: - Plumbing

    private func requireKey() throws -> String {
        guard let apiKey else {
            throw SeekError(
                .missingKey(variable: Self.keyVariable), provider: Self.id,
                detail: "export \(Self.keyVariable)=… or set providers.aladin.ttbKey in the config file")
        }
        return apiKey
    }

    /// GETs `endpoint` under the base path with the key, the common parameters and `query`, and returns the
    /// JSON envelope once it is known not to be an error (Aladin reports errors in a 200 body).
    private func call(_ key: String, endpoint: String, query: [(String, String?)]) async throws -> AladinEnvelope {
        let url = baseURL.appending(path: endpoint, query: [("ttbkey", key)] + query + [
            ("output", "js"),
            ("Version", Self.apiVersion),
            ("Cover", "Big"),
        ])
        let response = try await client.fetch(url)
        // A rate limit or a server failure is what the status says, whatever error object comes with
        // it: the status carries the Retry-After that the cool-down needs.
        if response.status == 429 || response.status >= 500 { try client.check(response, url: url) }
        let read = try? JSONReader.read(AladinJSON.normalize(response.body)) { reader throws(JSONParseError) in
            try AladinEnvelope(reading: &reader)
        }
        if let read, let failure = AladinError(read) {
            throw client.scrub(failure.seekError(url: url))
        }
        try client.check(response, url: url)
        guard let parsed = read else {
            throw client.scrub(SeekError(
                .undecodable, provider: Self.id, detail: client.body("malformed JSON", response)))
        }
        guard parsed.items != nil else {
            throw client.scrub(SeekError(
                .undecodable, provider: Self.id, detail: client.body("no `item` list in the response", response)))
        }
        return parsed
    }

    /// The page a request asks for: its cursor (the page number a previous `next` gave), else its page.
    /// A cursor past `SearchRequest.maxPage` is not one Aladin gave (it stops at page 200).
    static func page(of request: SearchRequest) throws -> Int {
        guard let cursor = request.cursor else { return request.page }
        guard let page = Int(cursor), (1...SearchRequest.maxPage).contains(page) else {
            let shown = cursor.count > 40 ? String(cursor.prefix(40)) + "…" : cursor
            throw SeekError(.invalidInput, provider: id, detail: "not an Aladin page cursor: \(shown)")
        }
        return page
    }

    /// Items, total and the next page number, which exists while a full page came back and
    /// `page × limit` is below both `totalResults` and the 200 reachable results.
    static func searchPage(_ envelope: AladinEnvelope, page: Int, limit: Int) -> SearchPage {
        // A server that sends more than MaxResults asked for does not get to overfill the page.
        let objects = (envelope.items ?? []).prefix(limit)
        let items = objects.compactMap(AladinMapping.item)
        let total = envelope.totalResults?.intValue
        let reachable = min(total ?? reachableResults, reachableResults)
        let more = objects.count >= limit && page * limit < reachable
        return SearchPage(items: items, total: total, next: more ? String(page + 1) : nil)
    }

    /// `ItemIdType` and `ItemId` for an id value: 13 digits → ISBN13, a valid ISBN-10 → ISBN,
    /// other digits → ItemId; nil for anything else.
    static func lookupKey(_ value: String) -> (String, String)? {
        let cleaned = ISBN.clean(value)
        guard !cleaned.isEmpty, cleaned.count <= 20 else { return nil }
        let allDigits = cleaned.allSatisfy { $0.isASCII && $0.isNumber }
        if cleaned.count == 13, allDigits { return ("ISBN13", cleaned) }
        if ISBN.isValid10(cleaned) { return ("ISBN", cleaned) }
        if allDigits { return ("ItemId", cleaned) }
        return nil
    }
}
