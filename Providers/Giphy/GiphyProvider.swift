import Foundation
import SeekKit
import SeekCore

/// GIF search, trending, autocomplete and detail from the GIPHY API (`api.giphy.com/v1/gifs/…`).
///
/// Every call needs an API key (`SEEK_GIPHY_API_KEY` or `providers.giphy.apiKey`); the key travels as the
/// `api_key` query parameter and is scrubbed from every error this provider throws.
public struct GiphyProvider: SearchProvider {
    /// The provider id used in item ids (`giphy:<gif id>`) and `--providers`.
    public static let id = "giphy"
    /// The environment variable that holds the API key.
    public static let keyVariable = "SEEK_GIPHY_API_KEY"
    public static let urlVariable = "SEEK_GIPHY_URL"
    public static let ratingVariable = "SEEK_GIPHY_RATING"
    public static let defaultBaseURL = "https://api.giphy.com"
    /// Beta keys accept at most 50 results per call; larger limits are clamped.
    public static let maxLimit = 50
    /// GIPHY answers a `q` longer than 50 characters with HTTP 414.
    public static let maxQueryLength = 50
    /// Search accepts offsets up to 4999, so paging stops at 5000 whatever `total_count` says.
    public static let searchOffsetCeiling = 5000
    /// Trending accepts offsets up to 499.
    public static let trendingOffsetCeiling = 500
    /// The content ratings GIPHY's `rating` parameter accepts.
    public static let ratings: Set<String> = ["g", "pg", "pg-13", "r"]
    /// `ratings` as messages list them: `g, pg, pg-13, r`.
    static let ratingList = ratings.sorted().joined(separator: ", ")

    public let descriptor: ProviderDescriptor
    public let baseURL: URL
    /// The content rating sent with every search, trending and detail call; nil sends none.
    public let rating: String?
    private let apiKey: String?
    private let client: ProviderClient

    /// A provider calling `baseURL` with `apiKey`; a nil or empty key leaves it unconfigured (every call throws `.missingKey`).
    public init(baseURL: URL, apiKey: String?, transport: any HTTPTransport, rating: String? = nil) {
        let key = apiKey?.trimmed()
        let cleanedKey = (key?.isEmpty ?? true) ? nil : key
        let cleanedRating = rating?.trimmed().lowercased()
        self.baseURL = baseURL
        self.apiKey = cleanedKey
        self.rating = (cleanedRating?.isEmpty ?? true) ? nil : cleanedRating
        self.descriptor = ProviderDescriptor(
            id: Self.id, name: "GIPHY", kinds: [.gif],
            capabilities: [.search, .detail, .image, .trending, .suggest],
            paging: .offset, needsKey: true, shortcuts: ["gif"])
        self.client = ProviderClient(
            provider: Self.id, transport: transport, secrets: cleanedKey.map { [$0] } ?? [], timeout: .seconds(30))
    }

    /// Builds the provider from settings: `SEEK_GIPHY_URL`, `SEEK_GIPHY_API_KEY`, `SEEK_GIPHY_RATING`
    /// (or `providers.giphy.url|apiKey|rating` in the config file). `providers.giphy.timeout|weight` are the
    /// engine's, read once for every provider (`ProviderTuning`), never here.
    public init(environment: ProviderEnvironment) throws {
        let settings = environment.settings
        let baseURL = try settings.baseURL(Self.urlVariable, provider: Self.id, default: Self.defaultBaseURL)
        let rating = settings.string(Self.ratingVariable, provider: Self.id, key: "rating")?.lowercased()
        if let rating, !Self.ratings.contains(rating) {
            throw SeekError(
                .configuration, provider: Self.id,
                detail: "\(Self.ratingVariable) must be one of \(Self.ratingList) (got \(rating))")
        }
        self.init(
            baseURL: baseURL, apiKey: settings.string(Self.keyVariable, provider: Self.id, key: "apiKey"),
            transport: environment.transport, rating: rating)
    }

    /// How the composition root builds this provider, and its policy: a beta key has 100 calls an hour;
    /// `rating` filters by GIPHY's ratings; its demo is GiphyDemo.swift.
    public static let factory = ProviderFactory(
        id: id, defaultRateLimit: RateLimit(requests: 100, per: .seconds(3600), burst: 100), contentRatings: ratings, demo: demo
    ) { try GiphyProvider(environment: $0) }

    public var isConfigured: Bool { apiKey != nil }

    public var endpoint: String { baseURL.absoluteString }

    public var secrets: [String] { client.secrets }

    public var requirements: [ProviderRequirement] {
        [ProviderRequirement(variable: Self.keyVariable, purpose: "API key", isSet: apiKey != nil)]
    }

    /// Answers differ by content rating, so cached ones are kept apart by it.
    public func answerScope(_ options: CallOptions) -> String {
        let chosen = try? rating(for: options)
        return chosen.map { "\(endpoint) rating=\($0)" } ?? endpoint
    }

    /// The rating a call sends: the call's own, else the configured one; one GIPHY does not know is invalid input.
    func rating(for options: CallOptions) throws -> String? {
        guard let asked = options.rating?.trimmed().lowercased(), !asked.isEmpty else { return rating }
        guard Self.ratings.contains(asked) else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "the rating must be one of \(Self.ratingList) (got \(asked))")
        }
        return asked
    }

    // MARK: - Calls

    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let key = try requireKey()
        let query = request.query.trimmed()
        guard !query.isEmpty else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "the search text is empty")
        }
        guard query.count <= Self.maxQueryLength else {
            throw SeekError(
                .invalidInput, provider: Self.id,
                detail: "GIPHY accepts search text of at most \(Self.maxQueryLength) characters (got \(query.count))")
        }
        let offset = request.offset
        // Beyond GIPHY's offset cap there is nothing it will serve: an empty page, without a call.
        guard offset < Self.searchOffsetCeiling else { return SearchPage(items: [], total: nil, next: nil) }
        let envelope = try await call(key, path: "/v1/gifs/search", query: [
            ("q", query),
            ("limit", String(min(request.limit, Self.maxLimit))),
            ("offset", String(offset)),
            ("rating", try rating(for: options)),
            ("lang", Self.language(request.language)),
        ])
        return page(from: envelope, request: request, ceiling: Self.searchOffsetCeiling)
    }

    public func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        let key = try requireKey()
        let request = SearchRequest(query: "", limit: min(max(1, limit), Self.maxLimit))
        let envelope = try await call(key, path: "/v1/gifs/trending", query: [
            ("limit", String(request.limit)),
            ("offset", "0"),
            ("rating", try rating(for: options)),
        ])
        return page(from: envelope, request: request, ceiling: Self.trendingOffsetCeiling)
    }

    public func suggest(_ prefix: String, limit: Int, options: CallOptions) async throws -> [String] {
        let key = try requireKey()
        let term = prefix.trimmed()
        guard !term.isEmpty else { return [] }
        guard term.count <= Self.maxQueryLength else {
            throw SeekError(
                .invalidInput, provider: Self.id,
                detail: "GIPHY accepts a prefix of at most \(Self.maxQueryLength) characters (got \(term.count))")
        }
        let envelope = try await call(key, path: "/v1/gifs/search/tags", query: [
            ("q", term),
            ("limit", String(min(max(1, limit), Self.maxLimit))),
        ], reading: GiphyTag.self)
        var names: [String] = []
        for entry in envelope.entries {
            guard let name = entry.name?.stringValue?.trimmed(), !name.isEmpty,
                  !names.contains(name)
            else { continue }
            names.append(name)
        }
        return names
    }

    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        let key = try requireKey()
        guard id.provider == Self.id else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "\(id) is not a GIPHY id")
        }
        guard Self.isValidGIFID(id.value) else {
            throw SeekError(
                .invalidInput, provider: Self.id,
                detail: "a GIPHY id holds only letters, digits, '-' and '_' (got \(id.value))")
        }
        let envelope = try await call(key, path: "/v1/gifs/" + URL.encodeSegment(id.value), query: [("rating", try rating(for: options))])
        // `data` is one object on success; an array is an error-style body (`[]` when the GIF is gone).
        guard let object = envelope.entries.first else {
            throw SeekError(.notFound, provider: Self.id, detail: "no GIF with id \(id.value)")
        }
        guard let detail = GiphyMapping.detail(object, fallbackID: id.value) else {
            throw SeekError(.undecodable, provider: Self.id, detail: "the GIF object for \(id.value) has no id")
        }
        return detail
    }

    // MARK: - Plumbing

    private func requireKey() throws -> String {
        guard let apiKey else {
            throw SeekError(
                .missingKey(variable: Self.keyVariable), provider: Self.id,
                detail: "export \(Self.keyVariable)=… or set providers.giphy.apiKey in the config file")
        }
        return apiKey
    }

    /// GETs `path` with the key and `query`, and returns the body's envelope, `data` read as `Entry`s,
    /// once it is known not to be an error.
    private func call<Entry: GiphyEntry>(
        _ key: String, path: String, query: [(String, String?)], reading entry: Entry.Type = GiphyGIF.self
    ) async throws -> GiphyEnvelope<Entry> {
        let url = baseURL.appending(path: path, query: [("api_key", key)] + query)
        let response = try await client.fetch(url)
        guard (200..<300).contains(response.status) else {
            let envelope = try? JSONReader.read(response.body) { reader throws(JSONParseError) in
                try GiphyEnvelope<GiphyTag>(reading: &reader)
            }
            throw failure(status: response.status, message: envelope?.message, response: response, url: url)
        }
        let read = try client.readJSON(from: response) { reader throws(JSONParseError) in try GiphyEnvelope<Entry>(reading: &reader) }
        guard let envelope = read else {
            throw client.scrub(SeekError(
                .undecodable, provider: Self.id, detail: client.body("expected a JSON object", response)))
        }
        // An error can also arrive as HTTP 200 with `meta.status` saying what went wrong.
        if let status = envelope.metaStatus, status >= 400 {
            throw failure(status: status, message: envelope.message, response: response, url: url)
        }
        guard envelope.data != .none else {
            throw client.scrub(SeekError(
                .undecodable, provider: Self.id, detail: client.body("no `data` in the response", response)))
        }
        if envelope.isSynthetic {
            throw SeekError(
                .network, provider: Self.id,
                detail: "GIPHY sent its synthetic empty response (its backend failed); try again later "
                    + "(\(Redaction.redact(url: url)))")
        }
        return envelope
    }

    /// The typed error for an error `status`, carrying the API's own message (or a body snippet).
    private func failure(status: Int, message: String?, response: HTTPResponse, url: URL) -> SeekError {
        let kind: SeekError.Kind
        switch status {
        case 401, 403: kind = .unauthorized
        case 404, 410: kind = .notFound
        case 429: kind = .rateLimited(retryAfterSeconds: response.retryAfter())
        case 414: kind = .invalidInput
        default: kind = .httpStatus(status)
        }
        let snippet = response.snippet(redacting: client.secrets)
        let said = message ?? (snippet.isEmpty ? "HTTP \(status)" : snippet)
        return client.scrub(
            SeekError(kind, provider: Self.id, detail: "\(said) (\(Redaction.redact(url: url)))", retryAfter: response.retryAfterDate()))
    }

    private func page(from envelope: GiphyEnvelope<GiphyGIF>, request: SearchRequest, ceiling: Int) -> SearchPage {
        // A server that sends more than `limit` asked for does not get to overfill the page.
        let objects = envelope.entries.prefix(max(request.limit, 1))
        let items = objects.compactMap(GiphyMapping.listItem)
        let next = SearchPage.nextOffset(
            after: request, received: objects.count, total: envelope.totalCount, ceiling: ceiling)
        return SearchPage(items: items, total: envelope.totalCount, next: next)
    }

    /// A two-letter language code for `lang`, or nil.
    private static func language(_ code: String?) -> String? {
        guard let code = code?.trimmed().lowercased(), code.count == 2,
              code.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return nil }
        return code
    }

    static func isValidGIFID(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 64
            && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
