import Foundation
import SeekCore
import SeekKit

/// Book search and detail from the Crossref REST API (`/works`, `/works/{DOI}`): book-level records by DOI.
///
/// No key is needed. `SEEK_CROSSREF_MAILTO` (or `providers.crossref.mailto`), when set, is sent as `mailto`
/// and puts Seek in Crossref's polite pool (higher limits); it is treated like a key: never printed.
/// Crossref has no covers, so items carry no images.
public struct CrossrefProvider: SearchProvider {
    /// The provider id used in item ids (`crossref:<DOI, lower case>`) and `--providers`.
    public static let id = "crossref"
    public static let mailtoVariable = "SEEK_CROSSREF_MAILTO"
    public static let urlVariable = "SEEK_CROSSREF_URL"
    public static let defaultBaseURL = "https://api.crossref.org"
    /// Rows a page asks for at most (Crossref allows 1,000; a page of a fan-out needs far fewer).
    public static let maxLimit = 100
    /// `offset` past 10,000 is refused: deeper pages need a cursor, which a fan-out never goes that deep for.
    public static let offsetCeiling = 10_000
    /// The whole-book types the search asks for (the same filter name given several times is ORed).
    /// Parts (`book-chapter`, `reference-entry`…) are left out: they carry their book's ISBN.
    public static let bookTypes = ["book", "monograph", "edited-book", "reference-book"]

    public let descriptor: ProviderDescriptor
    public let baseURL: URL
    private let mailto: String?
    private let client: ProviderClient
    /// The pace Crossref announces in its answers' headers, kept to by every call of this provider.
    let pace: CrossrefPace

    public static let concurrencyVariable = "SEEK_CROSSREF_CONCURRENCY"
    static let rateLimitVariable = "SEEK_CROSSREF_RATE_LIMIT"

    /// A provider calling `baseURL`, in the polite pool when `mailto` is an address. It keeps to the rate
    /// and concurrency Crossref announces unless `followsAnnouncedRate` is false; `concurrency` (a number,
    /// or `.some(nil)` for none) overrides the announced concurrency.
    public init(
        baseURL: URL, mailto: String? = nil, transport: any HTTPTransport,
        followsAnnouncedRate: Bool = true, concurrency: Int?? = nil
    ) {
        let address = mailto?.trimmed()
        let cleaned = (address?.isEmpty ?? true) ? nil : address
        self.baseURL = baseURL
        self.mailto = cleaned
        self.pace = CrossrefPace(followsAnnouncedRate: followsAnnouncedRate, concurrency: concurrency)
        self.descriptor = ProviderDescriptor(
            id: Self.id, name: "Crossref", kinds: [.book], capabilities: [.search, .detail],
            paging: .offset, needsKey: false, shortcuts: ["cr"])
        self.client = ProviderClient(
            provider: Self.id, transport: transport, secrets: cleaned.map { [$0] } ?? [], timeout: .seconds(30))
    }

    /// Builds the provider from settings: `SEEK_CROSSREF_URL`, `SEEK_CROSSREF_MAILTO` and
    /// `SEEK_CROSSREF_CONCURRENCY` (a number or `off`), or `providers.crossref.url|mailto|concurrency` in the
    /// config file (`providers.crossref.timeout|weight` are the engine's: `ProviderTuning`). As with the default rate limit, a stand-in on a loopback host is not held to the
    /// limits its answers announce unless `SEEK_CROSSREF_RATE_LIMIT` is set; set to `off`, nothing is.
    public init(environment: ProviderEnvironment) throws {
        let settings = environment.settings
        let baseURL = try settings.baseURL(Self.urlVariable, provider: Self.id, default: Self.defaultBaseURL)
        let concurrency: Int??
        if let text = settings.string(Self.concurrencyVariable, provider: Self.id, key: "concurrency")?.trimmed().lowercased() {
            if text == "off" {
                concurrency = .some(nil)
            } else if let number = Int(text), (1...1000).contains(number) {
                concurrency = .some(number)
            } else {
                throw SeekError(
                    .configuration, provider: Self.id,
                    detail: "\(Self.concurrencyVariable) must be a number of calls at once (1 to 1000) or off (got \(text.prefix(40)))")
            }
        } else {
            concurrency = nil
        }
        let rate = settings.string(Self.rateLimitVariable) ?? settings.file["providers"]?[Self.id]?["rateLimit"]?.stringValue
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(baseURL.host?.lowercased() ?? "")
        let follows = rate.map { RateLimit.parse($0) != .some(nil) } ?? !loopback
        self.init(
            baseURL: baseURL, mailto: settings.string(Self.mailtoVariable, provider: Self.id, key: "mailto"),
            transport: environment.transport, followsAnnouncedRate: follows, concurrency: concurrency)
    }

    /// How the composition root builds this provider, and its policy: the public pool's announced limit,
    /// 5 requests a second (`x-rate-limit-limit: 5`, `x-rate-limit-interval: 1s`, recorded 2026-06-16),
    /// which the polite pool's 10 a second also covers; the limits each answer announces are kept to on
    /// top (`CrossrefPace`). Its demo is CrossrefDemo.swift.
    public static let factory = ProviderFactory(
        id: id, defaultRateLimit: RateLimit(requests: 5, per: .seconds(1), burst: 5), demo: demo
    ) { try CrossrefProvider(environment: $0) }

    public var endpoint: String { baseURL.absoluteString }

    public var secrets: [String] { client.secrets }

    public var requirements: [ProviderRequirement] {
        [ProviderRequirement(
            variable: Self.mailtoVariable, purpose: "contact e-mail, for Crossref's polite pool and its higher limits",
            required: false, isSet: mailto != nil)]
    }

    // MARK: - Calls

    /// Searches whole books. Crossref pages by offset; the cursor is the next offset.
    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let query = request.query.trimmed()
        guard !query.isEmpty else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "the search text is empty")
        }
        let limit = min(request.limit, Self.maxLimit)
        let offset = request.offset
        guard offset < Self.offsetCeiling else { return SearchPage(items: [], total: nil, next: nil) }
        let url = baseURL.appending(path: "/works", query: [
            ("query", query),
            ("rows", String(limit)),
            ("offset", String(offset)),
            ("filter", Self.bookTypes.map { "type:" + $0 }.joined(separator: ",")),
            ("mailto", mailto),
        ])
        let (body, response) = try await call(url)
        guard let message = body["message"], let works = message["items"]?.arrayValue else {
            throw undecodable("expected a `work-list` message with `items`", response)
        }
        // A server that sends more rows than asked for does not get to overfill the page.
        let received = works.prefix(limit)
        let items = received.compactMap(CrossrefMapping.item)
        let total = message["total-results"]?.intValue
        let next = SearchPage.nextOffset(after: request, received: received.count, total: total, ceiling: Self.offsetCeiling)
        return SearchPage(items: items, total: total, next: received.count >= limit ? next : nil)
    }

    /// One work by its DOI (the id's value). DOIs are case-insensitive: the id is the DOI in lower case.
    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        guard id.provider == Self.id else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "\(id) is not a Crossref id")
        }
        guard let doi = CrossrefMapping.doi(id.value) else {
            throw SeekError(
                .invalidInput, provider: Self.id,
                detail: "a Crossref id is a DOI, `10.` then a prefix, `/` and a suffix (got \(id.value.prefix(80)))")
        }
        // The DOI goes in the path as is, its `/` kept; what could end the path (`?`, `#`, `%`, spaces) is encoded.
        let path = "/works/" + doi.split(separator: "/", omittingEmptySubsequences: false).map { URL.encodeSegment(String($0)) }.joined(separator: "/")
        let url = baseURL.appending(path: path, query: [("mailto", mailto)])
        let (body, response) = try await call(url)
        guard let work = body["message"], work.objectValue != nil, let detail = CrossrefMapping.detail(work) else {
            throw undecodable("expected a `work` message with a DOI", response)
        }
        return detail
    }

    /// Whether `item` is the record of `requested`: DOIs compare without regard to case.
    public func isRecord(_ item: Item, of requested: ItemID) -> Bool {
        item.id.provider == requested.provider && item.id.value.lowercased() == requested.value.lowercased()
    }

    // MARK: - Plumbing

    /// GETs `url` at Crossref's announced pace and returns its JSON once it is known not to be an error.
    private func call(_ url: URL) async throws -> (JSONValue, HTTPResponse) {
        try await pace.wait()
        defer { pace.finished() }
        let response = try await client.fetch(url, headers: [("Accept", "application/json"), ("Accept-Encoding", "gzip")])
        pace.learn(from: response)
        guard (200..<300).contains(response.status) else {
            throw client.scrub(CrossrefError(response: response).seekError(url: url, announcedInterval: pace.interval))
        }
        let body = try client.decodeJSON(from: response)
        // A failure can also say so in a 200 body's `status`.
        if let status = body["status"]?.stringValue, status != "ok" {
            throw client.scrub(CrossrefError(response: response, body: body).seekError(url: url, announcedInterval: pace.interval))
        }
        return (body, response)
    }

    private func undecodable(_ message: String, _ response: HTTPResponse) -> SeekError {
        client.scrub(SeekError(.undecodable, provider: Self.id, detail: client.body(message, response)))
    }
}
