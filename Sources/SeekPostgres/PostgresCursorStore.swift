import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import SeekCore
import SeekStore

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
