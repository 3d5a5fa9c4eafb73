import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import SeekCore
import SeekStore

/// Favourites in the shared database: one list whichever instance or host wrote it. A favourite is
/// acknowledged only once committed; a database that cannot be reached is a `StoreError`.
package struct PostgresFavoritesStore: FavoritesStore {
    package let database: SharedDatabase
    /// Whose favourites these are: '' for the owner of a personal instance.
    package let owner: String

    package init(database: SharedDatabase, owner: String = "") {
        self.database = database
        self.owner = owner
    }

    @discardableResult
    package func add(_ favorite: Favorite) async throws -> Bool {
        let owner = self.owner
        let creators = try StoredJSON.text(favorite.creators)
        let owned = try favorite.owned.map(StoredJSON.text)
        return try await database.run("add favorite \(favorite.id)", timeout: SharedDatabase.writeTimeout) { client in
            let rows = try await client.query(
                """
                INSERT INTO seek_favorite (owner, id, provider, kind, title, creators, image_url, added_at, owned)
                VALUES (\(owner), \(favorite.id.description), \(favorite.provider), \(favorite.kind.rawValue), \(favorite.title),
                        \(creators), \(favorite.imageURL?.absoluteString), \(favorite.addedAt.timeIntervalSince1970), \(owned))
                ON CONFLICT (owner, id) DO NOTHING RETURNING id
                """)
            return try await rows.first(String.self) != nil
        }
    }

    @discardableResult
    package func remove(_ id: ItemID) async throws -> Bool {
        let owner = self.owner
        return try await database.run("remove favorite \(id)", timeout: SharedDatabase.writeTimeout) { client in
            try await client.query("DELETE FROM seek_favorite WHERE owner = \(owner) AND id = \(id.description) RETURNING id")
                .first(String.self) != nil
        }
    }

    package func favorite(_ id: ItemID) async throws -> Favorite? {
        try await list("read favorite \(id)", id: id).first
    }

    package func all() async throws -> [Favorite] {
        try await list("list favorites", id: nil)
    }

    private func list(_ operation: String, id: ItemID?) async throws -> [Favorite] {
        let owner = self.owner
        let rows = try await database.run(operation, timeout: SharedDatabase.writeTimeout) { client in
            let query: PostgresQuery = if let id {
                """
                SELECT id, kind, title, creators, image_url, added_at, owned FROM seek_favorite
                WHERE owner = \(owner) AND id = \(id.description)
                """
            } else {
                """
                SELECT id, kind, title, creators, image_url, added_at, owned FROM seek_favorite
                WHERE owner = \(owner) ORDER BY added_at DESC, seq DESC
                """
            }
            var found: [(String, String, String, String, String?, Double, String?)] = []
            for try await row in try await client.query(query).decode((String, String, String, String, String?, Double, String?).self) {
                found.append(row)
            }
            return found
        }
        return try rows.map { row in
            guard let id = ItemID(parsing: row.0) else { throw StoreError(operation: operation, path: database.location, reason: "damaged favorite id '\(row.0)'") }
            return Favorite(
                id: id, kind: ItemKind(rawValue: row.1), title: row.2,
                creators: try database.stored([String].self, from: row.3, operation: operation),
                imageURL: row.4.flatMap(URL.init(string:)), addedAt: Date(timeIntervalSince1970: row.5),
                owned: try row.6.map { try database.stored(OwnedCopy.self, from: $0, operation: operation) })
        }
    }

    /// Adds `favorites` that are not in the list yet, keeping when each was added; returns how many were new.
    package func importing(_ favorites: [Favorite]) async throws -> Int {
        var added = 0
        for favorite in favorites.reversed() where try await add(favorite) { added += 1 }
        return added
    }
}

/// Search history in the shared database: one list whichever instance or host wrote it, newest first,
/// one entry per query, the newest `limit` kept.
package struct PostgresHistoryStore: HistoryStore {
    package let database: SharedDatabase
    package let limit: Int
    package let owner: String

    package init(database: SharedDatabase, limit: Int = 10, owner: String = "") {
        self.database = database
        self.limit = max(0, min(limit, Int(Int32.max)))
        self.owner = owner
    }

    package func record(_ entry: SearchHistoryEntry) async throws {
        let normalized = SearchHistoryEntry.normalize(entry.query)
        guard !normalized.isEmpty else { return }
        let providers = try StoredJSON.text(entry.providers)
        let (owner, limit) = (self.owner, self.limit)
        try await database.run("record search", timeout: SharedDatabase.writeTimeout) { client in
            try await client.perform(
                """
                SELECT seek_history_record(\(owner), \(normalized), \(entry.query.trimmed()), \(providers),
                                           \(entry.searchedAt.timeIntervalSince1970), \(limit))
                """
            )
        }
    }

    package func entries() async throws -> [SearchHistoryEntry] {
        try await entries(limit: limit)
    }

    /// The newest `limit` entries.
    func entries(limit: Int) async throws -> [SearchHistoryEntry] {
        let owner = self.owner
        let rows = try await database.run("list search history", timeout: SharedDatabase.writeTimeout) { client in
            var found: [(String, String, Double)] = []
            let rows = try await client.query(
                """
                SELECT query, providers, searched_at FROM seek_history WHERE owner = \(owner)
                ORDER BY searched_at DESC, seq DESC LIMIT \(limit)
                """)
            for try await row in rows.decode((String, String, Double).self) { found.append(row) }
            return found
        }
        return try rows.map { row in
            SearchHistoryEntry(
                query: row.0,
                providers: try database.stored([String].self, from: row.1, operation: "list search history"),
                searchedAt: Date(timeIntervalSince1970: row.2))
        }
    }

    package func clear() async throws {
        let owner = self.owner
        try await database.run("clear search history", timeout: SharedDatabase.writeTimeout) { client in
            try await client.perform("DELETE FROM seek_history WHERE owner = \(owner)")
        }
    }

    @discardableResult
    package func forgetVisitors(unseenSince cutoff: Date) async throws -> Int {
        let seconds = cutoff.timeIntervalSince1970
        return try await database.run("forget old visitors' history", timeout: SharedDatabase.writeTimeout) { client in
            try await client.query(
                """
                WITH gone AS (
                    DELETE FROM seek_history WHERE owner <> '' AND owner IN
                        (SELECT owner FROM seek_history WHERE owner <> '' GROUP BY owner HAVING max(searched_at) < \(seconds))
                    RETURNING 1)
                SELECT count(*) FROM gone
                """
            ).first(Int.self) ?? 0
        }
    }

    /// Adds `entries` (from another store) without trimming: a query already listed keeps the newer of
    /// the two searches, so importing twice adds nothing. Returns how many rows it added or moved.
    package func importing(_ entries: [SearchHistoryEntry]) async throws -> Int {
        let owner = self.owner
        var changed = 0
        for entry in entries {
            let normalized = SearchHistoryEntry.normalize(entry.query)
            guard !normalized.isEmpty else { continue }
            let providers = try StoredJSON.text(entry.providers)
            let at = entry.searchedAt.timeIntervalSince1970
            let kept = try await database.run("import search history", timeout: SharedDatabase.writeTimeout) { client in
                try await client.query(
                    """
                    INSERT INTO seek_history AS h (owner, normalized_query, query, providers, searched_at)
                    VALUES (\(owner), \(normalized), \(entry.query.trimmed()), \(providers), \(at))
                    ON CONFLICT (owner, normalized_query) DO UPDATE SET query = excluded.query,
                        providers = excluded.providers, searched_at = excluded.searched_at
                    WHERE h.searched_at < excluded.searched_at
                    RETURNING normalized_query
                    """
                ).first(String.self) != nil
            }
            if kept { changed += 1 }
        }
        return changed
    }
}

/// The response cache in the shared database: a query answered by one instance is a hit on every other.
/// Each instance keeps its memory tier in front (`CachingMiddleware`); entries past the retention are
/// pruned at most once a minute, and the oldest past the byte bound (to seven eighths of it) when
/// `DiskBound` says so.
package struct PostgresResponseCache: ResponseCache {
    package let database: SharedDatabase
    package let retention: TimeInterval
    package let diskBound: DiskBound
    private let lastPrune = NIOLockedValueBox<Date?>(nil)

    package init(
        database: SharedDatabase, retention: TimeInterval = CachePolicy.defaultMaxStaleAge,
        diskLimitBytes: Int = CachePolicy.defaultDiskLimitBytes
    ) {
        self.database = database
        self.retention = retention.isFinite ? max(0, retention) : CachePolicy.defaultMaxStaleAge
        diskBound = DiskBound(limitBytes: diskLimitBytes)
    }

    package func entry(forKey key: String) async throws -> CacheEntry? {
        let row = try await database.run("read cached response") { client in
            let rows = try await client.query("SELECT provider, kind, body, stored_at FROM seek_response_cache WHERE key = \(key)")
            for try await row in rows.decode((String, String, Data, Double).self) { return Optional(row) }
            return nil
        }
        guard let row else { return nil }
        return CacheEntry(
            key: key, provider: row.0, kind: CacheKind(rawValue: row.1) ?? .search, body: row.2,
            storedAt: Date(timeIntervalSince1970: row.3))
    }

    package func store(_ entry: CacheEntry) async throws {
        try await database.run("store cached response", timeout: SharedDatabase.writeTimeout) { client in
            try await client.perform(
                """
                INSERT INTO seek_response_cache (key, provider, kind, body, stored_at)
                VALUES (\(entry.key), \(entry.provider), \(entry.kind.rawValue), \(entry.body), \(entry.storedAt.timeIntervalSince1970))
                ON CONFLICT (key) DO UPDATE SET provider = excluded.provider, kind = excluded.kind, body = excluded.body,
                    stored_at = excluded.stored_at
                """
            )
        }
        let due = lastPrune.withLockedValue { last -> Bool in
            guard last.map({ entry.storedAt.timeIntervalSince($0) >= 60 }) ?? true else { return false }
            last = entry.storedAt
            return true
        }
        if due { try await removeEntries(storedBefore: entry.storedAt.addingTimeInterval(-retention)) }
        if diskBound.isDue(storing: entry.body.count, at: entry.storedAt) { try await bound(toBytes: diskBound.limitBytes) }
    }

    /// Past `limit` bytes, trims the answers to seven eighths of it: the next checks are a sum (4 ms for
    /// 250 MB of answers), not the trim itself (35 ms).
    private func bound(toBytes limit: Int) async throws {
        let kept = try await database.run("measure cached responses") { client in
            try await client.query("SELECT coalesce(sum(octet_length(body)), 0)::bigint FROM seek_response_cache").first(Int.self) ?? 0
        }
        guard kept > limit else { return }
        try await removeEntries(beyondBytes: limit - limit / 8)
    }

    /// Forgets the oldest entries until the answers kept take at most `limit` bytes; returns how many.
    @discardableResult
    package func removeEntries(beyondBytes limit: Int) async throws -> Int {
        let limit = max(0, limit)
        return try await database.run("bound cached responses", timeout: SharedDatabase.writeTimeout) { client in
            // The newest first, each with the bytes of every entry up to it; past `limit`, the rest go.
            // `octet_length` of a stored value reads its size, not the value.
            try await client.query(
                """
                WITH gone AS (
                    DELETE FROM seek_response_cache WHERE key IN (
                        SELECT key FROM (
                            SELECT key, SUM(octet_length(body)) OVER (ORDER BY stored_at DESC, key DESC ROWS UNBOUNDED PRECEDING) AS up_to
                            FROM seek_response_cache) AS ranked
                        WHERE up_to > \(limit))
                    RETURNING 1)
                SELECT count(*) FROM gone
                """
            ).first(Int.self) ?? 0
        }
    }

    @discardableResult
    package func removeEntries(storedBefore cutoff: Date) async throws -> Int {
        let seconds = cutoff.timeIntervalSince1970
        return try await database.run("prune cached responses", timeout: SharedDatabase.writeTimeout) { client in
            try await client.query("WITH gone AS (DELETE FROM seek_response_cache WHERE stored_at < \(seconds) RETURNING 1) SELECT count(*) FROM gone")
                .first(Int.self) ?? 0
        }
    }

    package func removeAll() async throws {
        try await database.run("clear cached responses", timeout: SharedDatabase.writeTimeout) { client in
            try await client.perform("DELETE FROM seek_response_cache")
        }
    }
}

/// Cursor tokens in the shared database, so page 2 may go to any instance; the instance's memory in
/// front. When the database cannot be reached a token lives in this instance's memory only.
/// Tokens are forgotten a day after they were handed out.
package struct PostgresCursorStore: CursorStore {
    package let database: SharedDatabase
    private let memory: MemoryCursorStore
    private let lastPrune = NIOLockedValueBox<Date?>(nil)

    package init(database: SharedDatabase, memory: MemoryCursorStore = MemoryCursorStore()) {
        self.database = database
        self.memory = memory
    }

    package func token(for cursor: SearchCursor) async -> String {
        let token = Self.newToken()
        memory.keep(cursor, as: token)
        let text = cursor.token
        _ = try? await database.run("keep a cursor") { client in
            try await client.perform("INSERT INTO seek_cursor (token, cursor) VALUES (\(token), \(text))")
        }
        pruneIfDue()
        return token
    }

    package func cursor(for token: String) async -> SearchCursor? {
        if let kept = await memory.cursor(for: token) { return kept }
        guard token.utf8.count <= 64 else { return nil }
        let text: String??
        text = try? await database.run("read a cursor") { client in
            try await client.query(
                "SELECT cursor FROM seek_cursor WHERE token = \(token) AND created_at > clock_timestamp() - interval '1 day'"
            ).first(String.self)
        }
        guard let text, let text, let cursor = try? SearchCursor(token: text) else { return nil }
        memory.keep(cursor, as: token)
        return cursor
    }

    /// Forgets day-old cursors, at most every ten minutes, in the background.
    private func pruneIfDue() {
        let now = Date()
        let due = lastPrune.withLockedValue { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= 600 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        Task { [database] in
            _ = try? await database.run("forget old cursors", timeout: SharedDatabase.writeTimeout) { client in
                try await client.perform("DELETE FROM seek_cursor WHERE created_at < clock_timestamp() - interval '1 day'")
            }
        }
    }
}

extension SharedDatabase {
    /// A JSON value read back from a text column (`StoredJSON`); a damaged one is a `StoreError` naming `operation`.
    func stored<T: Decodable>(_ type: T.Type, from text: String, operation: String) throws -> T {
        do {
            return try StoredJSON.value(type, from: text)
        } catch {
            throw StoreError(operation: operation, path: location, reason: "\(error)")
        }
    }
}
