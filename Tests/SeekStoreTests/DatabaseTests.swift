import Dispatch
import Foundation
import GRDB
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekLoopback
@testable import SeekStore
import Testing

@Suite("SeekDatabase")
struct DatabaseTests {
    @Test("nothing touches the disk until the first use")
    func opensLazily() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        _ = SQLiteFavoritesStore(database: store.database)
        #expect(!FileManager.default.fileExists(atPath: store.path))
        _ = try await SQLiteFavoritesStore(database: store.database).all()
        #expect(FileManager.default.fileExists(atPath: store.path))
    }

    @Test("a new file gets every migration, in order, and uses WAL")
    func migratesNewFile() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        #expect(try await store.database.appliedMigrations() == SeekDatabase.Migration.all)
        #expect(try await store.database.journalMode() == "wal")
        #expect(try await store.database.integrityCheck() == ["ok"])
    }

    @Test("a file from an older version is upgraded and keeps its rows")
    func upgradesOlderFile() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let old = SeekDatabase(path: store.path, migratedUpTo: SeekDatabase.Migration.favorites)
        // A row as that version wrote it (today's store writes an owner, a column it did not have).
        try await old.write("add a favourite as version 1 did") { db in
            try db.execute(sql: """
                INSERT INTO favorite (id, provider, kind, title, creators, imageURL, addedAt)
                VALUES ('openlibrary:OL1W', 'openlibrary', 'book', 'OL1W', '[]', NULL, 1)
                """)
        }
        #expect(try await old.appliedMigrations() == [SeekDatabase.Migration.favorites])

        let current = store.secondConnection()
        #expect(try await current.appliedMigrations() == SeekDatabase.Migration.all)
        #expect(try await SQLiteFavoritesStore(database: current).all().map(\.id.value) == ["OL1W"])
        try await SQLiteHistoryStore(database: current).record(query: "fox", providers: ["openlibrary"])
        #expect(try await SQLiteHistoryStore(database: current).entries().count == 1)
    }

    @Test("answers cached before sizes were kept get their sizes on upgrade, and count toward the bound")
    func upgradeSizesCachedAnswers() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let old = SeekDatabase(path: store.path, migratedUpTo: SeekDatabase.Migration.owners)
        let now = Date().timeIntervalSince1970
        try await old.write("cache answers as version 5 did") { db in
            for (key, size, age) in [("old", 3_000, 20.0), ("new", 2_000, 10.0)] {
                try db.execute(
                    sql: "INSERT INTO responseCache (key, provider, kind, body, storedAt) VALUES (?, 'openlibrary', 'search', ?, ?)",
                    arguments: [key, Data(count: size), now - age])
            }
        }
        let current = store.secondConnection()
        #expect(try await current.appliedMigrations() == SeekDatabase.Migration.all)
        let sizes = try await current.read("read sizes") { db in
            try [String: Int](uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, bytes FROM responseCache").map {
                (try $0.decode(String.self, forColumn: "key"), try $0.decode(Int.self, forColumn: "bytes"))
            })
        }
        #expect(sizes == ["old": 3_000, "new": 2_000])
        #expect(try await SQLiteResponseCache(database: current).removeEntries(beyondBytes: 4_999) == 1)
        #expect(try await SQLiteResponseCache(database: current).entry(forKey: "new") != nil)
    }

    @Test("two connections opening a new file at once both end up migrated")
    func concurrentFirstOpen() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let first = store.database, second = store.secondConnection()
        async let a: Void = first.open()
        async let b: Void = second.open()
        _ = try await (a, b)
        #expect(try await first.appliedMigrations() == SeekDatabase.Migration.all)
        #expect(try await second.appliedMigrations() == SeekDatabase.Migration.all)
    }

    @Test("a file that is not a database is a StoreError naming the file")
    func notADatabase() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        try FileManager.default.createDirectory(at: store.folder, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: store.path))
        await #expect {
            _ = try await SQLiteFavoritesStore(database: store.database).all()
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.path == store.path && error.description.contains(store.path)
        }
    }

    @Test("closing checkpoints the WAL into the database file, and the next open reads the row")
    func closeCheckpoints() throws {
        let store = TemporaryStore()
        defer { store.remove() }
        try FileManager.default.createDirectory(at: store.folder, withIntermediateDirectories: true)
        /// Writes a row through a pool with `configuration`, closes it, and returns the WAL's size.
        func walBytesAfterClose(_ configuration: Configuration, file: String) throws -> Int {
            let path = store.folder.appendingPathComponent(file).path
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try pool.write { db in try db.execute(sql: "CREATE TABLE t (x); INSERT INTO t VALUES (42)") }
            }
            let wal = URL(fileURLWithPath: path + "-wal")
            return (try? wal.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        }
        // SQLite's default: the last connection to close checkpoints and removes the WAL.
        #expect(try walBytesAfterClose(Configuration(), file: "plain.sqlite") == 0)
        #expect(try walBytesAfterClose(SeekDatabase.configuration(busyTimeout: 5), file: "seek.sqlite") == 0)
        // Nothing is lost: the next open reads the row from the database file.
        let reopened = try DatabasePool(path: store.folder.appendingPathComponent("seek.sqlite").path)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT x FROM t") } == 42)
    }

    /// A favourite row as `write` bodies below insert it.
    private static let favoriteRow = """
        INSERT INTO favorite (owner, id, provider, kind, title, creators, imageURL, addedAt)
        VALUES ('', ?, 'openlibrary', 'book', 't', '[]', NULL, 1)
        """

    @Test("a write whose body throws is rolled back whole, and the next write commits")
    func failedWriteRollsBack() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        struct Refused: Error {}
        await #expect(throws: StoreError.self) {
            try await store.database.write("add two favourites, then fail") { db in
                try db.execute(sql: Self.favoriteRow, arguments: ["a"])
                try db.execute(sql: Self.favoriteRow, arguments: ["b"])
                throw Refused()
            }
        }
        try await store.database.write("add one favourite") { db in try db.execute(sql: Self.favoriteRow, arguments: ["c"]) }
        let ids = try await store.database.read("list favourites") { db in try String.fetchAll(db, sql: "SELECT id FROM favorite ORDER BY id") }
        #expect(ids == ["c"])
    }

    @Test("a write's statements are one transaction: a reader sees none of them until all are committed")
    func writeIsOneTransaction() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        try await store.database.write("create the schema") { _ in }
        let seen = NIOLockedValueBox<[Int]>([])
        try await store.database.write("add favourites while a reader counts") { db in
            for index in 0..<3 {
                try db.execute(sql: Self.favoriteRow, arguments: ["id\(index)"])
                // Another connection, from another thread: WAL shows it the last commit only.
                let count = DispatchQueue.global().sync {
                    (try? DatabaseQueue(path: store.path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM favorite") }) ?? -1
                }
                seen.withLockedValue { $0.append(count) }
            }
        }
        #expect(seen.withLockedValue { $0 } == [0, 0, 0])
        #expect(try await store.database.read("count favourites") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM favorite") } == 3)
    }

    @Test("a write that fails to commit is reported, and the database takes the next write")
    func failedCommitIsReported() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        // A deferred foreign key is checked at COMMIT: the commit fails, not the insert.
        try await store.database.write("make a table with a deferred foreign key") { db in
            try db.execute(sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        }
        await #expect(throws: StoreError.self) {
            try await store.database.write("add an orphan") { db in try db.execute(sql: "INSERT INTO child VALUES (7)") }
        }
        try await store.database.write("add a parent and its child") { db in
            try db.execute(sql: "INSERT INTO parent VALUES (7); INSERT INTO child VALUES (7)")
        }
        #expect(try await store.database.read("count children") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM child") } == 1)
    }
}
