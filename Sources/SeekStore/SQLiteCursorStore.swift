import Foundation
import GRDB
import NIOConcurrencyHelpers
import SeekCore

/// Cursor tokens of one machine: this process's memory in front (as `MemoryCursorStore`: a server's
/// tokens cost no write), and, for a token that must outlive the process (`lastingToken(for:)`, the
/// CLI's `More: --cursor …`), the `cursor` table of `seek.sqlite`. A lasting token is 22 random
/// characters, good for `lifetime` (a day); one the table does not hold, or holds from longer ago,
/// is no cursor (forged and expired tokens alike).
public final class SQLiteCursorStore: CursorStore {
    public let database: SeekDatabase
    /// How long a lasting token stays valid.
    public let lifetime: TimeInterval
    private let memory: MemoryCursorStore
    private let now: @Sendable () -> Date

    /// A day: a reader comes back to a search's next page the same day, or searches again.
    public static let defaultLifetime: TimeInterval = 86_400

    /// - Parameter now: the clock that dates tokens and judges their age (injected in tests).
    public init(
        database: SeekDatabase, lifetime: TimeInterval = SQLiteCursorStore.defaultLifetime,
        memory: MemoryCursorStore = MemoryCursorStore(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.lifetime = lifetime
        self.memory = memory
        self.now = now
    }

    public func token(for cursor: SearchCursor) async -> String {
        await memory.token(for: cursor)
    }

    /// Keeps `cursor` in memory and in the database, and forgets the database's expired tokens. When
    /// the database cannot be written the token lives in this process's memory only.
    public func lastingToken(for cursor: SearchCursor) async -> String {
        let token = Self.newToken()
        memory.keep(cursor, as: token)
        let (text, created, oldest) = (cursor.token, now().timeIntervalSince1970, now().timeIntervalSince1970 - lifetime)
        _ = try? await database.write("keep a cursor") { db in
            try db.execute(sql: "DELETE FROM cursor WHERE createdAt < ?", arguments: [oldest])
            try db.execute(
                sql: "INSERT OR REPLACE INTO cursor (token, cursor, createdAt) VALUES (?, ?, ?)", arguments: [token, text, created])
        }
        return token
    }

    public func cursor(for token: String) async -> SearchCursor? {
        if let kept = await memory.cursor(for: token) { return kept }
        // Only what `newToken` makes is looked up: a long CLI cursor of old is decoded by the caller.
        guard token.utf8.count == Self.tokenLength, token.utf8.allSatisfy(Self.isTokenByte) else { return nil }
        let oldest = now().timeIntervalSince1970 - lifetime
        let text = try? await database.read("read a cursor") { db in
            try String.fetchOne(db, sql: "SELECT cursor FROM cursor WHERE token = ? AND createdAt >= ?", arguments: [token, oldest])
        }
        guard let text, let cursor = try? SearchCursor(token: text) else { return nil }
        return cursor
    }

    /// The length of `newToken()`'s tokens: 16 bytes in base64url without padding.
    static let tokenLength = 22

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
