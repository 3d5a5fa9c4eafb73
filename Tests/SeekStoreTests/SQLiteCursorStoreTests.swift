import Foundation
import SeekCore
import SeekStore
import Testing

@Suite("The CLI's lasting cursor tokens (SQLite)")
struct SQLiteCursorStoreTests {
    func cursor(_ page: Int) -> SearchCursor {
        SearchCursor(positions: ["openlibrary": "\(page * 20)", "giphy": "\(page * 25)"], page: page, seen: Set((0..<300).map(UInt32.init)))
    }

    @Test("a lasting token is short, and another process (another connection, empty memory) reads its cursor")
    func acrossProcesses() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let token = await SQLiteCursorStore(database: store.database).lastingToken(for: cursor(3))
        let later = SQLiteCursorStore(database: store.secondConnection())
        let found = await later.cursor(for: token)
        await store.database.close()
        #expect(token.count == 22)
        #expect(found == cursor(3))
        // The cursor itself would be far longer: 300 items seen.
        #expect(cursor(3).token.count > 1000)
    }

    @Test("a token expires after its lifetime, and the next write forgets it")
    func expires() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let clock = TestClock()
        let writer = SQLiteCursorStore(database: store.database, lifetime: 3600, now: clock.closure)
        let old = await writer.lastingToken(for: cursor(2))
        clock.advance(3599)
        let reader = SQLiteCursorStore(database: store.secondConnection(), lifetime: 3600, now: clock.closure)
        #expect(await reader.cursor(for: old) == cursor(2))
        clock.advance(2)
        let expiredReader = SQLiteCursorStore(database: store.secondConnection(), lifetime: 3600, now: clock.closure)
        #expect(await expiredReader.cursor(for: old) == nil)
        // The next lasting token's write deletes the expired row: even a reader that would accept a
        // day-old token no longer finds it.
        let kept = await writer.lastingToken(for: cursor(4))
        let lenient = SQLiteCursorStore(database: store.secondConnection(), lifetime: 86_400, now: clock.closure)
        #expect(await lenient.cursor(for: old) == nil)
        #expect(await lenient.cursor(for: kept) == cursor(4))
        await store.database.close()
    }

    @Test("a token it never handed out, forged or garbled, is no cursor", arguments: [
        "AAAAAAAAAAAAAAAAAAAAAA", "short", "", "'; DROP TABLE cursor; --x", String(repeating: "a", count: 23), "ÅAAAAAAAAAAAAAAAAAAAAA",
    ])
    func forged(token: String) async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cursors = SQLiteCursorStore(database: store.database)
        _ = await cursors.lastingToken(for: cursor(2))
        let fresh = SQLiteCursorStore(database: store.secondConnection())
        #expect(await fresh.cursor(for: token) == nil)
        await store.database.close()
    }

    @Test("a server's tokens stay in memory: no database is written for them")
    func serverTokensInMemory() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cursors = SQLiteCursorStore(database: store.database)
        let token = await cursors.token(for: cursor(2))
        #expect(await cursors.cursor(for: token) == cursor(2))
        #expect(!FileManager.default.fileExists(atPath: store.path), "the database was opened for a memory token")
        #expect(await SQLiteCursorStore(database: store.secondConnection()).cursor(for: token) == nil)
    }

    @Test("a database that cannot be written still hands out a token good for this process")
    func unwritableDatabase() async throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("seek-cursor-\(UUID().uuidString)")
        try Data("a file, not a folder".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let cursors = SQLiteCursorStore(database: SeekDatabase(directory: blocker.appendingPathComponent("data")))
        let token = await cursors.lastingToken(for: cursor(2))
        #expect(await cursors.cursor(for: token) == cursor(2))
    }
}
