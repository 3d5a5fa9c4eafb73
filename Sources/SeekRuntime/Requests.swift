import Foundation
import SeekCore
import SeekKit
import SeekStore

/// The session's refusal of a request: its code and what was wrong, in words naming the value.
/// Every host renders it in its own syntax; none of them decides what is valid.
public struct RequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: RequestErrorCode
    public var message: String

    public init(_ code: RequestErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A search as a host asks it, before the session checks it: the CLI's arguments, the API's and the
/// web UI's query parameters, the MCP tool's arguments.
public struct SearchQuery: Sendable {
    /// The query, bangs included (`!ol harbor`).
    public var query: String
    /// Comma-separated provider ids; nil takes SEEK_PROVIDERS, else the config's `defaultProviders`.
    public var providers: String?
    /// Results per provider; nil is `SeekSession.defaultLimit`.
    public var limit: Int?
    /// The page asked of every provider; nil is the first (or the cursor's).
    public var page: Int?
    /// A `next` token of an earlier search.
    public var cursor: String?
    public var ranking: RankingMethod
    /// A content rating, one of `SeekSession.contentRatings`: those the registered providers declare (any case).
    public var rating: String?
    public var noCache: Bool
    public var explain: Bool
    /// An ISO 639-1 language (two letters, any case) for providers that filter by one.
    public var language: String?
    public var timeout: Duration?
    /// Whose history records the search; nil records it nowhere (a visitor without a valid cookie).
    public var owner: StateOwner?
    /// How records group into rows: a work's editions in one row (default), or each edition its own.
    public var group: ResultGrouping

    public init(
        query: String, providers: String? = nil, limit: Int? = nil, page: Int? = nil, cursor: String? = nil,
        ranking: RankingMethod = .searxng, rating: String? = nil, noCache: Bool = false, explain: Bool = false,
        language: String? = nil, timeout: Duration? = nil, owner: StateOwner? = .instanceOwner, group: ResultGrouping = .work
    ) {
        self.query = query
        self.providers = providers
        self.limit = limit
        self.page = page
        self.cursor = cursor
        self.ranking = ranking
        self.rating = rating
        self.noCache = noCache
        self.explain = explain
        self.language = language
        self.timeout = timeout
        self.owner = owner
        self.group = group
    }
}

/// A search the session has checked: what the engine runs, the providers and whose history records it.
public struct CheckedSearch: Sendable {
    public var options: SearchOptions
    public var selection: ProviderSelection
    public var owner: StateOwner?
}

/// A search answered: the merged result, the providers it was asked of, and the verdict over them.
public struct SearchAnswer: Sendable {
    public var result: SearchResult
    public var selection: ProviderSelection

    /// Whether every provider that counts answered, some did or none did (the CLI's exit code, the
    /// MCP result's `isError`, the web page's notice).
    public var verdict: CallVerdict { CallVerdict(result.outcomes, explicit: selection.explicit) }
    /// The outcomes that count towards `verdict` (a provider skipped for want of a key counts only
    /// when the caller chose it).
    public var counted: [ProviderOutcome] { CallVerdict.counted(result.outcomes, explicit: selection.explicit) }
}

/// A fan-out without a query (trending) or with a prefix (suggest), as a host asks it.
public struct FanOutQuery: Sendable {
    /// The suggestion prefix; ignored by trending.
    public var text: String
    /// Comma-separated provider ids; nil takes the configured default.
    public var providers: String?
    /// Results (or suggestions) per provider; nil is the operation's default.
    public var limit: Int?
    public var rating: String?
    public var noCache: Bool
    public var timeout: Duration?

    public init(
        text: String = "", providers: String? = nil, limit: Int? = nil, rating: String? = nil, noCache: Bool = false,
        timeout: Duration? = nil
    ) {
        self.text = text
        self.providers = providers
        self.limit = limit
        self.rating = rating
        self.noCache = noCache
        self.timeout = timeout
    }
}

/// One item as a host names it (`openlibrary:OL45804W`), with what its provider call carries.
public struct ItemQuery: Sendable {
    public var id: String
    public var rating: String?
    public var noCache: Bool
    public var timeout: Duration?

    public init(_ id: String, rating: String? = nil, noCache: Bool = false, timeout: Duration? = nil) {
        self.id = id
        self.rating = rating
        self.noCache = noCache
        self.timeout = timeout
    }
}

/// A favourite asked for: added now, or one already kept (adding again changes nothing).
public enum FavoriteAddition: Sendable {
    case added(Favorite)
    case present(Favorite)

    public var favorite: Favorite {
        switch self {
        case .added(let favorite), .present(let favorite): favorite
        }
    }
}

/// The one set of bounds every host's requests are held to.
extension SeekSession {
    /// How many results a call may ask of each provider.
    public static let resultLimits: ClosedRange<Int> = 1...100
    /// Results per provider when the request names no limit (SeekCore's `SearchBounds`, which the engine's defaults share).
    public static let defaultLimit = SearchBounds.defaultLimit
    /// How many suggestions a call may ask of each provider.
    public static let suggestionLimits: ClosedRange<Int> = 1...50
    /// Suggestions per provider when the request names no limit.
    public static let defaultSuggestionLimit = 10
    /// The longest cursor token read (a server's short token, or a CLI cursor of 30 providers).
    public static let cursorTokenLimit = 4096
    /// The longest a call may give each provider, in seconds (and it must give more than 0).
    public static let timeoutLimit: Double = 3600

    /// `seconds` as the deadline a call gives each provider; nil when none was given. NaN, infinity and
    /// anything not above 0 or beyond `timeoutLimit` is `invalid_parameter`, so no value can overflow.
    public static func providerTimeout(seconds: Double?) throws(RequestError) -> Duration? {
        guard let seconds else { return nil }
        guard seconds > 0, seconds <= timeoutLimit else {
            throw RequestError(
                .invalidParameter, "'timeout' must be more than 0 and at most \(SeekError.format(timeoutLimit)) seconds (got \(seconds))")
        }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// `value` (or `fallback` when nil) when it lies in `range`; else an `invalid_parameter` error naming `name`.
    static func bounded(_ name: String, _ value: Int?, in range: ClosedRange<Int>, fallback: Int) throws(RequestError) -> Int {
        guard let value else { return fallback }
        guard range.contains(value) else {
            throw RequestError(.invalidParameter, "'\(name)' must be between \(range.lowerBound) and \(range.upperBound) (got \(value))")
        }
        return value
    }

    /// `rating` lowercased when it is a known content rating; nil when none was given.
    func contentRating(_ rating: String?) throws(RequestError) -> String? {
        guard let rating else { return nil }
        let lowered = rating.lowercased()
        guard contentRatings.contains(lowered) else {
            throw RequestError(.invalidParameter, "'rating' must be one of \(contentRatings.sorted().joined(separator: ", ")) (got '\(rating)')")
        }
        return lowered
    }

    /// The grouping `text` names (`work` or `edition`, any case); `work` when none was given.
    public static func grouping(_ text: String?) throws(RequestError) -> ResultGrouping {
        guard let text else { return .work }
        guard let grouping = ResultGrouping(rawValue: text.lowercased()) else {
            throw RequestError(.invalidParameter, "'group' must be work or edition (got '\(text.prefix(20))')")
        }
        return grouping
    }

    /// `language` lowercased when it is two letters (ISO 639-1); nil when none was given.
    static func language(_ language: String?) throws(RequestError) -> String? {
        guard let language else { return nil }
        guard language.count == 2, language.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw RequestError(.invalidParameter, "'language' must be a two-letter ISO 639-1 code such as en (got '\(language.prefix(20))')")
        }
        return language.lowercased()
    }

    /// The providers `requested` names (a comma-separated list, as a flag or parameter gives it),
    /// else SEEK_PROVIDERS, else the config's `defaultProviders`; none of them means every provider.
    /// An unknown id is an `unknown_provider` error listing the known ones.
    public func selection(_ requested: String?) throws(RequestError) -> ProviderSelection {
        let raw = requested ?? settings.string("SEEK_PROVIDERS") ?? settings.file["defaultProviders"]?.arrayValue?
            .compactMap(\.stringValue).joined(separator: ",")
        guard let raw, !raw.isEmpty else { return ProviderSelection(ids: nil, explicit: false) }
        let ids = raw.fields(separatedBy: ",").map { $0.trimmed().lowercased() }.filter { !$0.isEmpty }
        for id in ids where registry.provider(id) == nil { throw unknownProvider(id) }
        return ProviderSelection(ids: ids.isEmpty ? nil : ids, explicit: !ids.isEmpty)
    }

    func unknownProvider(_ id: String) -> RequestError {
        RequestError(.unknownProvider, "unknown provider '\(id.prefix(100))' (known: \(registry.ids.joined(separator: ", ")))")
    }

    /// `text` as an item id of a registered provider: `invalid_id` when it is not `PROVIDER:ID`,
    /// `unknown_provider` when no provider of this session has it.
    public func itemID(_ text: String) throws(RequestError) -> ItemID {
        guard let id = ItemID(parsing: text) else {
            throw RequestError(.invalidID, "'\(text.prefix(100))' is not a PROVIDER:ID item id")
        }
        guard registry.provider(id.provider) != nil else { throw unknownProvider(id.provider) }
        return id
    }

    /// `request` checked against the session's bounds: the query not empty once its bangs are taken
    /// out (they win over `providers`), the providers known, the limit within `resultLimits`, the page
    /// at most `SearchRequest.maxOffset` results deep, a cursor one this session handed out (or a
    /// CLI cursor seek could have made) and not combined with a page, the rating known.
    public func check(_ request: SearchQuery) async throws(RequestError) -> CheckedSearch {
        let parsed = BangQuery.parse(request.query, registry: registry)
        guard !parsed.text.trimmed().isEmpty else { throw RequestError(.missingParameter, "the query is empty") }
        let selection: ProviderSelection
        if let chosen = parsed.providers {
            selection = ProviderSelection(ids: chosen, explicit: true)
        } else {
            selection = try self.selection(request.providers)
        }
        let limit = try Self.bounded("limit", request.limit, in: Self.resultLimits, fallback: Self.defaultLimit)
        if let page = request.page {
            guard page >= 1 else { throw RequestError(.invalidParameter, "'page' must be 1 or more (got \(page))") }
            guard SearchRequest.checkedOffset(page: page, limit: limit) != nil else {
                let deepest = SearchRequest.maxOffset / limit + 1
                throw RequestError(
                    .invalidParameter,
                    "'page' \(page) is too deep: seek pages through the first \(SearchRequest.maxOffset) results, so (page − 1) × limit "
                        + "must be at most \(SearchRequest.maxOffset) (the last page at limit \(limit) is \(deepest))")
            }
        }
        // Every parameter is checked before the cursor store is asked (it may be a database that is down).
        let rating = try contentRating(request.rating)
        let language = try Self.language(request.language)
        var cursor: SearchCursor?
        if let token = request.cursor {
            guard request.page == nil else { throw RequestError(.invalidParameter, "use either 'page' or 'cursor', not both") }
            cursor = try await self.cursor(token, providers: selection.ids, limit: limit)
        }
        let options = SearchOptions(
            query: parsed.text, providers: selection.ids, limit: limit, page: request.page ?? 1, cursor: cursor,
            timeout: request.timeout, ranking: request.ranking, rating: rating,
            noCache: request.noCache, explain: request.explain, language: language, grouping: request.group)
        return CheckedSearch(options: options, selection: selection, owner: request.owner)
    }

    /// The cursor `token` stands for: a short token this session's cursor store keeps, else a CLI
    /// cursor that seek could have made for `providers` at `limit` results a page.
    private func cursor(_ token: String, providers ids: [String]?, limit: Int) async throws(RequestError) -> SearchCursor {
        let invalid = RequestError(.invalidCursor, "'cursor' is not a cursor from seek (a `next` of an earlier search, which may have expired)")
        guard !token.isEmpty, token.utf8.count <= Self.cursorTokenLimit else { throw invalid }
        let cursor: SearchCursor
        if let kept = await userState.cursors.cursor(for: token) {
            cursor = kept
        } else {
            guard let decoded = try? SearchCursor(token: token) else { throw invalid }
            cursor = decoded
        }
        do {
            let providers = try engine.select(ids).filter { cursor.positions[$0.descriptor.id] != nil }
            try cursor.validate(for: providers, limit: limit)
        } catch {
            let cause = (error as? SeekError)?.detail ?? "\(error)"
            throw RequestError(.invalidCursor, "'cursor' is \(cause.isEmpty ? "not a cursor from seek" : cause)")
        }
        return cursor
    }

    /// Checks `request`, runs it (`onBatch` told as each provider answers) and records it in its
    /// owner's history. A history that cannot be written is a diagnostic, never the answer.
    public func search(
        _ request: SearchQuery, onBatch: @escaping @Sendable (ProviderBatch) async -> Void = { _ in }
    ) async throws -> SearchAnswer {
        try await search(try await check(request), onBatch: onBatch)
    }

    /// Checks `request`, runs it, then `render`s the answer while its owner's history records it
    /// (once): a host's whole search in one call.
    public func search<Rendered: Sendable>(
        _ request: SearchQuery, onBatch: @escaping @Sendable (ProviderBatch) async -> Void = { _ in },
        render: @Sendable (SearchAnswer) async throws -> Rendered
    ) async throws -> Rendered {
        try await search(try await check(request), onBatch: onBatch, render: render)
    }

    /// Runs a checked search and records it in its owner's history (once).
    public func search(
        _ checked: CheckedSearch, onBatch: @escaping @Sendable (ProviderBatch) async -> Void = { _ in }
    ) async throws -> SearchAnswer {
        try await search(checked, onBatch: onBatch) { $0 }
    }

    /// Runs a checked search, then `render`s the answer while its owner's history records it (once):
    /// with a shared store the history write is a round trip to the database, which the host's
    /// writing of its document need not wait for.
    public func search<Rendered: Sendable>(
        _ checked: CheckedSearch, onBatch: @escaping @Sendable (ProviderBatch) async -> Void = { _ in },
        render: @Sendable (SearchAnswer) async throws -> Rendered
    ) async throws -> Rendered {
        let result = try await userState.batchingCacheWrites { try await engine.search(checked.options, onBatch: onBatch) }
        recentItems.remember(result.results.lazy.map(\.item))
        async let recorded: Void = record(result, owner: checked.owner)
        let rendered = try await render(SearchAnswer(result: result, selection: checked.selection))
        await recorded
        return rendered
    }

    /// Records `result` in `owner`'s history (none for nil); a failure is a diagnostic, never the answer.
    private func record(_ result: SearchResult, owner: StateOwner?) async {
        guard let owner else { return }
        do {
            try await recordHistory(of: result, owner: owner)
        } catch {
            diagnostics("warning: could not record the search in the history: \(error)")
        }
    }

    /// What is trending at the providers `request` selects, merged (limit within `resultLimits`).
    public func trending(_ request: FanOutQuery) async throws -> SearchAnswer {
        let selection = try self.selection(request.providers)
        let limit = try Self.bounded("limit", request.limit, in: Self.resultLimits, fallback: Self.defaultLimit)
        let options = CallOptions(rating: try contentRating(request.rating), noCache: request.noCache, timeout: request.timeout)
        let result = try await trending(selection, limit: limit, options: options)
        recentItems.remember(result.results.lazy.map(\.item))
        return SearchAnswer(result: result, selection: selection)
    }

    /// Suggestions for `request.text` (not empty) from the providers it selects (limit within `suggestionLimits`).
    public func suggest(_ request: FanOutQuery) async throws -> (answer: SuggestResult, selection: ProviderSelection) {
        guard !request.text.trimmed().isEmpty else { throw RequestError(.missingParameter, "the prefix is empty") }
        let selection = try self.selection(request.providers)
        let limit = try Self.bounded("limit", request.limit, in: Self.suggestionLimits, fallback: Self.defaultSuggestionLimit)
        let options = CallOptions(rating: try contentRating(request.rating), noCache: request.noCache, timeout: request.timeout)
        return (try await suggest(request.text, selection, limit: limit, options: options), selection)
    }

    /// The item `request` names and its provider's answer (a failure is in the answer, the cached
    /// record served stale beside it when there is one).
    public func detail(_ request: ItemQuery) async throws -> (id: ItemID, answer: ProviderAnswer<ItemDetail>) {
        let (id, options) = try checked(request)
        return (id, try await engine.detailAnswer(id, options: options))
    }

    /// The item id and call options of `request`, checked.
    public func checked(_ request: ItemQuery) throws(RequestError) -> (id: ItemID, options: CallOptions) {
        let id = try itemID(request.id)
        return (id, CallOptions(rating: try contentRating(request.rating), noCache: request.noCache, timeout: request.timeout))
    }

    /// `owner`'s favourites, most recent first; none for nil (a visitor without a valid cookie).
    public func favorites(of owner: StateOwner?) async throws -> [Favorite] {
        guard let owner else { return [] }
        let favorites = try await userState.favorites(of: owner).all()
        recentItems.remember(favorites.map { ($0.id, RecentItems.Entry(title: $0.title, creators: $0.creators, kind: $0.kind)) })
        return favorites
    }

    /// Adds the item `request` names to `owner`'s favourites with a snapshot of its detail, unless it
    /// is one already (then nothing is fetched).
    public func addFavorite(_ request: ItemQuery, owner: StateOwner) async throws -> FavoriteAddition {
        let (id, options) = try checked(request)
        let favorites = userState.favorites(of: owner)
        if let present = try await favorites.favorite(id) { return .present(present) }
        let snapshot = try await favoriteSnapshot(of: id, options: options)
        guard try await favorites.add(snapshot) else { return .present(try await favorites.favorite(id) ?? snapshot) }
        return .added(snapshot)
    }

    /// Removes `id` (`PROVIDER:ID`) from `owner`'s favourites; true when it was one. A provider no
    /// longer registered is no error: its favourites stay removable.
    public func removeFavorite(_ id: String, owner: StateOwner) async throws -> (id: ItemID, removed: Bool) {
        guard let parsed = ItemID(parsing: id) else {
            throw RequestError(.invalidID, "'\(id.prefix(100))' is not a PROVIDER:ID item id")
        }
        return (parsed, try await userState.favorites(of: owner).remove(parsed))
    }

    /// `owner`'s recent searches, most recent first; none for nil (a visitor without a valid cookie).
    public func history(of owner: StateOwner?) async throws -> [SearchHistoryEntry] {
        guard let owner else { return [] }
        return try await userState.history(of: owner).entries()
    }
}
