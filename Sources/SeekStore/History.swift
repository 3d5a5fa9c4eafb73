import Foundation
import GRDB
import SeekCore
import SeekKit

/// One remembered search: what was typed and which providers were asked.
public struct SearchHistoryEntry: Sendable, Hashable, Codable {
    public var query: String
    public var providers: [String]
    public var searchedAt: Date

    public init(query: String, providers: [String], searchedAt: Date) {
        self.query = query
        self.providers = providers
        self.searchedAt = searchedAt
    }

    /// The form two queries are compared in: trimmed, runs of whitespace as one space, lowercased, NFC.
    public static func normalize(_ query: String) -> String {
        asciiNormalized(query) ?? normalizedInFull(query)
    }

    /// `normalize` of any text.
    static func normalizedInFull(_ query: String) -> String {
        // ASCII is its own canonical form; Foundation composes through NSString and UTF-16.
        let composed = query.isASCII ? query : query.precomposedStringWithCanonicalMapping
        return composed.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `normalize` of ASCII text, on its bytes: every search is keyed by it once a provider, and
    /// Characters' grapheme breaking cost 19 K instructions a query (issue 30); nil for other text.
    static func asciiNormalized(_ query: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(query.utf8.count)
        var pendingSpace = false
        for byte in query.utf8 {
            guard byte < 0x80 else { return nil }
            if Unicode.Scalar(byte).isWhiteSpace {
                pendingSpace = !bytes.isEmpty
                continue
            }
            if pendingSpace {
                bytes.append(0x20)
                pendingSpace = false
            }
            bytes.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Recent searches, most recent first, one entry per query, bounded.
///
/// The rule of every store (this SQLite one, the shared database's `seek_history_record`): entries
/// are ordered by `searchedAt`, newest first, and among equal times the one recorded last first; a
/// query searched again moves to its new time; the first `limit` in that order are kept.
public protocol HistoryStore: Sendable {
    /// How many entries are kept.
    var limit: Int { get }
    /// Records a search; an equal earlier query moves to the top instead of appearing twice.
    func record(_ entry: SearchHistoryEntry) async throws
    /// The entries, most recent first (at most `limit`).
    func entries() async throws -> [SearchHistoryEntry]
    /// Forgets every entry.
    func clear() async throws
    /// Forgets the whole history of every visitor (every owner but the instance's) whose newest
    /// search is older than `cutoff`; returns how many entries went.
    @discardableResult
    func forgetVisitors(unseenSince cutoff: Date) async throws -> Int
}

extension HistoryStore {
    /// Records `query` searched on `providers` now.
    public func record(query: String, providers: [String], at date: Date = Date()) async throws {
        try await record(SearchHistoryEntry(query: query, providers: providers, searchedAt: date))
    }
}

/// Search history in Seek's SQLite database.
public struct SQLiteHistoryStore: HistoryStore {
    /// The default number of entries kept.
    public static let defaultLimit = 10

    public let database: SeekDatabase
    public let limit: Int
    /// Whose history this is: '' for the owner, a visitor's id on a public instance.
    public let owner: String

    /// A history keeping the `limit` most recent queries (0 keeps none).
    public init(database: SeekDatabase, limit: Int = Self.defaultLimit, owner: String = "") {
        self.database = database
        self.limit = max(0, limit)
        self.owner = owner
    }

    public func record(_ entry: SearchHistoryEntry) async throws {
        let normalized = SearchHistoryEntry.normalize(entry.query)
        guard !normalized.isEmpty else { return }
        let providers = try StoredJSON.text(entry.providers)
        let (limit, owner) = (self.limit, self.owner)
        try await database.write("record search") { db in
            // Delete-then-insert gives the query a new, highest `seq`: it moves to the top.
            // Cached statements: every search records itself, and preparing these anew each time cost more
            // than running them (issue 30).
            try db.cachedStatement(sql: "DELETE FROM searchHistory WHERE owner = ? AND normalizedQuery = ?")
                .execute(arguments: [owner, normalized])
            if limit > 0 {
                try db.cachedStatement(
                    sql: "INSERT INTO searchHistory (owner, normalizedQuery, query, providers, searchedAt) VALUES (?, ?, ?, ?, ?)"
                ).execute(arguments: [owner, normalized, entry.query.trimmed(), providers, entry.searchedAt.timeIntervalSince1970])
            }
            // Every entry at or after the owner's (limit + 1)-th in the history's order (HistoryStore;
            // none when it has fewer), read along the (owner, searchedAt) index, whose rows end in `seq`:
            // `seq NOT IN (the newest limit)` built a temporary table of them for every search, 107 K
            // instructions against 67 K for a bound (SQLite 3.40, issue 30).
            try db.cachedStatement(
                sql: """
                    DELETE FROM searchHistory WHERE owner = ? AND (searchedAt, seq) <=
                        (SELECT searchedAt, seq FROM searchHistory WHERE owner = ?
                         ORDER BY searchedAt DESC, seq DESC LIMIT 1 OFFSET ?)
                    """
            ).execute(arguments: [owner, owner, limit])
        }
    }

    public func entries() async throws -> [SearchHistoryEntry] {
        let (limit, owner) = (self.limit, self.owner)
        return try await database.read("list search history") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM searchHistory WHERE owner = ? ORDER BY searchedAt DESC, seq DESC LIMIT ?",
                arguments: [owner, limit])
                .map { row in
                    SearchHistoryEntry(
                        query: try row.decode(String.self, forColumn: "query"),
                        providers: try StoredJSON.value([String].self, from: try row.decode(String.self, forColumn: "providers")),
                        searchedAt: Date(timeIntervalSince1970: try row.decode(Double.self, forColumn: "searchedAt")))
                }
        }
    }

    public func clear() async throws {
        let owner = self.owner
        try await database.write("clear search history") { db in
            try db.execute(sql: "DELETE FROM searchHistory WHERE owner = ?", arguments: [owner])
        }
    }

    @discardableResult
    public func forgetVisitors(unseenSince cutoff: Date) async throws -> Int {
        let seconds = cutoff.timeIntervalSince1970
        return try await database.write("forget old visitors' history") { db in
            try db.execute(
                sql: """
                    DELETE FROM searchHistory WHERE owner <> '' AND owner IN
                        (SELECT owner FROM searchHistory WHERE owner <> '' GROUP BY owner HAVING max(searchedAt) < ?)
                    """,
                arguments: [seconds])
            return db.changesCount
        }
    }
}
