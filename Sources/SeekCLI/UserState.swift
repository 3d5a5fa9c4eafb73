import ArgumentParser
import Foundation
import SeekCore
import SeekStore

/// Container key for the user's state: favourites, history and the response cache.
enum UserStateKey: ContainerKey { typealias Value = UserState }

/// The user's state in one SQLite file under SEEK_DATA_DIR (`seek.sqlite`), opened on first use so
/// commands that never touch it (`seek providers`) do not pay for it.
///
/// Settings: `SEEK_SEARCH_CACHE_TTL` / `SEEK_DETAIL_CACHE_TTL` (seconds, or `cache.searchTTL` /
/// `cache.detailTTL`), `SEEK_CACHE_MAX_STALE_DAYS` (or `cache.maxStaleDays`), `SEEK_NO_CACHE=1`
/// (what `--no-cache` sets), `SEEK_HISTORY_LIMIT` (or `history.limit`).
struct UserState: Sendable {
    let database: SeekDatabase
    let favorites: any FavoritesStore
    let history: any HistoryStore
    let cache: any ResponseCache
    let policy: CachePolicy
    /// The searches this process ran: recorded into the history while the providers answer, and
    /// again when the session ends if a provider joined a search after that.
    let searches = SearchLog()
    private let report: @Sendable (CacheEvent) -> Void
    private let settings: Settings
    /// Answers being written to the response cache after they were returned; the session's end waits.
    let cacheWrites = PendingCacheWrites()
    /// The recording started by the process's first search, which the session's end waits for.
    private let earlyRecording = Locked<Task<Void, Never>?>(nil)

    init(settings: Settings, context: CLIContext) throws {
        self.settings = settings
        database = SeekDatabase(directory: settings.dataDirectory)
        policy = try CachePolicy(settings: settings)
        favorites = SQLiteFavoritesStore(database: database)
        history = SQLiteHistoryStore(database: database, limit: try StoreSettings.historyLimit(settings))
        cache = SQLiteResponseCache(database: database, retention: policy.retention)
        let warned = Locked(false)
        report = { event in
            switch event {
            case .servedStaleDetail(let id, let error):
                context.err("seek: \(id.provider): \(ProviderStatus(error: error).rawValue): \(error.cause) (serving the cached record of \(id) from before)")
            case .unavailable(let error):
                // Once per process: the calls go on without the cache.
                guard !warned.withLock({ seen in defer { seen = true }; return seen }) else { return }
                context.err("seek: warning: response cache unavailable, continuing without it: \(error)")
            }
        }
    }

    /// `provider` behind the response cache (unless both TTLs are 0), with its searches logged for the
    /// history; `position` is its place in the registry, the order the history lists providers in.
    func wrap(_ provider: any SearchProvider, position: Int) -> any SearchProvider {
        let cached = policy.isEnabled
            ? CachingProvider(
                wrapping: provider, cache: cache, policy: policy,
                staleAfter: CommandScope.staleAfter(provider, settings: settings), writes: cacheWrites, report: report)
            : provider
        return SearchLoggingProvider(upstream: cached, log: searches, position: position) { [self] in
            // The process's first search opens the database and records itself while the providers
            // answer, so the end of the command pays for neither. The session's end cancels a pass
            // that has not started yet and records by itself.
            earlyRecording.withLock { recording in
                recording = WhileProvidersAnswer.run { await self.record(reportingTo: nil) }
            }
        }
    }

    /// Records the searches not yet in the history; a failure is a warning, never the command's result.
    func recordSearches(context: CLIContext) async {
        let early = earlyRecording.withLock { $0 }
        early?.cancel()
        await early?.value
        await record(reportingTo: context)
    }

    /// Records what the log has not recorded yet. A failure puts it back for the next pass and is
    /// reported to `context`, if given (the early pass stays silent: the session's end retries).
    private func record(reportingTo context: CLIContext?) async {
        guard history.limit > 0 else { return }
        for search in searches.unrecorded() {
            do {
                try await history.record(search.entry)
            } catch {
                searches.markUnrecorded(search)
                context?.err("seek: warning: could not record the search in the history: \(error)")
                return
            }
        }
    }
}

extension Session {
    var userState: UserState { get throws { try container.resolve(UserStateKey.self) } }

    /// Called as the session ends: puts the searches it ran into the history and finishes the
    /// response cache's writes.
    func finishUserState() async {
        guard let state = try? userState else { return }
        await state.recordSearches(context: context)
        await state.cacheWrites.wait()
    }
}

/// The searches one process ran: each query once, with every provider it was sent to.
final class SearchLog: Sendable {
    /// A search as recorded: its history entry and the version of it that was taken.
    struct Snapshot {
        var entry: SearchHistoryEntry
        fileprivate var version: Int
    }

    private struct Search {
        var query: String
        /// Provider ids with their registry positions.
        var providers: [(id: String, position: Int)]
        var at: Date
        /// Bumped by every change; `recorded` is the version last taken for the history.
        var version = 1
        var recorded = 0
    }
    private let searches = Locked<[Search]>([])

    /// Notes that `query` was sent to `provider`; true when it is the first search this process logs.
    @discardableResult
    func note(query: String, provider: String, position: Int) -> Bool {
        // Keyed by the query as typed: the history normalises it when it records it.
        guard !query.isEmpty else { return false }
        return searches.withLock { searches in
            let first = searches.isEmpty
            guard let index = searches.firstIndex(where: { $0.query == query }) else {
                searches.append(Search(query: query, providers: [(provider, position)], at: Date()))
                return first
            }
            if !searches[index].providers.contains(where: { $0.id == provider }) {
                searches[index].providers.append((provider, position))
                searches[index].version += 1
            }
            return false
        }
    }

    /// The searches that changed since they were last taken, oldest first, providers in registry
    /// order; they count as recorded from now on.
    func unrecorded() -> [Snapshot] {
        searches.withLock { searches in
            searches.indices.compactMap { index -> Snapshot? in
                let search = searches[index]
                guard search.recorded < search.version else { return nil }
                searches[index].recorded = search.version
                let providers = search.providers.sorted { ($0.position, $0.id) < ($1.position, $1.id) }.map(\.id)
                return Snapshot(
                    entry: SearchHistoryEntry(query: search.query, providers: providers, searchedAt: search.at),
                    version: search.version)
            }
        }
    }

    /// Puts back a search whose recording failed, unless it changed since it was taken.
    func markUnrecorded(_ snapshot: Snapshot) {
        searches.withLock { searches in
            guard let index = searches.firstIndex(where: { $0.query == snapshot.entry.query }),
                  searches[index].recorded == snapshot.version else { return }
            searches[index].recorded = 0
        }
    }
}

/// Notes every search in the process's `SearchLog` (the history's source), then passes it on.
struct SearchLoggingProvider: SearchProvider {
    let upstream: any SearchProvider
    let log: SearchLog
    /// The provider's place in the registry.
    let position: Int
    /// Runs once, at the process's first search.
    let onFirstSearch: @Sendable () -> Void

    var descriptor: ProviderDescriptor { upstream.descriptor }
    var isConfigured: Bool { upstream.isConfigured }
    var endpoint: String { upstream.endpoint }
    var answerScope: String { upstream.answerScope }

    func search(_ request: SearchRequest) async throws -> SearchPage {
        if log.note(query: request.query, provider: descriptor.id, position: position) { onFirstSearch() }
        return try await upstream.search(request)
    }

    func detail(_ id: ItemID) async throws -> ItemDetail { try await upstream.detail(id) }
    func imageURL(for item: Item, size: ImageSize) -> URL? { upstream.imageURL(for: item, size: size) }
    func trending(limit: Int) async throws -> SearchPage { try await upstream.trending(limit: limit) }
    func suggest(_ prefix: String, limit: Int) async throws -> [String] { try await upstream.suggest(prefix, limit: limit) }
}

/// What a command tells the user state about its run: `--no-cache`, and its `--timeout`, which a
/// stale fallback has to beat (the caller's deadline cancels a provider call and loses the copy).
protocol UserStateOptions {
    var bypassesCache: Bool { get }
    var requestTimeout: Double? { get }
    var contentRating: String? { get }
}

extension UserStateOptions {
    var bypassesCache: Bool { false }
    var contentRating: String? { nil }
}

extension SearchCommand: UserStateOptions {
    var bypassesCache: Bool { selection.noCache }
    var requestTimeout: Double? { selection.timeout }
    var contentRating: String? { selection.rating }
}
extension TrendingCommand: UserStateOptions {
    var bypassesCache: Bool { selection.noCache }
    var requestTimeout: Double? { selection.timeout }
    var contentRating: String? { selection.rating }
}
extension SuggestCommand: UserStateOptions {
    var bypassesCache: Bool { selection.noCache }
    var requestTimeout: Double? { selection.timeout }
}
extension DetailCommand: UserStateOptions {
    var bypassesCache: Bool { noCache }
    var requestTimeout: Double? { timeout }
}
extension ImageCommand: UserStateOptions { var requestTimeout: Double? { timeout } }
extension FavoritesCommand.Add: UserStateOptions { var requestTimeout: Double? { timeout } }
extension FavoritesCommand.Toggle: UserStateOptions { var requestTimeout: Double? { timeout } }

/// The parsed command's options that the composition root needs, for the length of its run.
enum CommandScope {
    /// The command's `--timeout`, if it has one.
    @TaskLocal static var timeout: Duration?

    /// Runs `body` with `--no-cache` as SEEK_NO_CACHE=1 and `--rating` as the providers' rating
    /// variables in the context, and `--timeout` in `timeout`.
    static func run(_ command: any ParsableCommand, context: CLIContext, _ body: () async throws -> Void) async throws {
        let options = command.cast(to: (any UserStateOptions).self)
        var adjusted = context
        if options?.bypassesCache == true { adjusted.environment["SEEK_NO_CACHE"] = "1" }
        if let rating = options?.contentRating?.lowercased() {
            for variable in CompositionRoot.contentRatingVariables { adjusted.environment[variable] = rating }
        }
        let timeout = options?.requestTimeout.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) }
        try await CLIContext.$current.withValue(adjusted) {
            try await $timeout.withValue(timeout) { try await body() }
        }
    }

    /// How long a provider call may take before a stale copy is served instead: a little less than
    /// its deadline (`--timeout`, else the shorter of `providers.<id>.timeout` and its default).
    static func staleAfter(_ provider: any SearchProvider, settings: Settings) -> Duration {
        let fallback = provider.descriptor.defaultTimeout
        let tuned = settings.number(provider: provider.descriptor.id, key: "timeout")
            .map { Duration.milliseconds(Int64(($0 * 1000).rounded())) }
        let deadline = timeout ?? min(tuned ?? fallback, fallback)
        return max(deadline * 0.8, deadline - .milliseconds(500))
    }
}

/// A user-state failure as the CLI reports it: `seek: <what failed>` on stderr, exit 1.
enum UserStateFailure {
    static func exit(_ error: any Error, context: CLIContext) -> ExitCode {
        context.err("seek: \(error)")
        return ExitCode(1)
    }
}
