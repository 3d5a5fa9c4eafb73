/// What one call may vary, carried with that call from the host through the engine, the middleware
/// and into the provider, so that calls with different options can run at once in one session.
public struct CallOptions: Sendable, Hashable {
    /// A content rating for providers that filter by one (GIPHY's `g`, `pg`, `pg-13`, `r`); nil
    /// keeps each provider's configured default.
    public var rating: String?
    /// Ask the providers even when a cached answer is fresh (fresh answers are still stored).
    public var noCache: Bool
    /// How long each provider may take; nil keeps each provider's own deadline.
    public var timeout: Duration?

    public init(rating: String? = nil, noCache: Bool = false, timeout: Duration? = nil) {
        self.rating = rating
        self.noCache = noCache
        self.timeout = timeout
    }
}

/// One call to a provider, as middleware sees it.
public enum ProviderRequest: Sendable, Hashable {
    case search(SearchRequest)
    case detail(ItemID)
    case trending(limit: Int)
    case suggest(prefix: String, limit: Int)

    /// The capability the call needs.
    public var capability: ProviderCapability {
        switch self {
        case .search: .search
        case .detail: .detail
        case .trending: .trending
        case .suggest: .suggest
        }
    }
}

/// A provider's answer to a `ProviderRequest`.
public enum ProviderResponse: Sendable {
    case page(SearchPage)
    case detail(ItemDetail)
    case suggestions([String])

    /// How many results the answer holds (a detail counts as one).
    public var count: Int {
        switch self {
        case .page(let page): page.items.count
        case .detail: 1
        case .suggestions(let suggestions): suggestions.count
        }
    }
}

/// What middleware knows about the call it handles: the provider called and the call's options.
public struct ProviderCallContext: Sendable {
    public let provider: any SearchProvider
    public var options: CallOptions

    public init(provider: any SearchProvider, options: CallOptions) {
        self.provider = provider
        self.options = options
    }

    public var providerID: String { provider.descriptor.id }
}

/// Behaviour around a provider call (cache, resilience, …), in the shape of Hummingbird's
/// `MiddlewareProtocol`: handle the request, calling `next` to pass it on (or not).
public protocol ProviderMiddleware: Sendable {
    func handle(
        _ request: ProviderRequest, context: ProviderCallContext,
        next: @escaping @Sendable (ProviderRequest, ProviderCallContext) async throws -> ProviderResponse
    ) async throws -> ProviderResponse
}

/// The middleware every provider call goes through, outermost first, ending at the provider itself.
public struct ProviderPipeline: Sendable {
    public let middlewares: [any ProviderMiddleware]

    public init(_ middlewares: [any ProviderMiddleware] = []) {
        self.middlewares = middlewares
    }

    /// Sends `request` to `provider` through every middleware.
    public func call(
        _ request: ProviderRequest, on provider: any SearchProvider, options: CallOptions
    ) async throws -> ProviderResponse {
        try await run(0, request, ProviderCallContext(provider: provider, options: options))
    }

    private func run(_ index: Int, _ request: ProviderRequest, _ context: ProviderCallContext) async throws -> ProviderResponse {
        guard index < middlewares.count else {
            return try await context.provider.respond(to: request, options: context.options)
        }
        return try await middlewares[index].handle(request, context: context) { request, context in
            try await run(index + 1, request, context)
        }
    }

    public func search(_ request: SearchRequest, on provider: any SearchProvider, options: CallOptions) async throws -> SearchPage {
        try await call(.search(request), on: provider, options: options).page(from: provider)
    }

    public func detail(_ id: ItemID, on provider: any SearchProvider, options: CallOptions) async throws -> ItemDetail {
        let response = try await call(.detail(id), on: provider, options: options)
        guard case .detail(let detail) = response else { throw Self.mismatch(provider) }
        return detail
    }

    public func trending(limit: Int, on provider: any SearchProvider, options: CallOptions) async throws -> SearchPage {
        try await call(.trending(limit: limit), on: provider, options: options).page(from: provider)
    }

    public func suggest(_ prefix: String, limit: Int, on provider: any SearchProvider, options: CallOptions) async throws -> [String] {
        let response = try await call(.suggest(prefix: prefix, limit: limit), on: provider, options: options)
        guard case .suggestions(let suggestions) = response else { throw Self.mismatch(provider) }
        return suggestions
    }

    static func mismatch(_ provider: any SearchProvider) -> SeekError {
        SeekError(.undecodable, provider: provider.descriptor.id, detail: "a middleware answered with the wrong kind of response")
    }
}

extension ProviderResponse {
    fileprivate func page(from provider: any SearchProvider) throws -> SearchPage {
        guard case .page(let page) = self else { throw ProviderPipeline.mismatch(provider) }
        return page
    }
}

extension SearchProvider {
    /// Answers `request` by calling the matching requirement. A detail is checked to be the record
    /// asked for (`ItemDetail.verify`) before any middleware sees it, so a wrong record is a failure
    /// to the breaker and is never cached.
    public func respond(to request: ProviderRequest, options: CallOptions) async throws -> ProviderResponse {
        switch request {
        case .search(let search): .page(try await self.search(search, options: options))
        case .detail(let id): .detail(try await verifiedDetail(id, options: options))
        case .trending(let limit): .page(try await trending(limit: limit, options: options))
        case .suggest(let prefix, let limit): .suggestions(try await suggest(prefix, limit: limit, options: options))
        }
    }
}

extension SearchProvider {
    fileprivate func verifiedDetail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        let detail = try await detail(id, options: options)
        try detail.verify(answers: id, from: self)
        return detail
    }
}
