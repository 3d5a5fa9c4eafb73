import Foundation
import NIOConcurrencyHelpers
import SeekConfig
import SeekCore
import SeekHTTP
import SeekResilience
import SeekJSON
import SeekStore

/// The user's state in one SQLite file under SEEK_DATA_DIR (`seek.sqlite`), opened on first use so
/// hosts and commands that never touch it (`seek providers`) do not pay for it.
///
/// Settings: `SEEK_SEARCH_CACHE_TTL` / `SEEK_DETAIL_CACHE_TTL` (seconds, or `cache.searchTTL` /
/// `cache.detailTTL`), `SEEK_CACHE_MAX_STALE_DAYS` (or `cache.maxStaleDays`), `SEEK_NO_CACHE=1`
/// (never read the cache, whatever a call asks), `SEEK_HISTORY_LIMIT` (or `history.limit`).
public struct UserState: Sendable {
    public let database: SeekDatabase
    public let favorites: any FavoritesStore
    public let history: any HistoryStore
    public let cache: any ResponseCache
    public let policy: CachePolicy
    /// Answers being written to the response cache after they were returned; closing waits for them.
    public let cacheWrites = PendingCacheWrites()
    let report: @Sendable (CacheEvent) -> Void

    /// - Parameter diagnostics: told, in one line each, about stale details served and a cache that
    ///   cannot be used (once per session).
    init(settings: Settings, diagnostics: @escaping @Sendable (String) -> Void) throws {
        database = SeekDatabase(directory: settings.dataDirectory)
        policy = try CachePolicy(settings: settings)
        favorites = SQLiteFavoritesStore(database: database)
        history = SQLiteHistoryStore(database: database, limit: try StoreSettings.historyLimit(settings))
        cache = SQLiteResponseCache(database: database, retention: policy.retention)
        let warned = NIOLockedValueBox(false)
        report = { event in
            switch event {
            case .servedStaleDetail(let id, let error):
                diagnostics("\(id.provider): \(ProviderStatus(error: error).rawValue): \(error.cause) (serving the cached record of \(id) from before)")
            case .unavailable(let error):
                // Once per session: the calls go on without the cache.
                guard !warned.withLockedValue({ seen in defer { seen = true }; return seen }) else { return }
                diagnostics("warning: response cache unavailable, continuing without it: \(error)")
            }
        }
    }

    /// The response cache as call middleware (nil when both TTLs are 0); `staleAfter` gives a call's
    /// deadline less a margin, which a stale fallback has to beat.
    func cachingMiddleware(staleAfter: @escaping @Sendable (ProviderCallContext) -> Duration?) -> CachingMiddleware? {
        guard policy.isEnabled else { return nil }
        return CachingMiddleware(
            cache: cache, policy: policy, staleAfter: staleAfter, writes: cacheWrites, memory: ResponseMemory(), report: report)
    }

    /// Records a search in the history: the query and the providers it went to, in registry order.
    public func record(query: String, providers: [String]) async throws {
        guard history.limit > 0, !query.isEmpty, !providers.isEmpty else { return }
        try await history.record(SearchHistoryEntry(query: query, providers: providers, searchedAt: Date()))
    }

    /// Finishes the response cache's writes and closes the database.
    func close() async {
        await cacheWrites.wait()
        await database.close()
    }
}
