import Foundation

/// Static facts about a provider: who it is, what it returns and offers, and how to weigh it.
public struct ProviderDescriptor: Sendable, Hashable {
    /// Stable lowercase id used in item ids and `--providers` (`openlibrary`).
    public var id: String
    public var name: String
    public var kinds: [ItemKind]
    public var capabilities: Set<ProviderCapability>
    public var paging: PagingStyle
    public var needsKey: Bool
    public var defaultTimeout: Duration
    /// Ranking weight; 1 is neutral.
    public var weight: Double
    /// Extra bang shortcuts (`ol` for `!ol harbor`); the id always works as a bang too.
    public var shortcuts: [String]

    public init(
        id: String, name: String, kinds: [ItemKind], capabilities: Set<ProviderCapability>,
        paging: PagingStyle, needsKey: Bool = false, defaultTimeout: Duration = .seconds(10),
        weight: Double = 1, shortcuts: [String] = []
    ) {
        self.id = id
        self.name = name
        self.kinds = kinds
        self.capabilities = capabilities
        self.paging = paging
        self.needsKey = needsKey
        self.defaultTimeout = defaultTimeout
        self.weight = weight
        self.shortcuts = shortcuts
    }
}

/// A setting a provider reads that its user may have to give (an API key, a contact address, a
/// folder): the variable that holds it, what it is, whether the provider works without it, and
/// whether it is set. Never the value.
public struct ProviderRequirement: Sendable, Hashable {
    /// The environment variable (`SEEK_GOOGLEBOOKS_API_KEY`); the config file's key says the same.
    public var variable: String
    /// What it is, in a few words: "API key", "contact e-mail for the polite pool".
    public var purpose: String
    /// Whether the provider is `skipped` without it.
    public var required: Bool
    public var isSet: Bool

    public init(variable: String, purpose: String, required: Bool = true, isSet: Bool) {
        self.variable = variable
        self.purpose = purpose
        self.required = required
        self.isSet = isSet
    }
}

/// The one role every source plays: search, detail and image URLs, optionally trending and suggest.
///
/// Every call carries the caller's `CallOptions` (a content rating, say): a provider reads what
/// concerns it and ignores the rest. Middleware (cache, resilience) wraps calls, never providers.
/// A fan-out starts each call on the engine's thread and runs it there until the call first waits:
/// do nothing slow before the first `await` (`SearchEngine.collect`).
public protocol SearchProvider: Sendable {
    var descriptor: ProviderDescriptor { get }
    /// False when a required key is missing: the provider is then `skipped`, not called.
    var isConfigured: Bool { get }
    /// The base URL it calls, for `seek providers`; never includes a key.
    var endpoint: String { get }
    /// The keys it sends upstream, so that hosts redact them from everything printed, whoever
    /// echoes them. Defaults to none.
    var secrets: [String] { get }
    /// The settings it needs or may use (keys, a contact address), each saying whether it is set, so
    /// that `seek providers` says which variable is missing. Defaults to none.
    var requirements: [ProviderRequirement] { get }
    /// What, besides the request, shapes its answers under `options` (endpoint and filters such as
    /// a content rating), so cached answers are kept apart; never includes a key. Defaults to `endpoint`.
    func answerScope(_ options: CallOptions) -> String

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage
    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail
    /// The URL of `item`'s image at `size`, or nil when it has none.
    func imageURL(for item: Item, size: ImageSize) -> URL?
    func trending(limit: Int, options: CallOptions) async throws -> SearchPage
    func suggest(_ prefix: String, limit: Int, options: CallOptions) async throws -> [String]
    /// Whether `item` is the record of `requested` as this provider means its ids: a provider that
    /// normalises ids (case, an ISBN-10 answered under its ISBN-13) says here which ones are the same.
    /// Defaults to the same provider and the same value.
    func isRecord(_ item: Item, of requested: ItemID) -> Bool
}

extension SearchProvider {
    public var isConfigured: Bool { true }

    public var secrets: [String] { [] }

    public var requirements: [ProviderRequirement] { [] }

    /// The required settings that are not set: what keeps the provider `skipped`.
    public var missingRequirements: [ProviderRequirement] { requirements.filter { $0.required && !$0.isSet } }

    public func answerScope(_ options: CallOptions) -> String { endpoint }

    public func isRecord(_ item: Item, of requested: ItemID) -> Bool { item.id == requested }

    public func imageURL(for item: Item, size: ImageSize) -> URL? {
        item.image(size)?.url
    }

    public func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        throw SeekError(.unsupported(capability: "trending"), provider: descriptor.id)
    }

    public func suggest(_ prefix: String, limit: Int, options: CallOptions) async throws -> [String] {
        throw SeekError(.unsupported(capability: "suggest"), provider: descriptor.id)
    }
}

/// Calls with the default options, for code that calls a provider directly (tests, embedding).
extension SearchProvider {
    public func search(_ request: SearchRequest) async throws -> SearchPage {
        try await search(request, options: CallOptions())
    }

    public func detail(_ id: ItemID) async throws -> ItemDetail {
        try await detail(id, options: CallOptions())
    }

    public func trending(limit: Int) async throws -> SearchPage {
        try await trending(limit: limit, options: CallOptions())
    }

    public func suggest(_ prefix: String, limit: Int) async throws -> [String] {
        try await suggest(prefix, limit: limit, options: CallOptions())
    }

    /// The answer scope under the default options.
    public var answerScope: String { answerScope(CallOptions()) }
}

extension ItemDetail {
    /// Throws unless this is the record of `requested` as `provider` means its ids, or of the id the
    /// provider says `requested` was redirected to: an upstream that answers with another record
    /// must not have it shown under the id asked for. The error is `.undecodable`, naming both ids.
    public func verify(answers requested: ItemID, from provider: any SearchProvider) throws {
        var expected = requested
        if let redirect, redirect.from == requested { expected = redirect.to }
        guard provider.isRecord(item, of: expected) else {
            let asked = expected == requested ? "\(requested)" : "\(requested) (redirected to \(expected))"
            throw SeekError(
                .undecodable, provider: provider.descriptor.id,
                detail: "asked for \(asked) but the answer is the record of \(item.id)")
        }
    }
}
