import Foundation
import NIOConcurrencyHelpers
import SeekKit
import SeekCore
import SeekResilience
import SeekPostgres
import SeekStore

/// The user's state: in one SQLite file under SEEK_DATA_DIR (`seek.sqlite`), opened on first use so
/// hosts and commands that never touch it (`seek providers`) do not pay for it; or, when
/// `SEEK_DATABASE_URL` is set, in PostgreSQL, shared by every instance and host.
///
/// Settings: `SEEK_SEARCH_CACHE_TTL` / `SEEK_DETAIL_CACHE_TTL` (seconds, or `cache.searchTTL` /
/// `cache.detailTTL`), `SEEK_CACHE_MAX_STALE_DAYS` (or `cache.maxStaleDays`), `SEEK_CACHE_DISK_MB` (or
/// `cache.diskLimitMB`), `SEEK_NO_CACHE=1`
/// (never read the cache, whatever a call asks), `SEEK_HISTORY_LIMIT` (or `history.limit`).
public struct UserState: Sendable {
    public let cache: any ResponseCache
    /// Cursor tokens: the server's, and the CLI's that later processes read (`lastingToken(for:)`).
    public let cursors: any CursorStore
    public let policy: CachePolicy
    /// Where the state is kept, for `/healthz` and `seek db`.
    public let place: StorePlace
    /// How many searches a history keeps.
    public let historyLimit: Int
    /// False with `SEEK_HISTORY=off`: no search is recorded.
    public let recordsHistory: Bool
    /// Answers being written to the response cache after they were returned; closing waits for them.
    public let cacheWrites = PendingCacheWrites()
    let report: @Sendable (CacheEvent) -> Void

    /// - Parameter diagnostics: told, in one line each, about stale details served and a cache that
    ///   cannot be used (once per session).
    init(settings: Settings, shared: SharedDatabase?, diagnostics: @escaping @Sendable (String) -> Void) throws {
        policy = try CachePolicy(settings: settings)
        historyLimit = try StoreSettings.historyLimit(settings)
        switch settings.string("SEEK_HISTORY")?.lowercased() {
        case nil, "on", "1", "true", "yes": recordsHistory = true
        case "off", "0", "false", "no": recordsHistory = false
        case let other?: throw SeekError(.configuration, detail: "SEEK_HISTORY must be on or off, not \(other)")
        }
        if let shared {
            cache = PostgresResponseCache(database: shared, retention: policy.retention, diskLimitBytes: policy.diskLimitBytes)
            cursors = PostgresCursorStore(database: shared)
            place = .shared(shared)
        } else {
            let database = SeekDatabase(directory: settings.dataDirectory)
            cache = SQLiteResponseCache(database: database, retention: policy.retention, diskLimitBytes: policy.diskLimitBytes)
            // The server's tokens in memory; the CLI's lasting ones in the database as well.
            cursors = SQLiteCursorStore(database: database)
            place = .embedded(database)
        }
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
            cache: cache, policy: policy, staleAfter: staleAfter, writes: cacheWrites,
            memory: ResponseMemory(limitBytes: policy.memoryLimitBytes), report: report)
    }

    /// Runs `search` with the answers it stores in the response cache held in one batch, then stores
    /// them together, left running: one transaction a search rather than one an answer (issue 30).
    func batchingCacheWrites<T: Sendable>(_ search: () async throws -> T) async throws -> T {
        guard policy.isEnabled else { return try await search() }
        let batch = CacheWriteBatch()
        let result: Result<T, any Error>
        do {
            result = .success(try await CacheWriteBatch.$current.withValue(batch) { try await search() })
        } catch {
            result = .failure(error)
        }
        await batch.store(in: cache, writes: cacheWrites, report: report)
        return try result.get()
    }

    /// The owner's favourites (the CLI's, a personal server's).
    public var favorites: any FavoritesStore { favorites(of: .instanceOwner) }

    /// The owner's search history.
    public var history: any HistoryStore { history(of: .instanceOwner) }

    /// `owner`'s favourites.
    public func favorites(of owner: StateOwner) -> any FavoritesStore {
        switch place {
        case .embedded(let database): SQLiteFavoritesStore(database: database, owner: owner.key)
        case .shared(let database): PostgresFavoritesStore(database: database, owner: owner.key)
        }
    }

    /// `owner`'s search history.
    public func history(of owner: StateOwner) -> any HistoryStore {
        switch place {
        case .embedded(let database): SQLiteHistoryStore(database: database, limit: historyLimit, owner: owner.key)
        case .shared(let database): PostgresHistoryStore(database: database, limit: historyLimit, owner: owner.key)
        }
    }

    /// Records a search in `owner`'s history: the query and the providers it went to, in registry order.
    public func record(query: String, providers: [String], owner: StateOwner = .instanceOwner) async throws {
        guard recordsHistory, historyLimit > 0, !query.isEmpty, !providers.isEmpty else { return }
        try await history(of: owner).record(SearchHistoryEntry(query: query, providers: providers, searchedAt: Date()))
    }

    /// Finishes the response cache's writes and closes the database.
    func close() async {
        await cacheWrites.wait()
        switch place {
        case .embedded(let database): await database.close()
        case .shared(let database): await database.close()
        }
    }
}

/// Where the user's state is kept.
public enum StorePlace: Sendable {
    /// One machine's SQLite file.
    case embedded(SeekDatabase)
    /// PostgreSQL (SEEK_DATABASE_URL), shared by several instances.
    case shared(SharedDatabase)
}

/// What `seek db import-sqlite` copied.
public struct ImportReport: Sendable, Hashable {
    /// The embedded database read.
    public var source: String
    /// The shared database written (no password).
    public var destination: String
    public var favoritesRead: Int
    public var favoritesAdded: Int
    public var searchesRead: Int
    public var searchesAdded: Int
}

extension UserState {
    /// Copies the favourites and history of the embedded database at `path` (default: the one under
    /// SEEK_DATA_DIR) into the shared database; repeating it adds nothing twice. Fails naming the
    /// cause when no shared database is configured or the file is missing.
    public func importEmbedded(from path: String?, settings: Settings) async throws -> ImportReport {
        guard case .shared(let shared) = place else {
            throw SeekError(.configuration, detail: "SEEK_DATABASE_URL is not set: there is no shared database to import into")
        }
        let source = SeekDatabase(directory: settings.dataDirectory)
        let database = path.map { SeekDatabase(path: $0) } ?? source
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw SeekError(.configuration, detail: "no embedded database at \(database.path)")
        }
        defer { Task { await database.close() } }
        let favorites = try await SQLiteFavoritesStore(database: database).all()
        let searches = try await SQLiteHistoryStore(database: database, limit: Int(Int32.max)).entries()
        let addedFavorites = try await PostgresFavoritesStore(database: shared).importing(favorites)
        // Oldest first, so that equal times keep the embedded order.
        let addedSearches = try await PostgresHistoryStore(database: shared).importing(searches.reversed())
        return ImportReport(
            source: database.path, destination: shared.location, favoritesRead: favorites.count, favoritesAdded: addedFavorites,
            searchesRead: searches.count, searchesAdded: addedSearches)
    }
}
