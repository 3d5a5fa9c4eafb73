import Foundation
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
