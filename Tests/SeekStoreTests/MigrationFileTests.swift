import Foundation
import GRDB
import SeekCore
@testable import SeekStore
import Testing

/// The migrations' SQL lives in Sources/SeekStore/SQL (one file per migration, embedded by the
/// EmbedFiles plugin). These tests hold the files to the schema the migrations wrote when their SQL
/// was still in Swift strings, so existing databases migrate exactly as before.
@Suite("SeekDatabase migration files")
struct MigrationFileTests {
    @Test("every migration's SQL file is embedded, and no other file is")
    func everyFileEmbedded() throws {
        let expected = SeekDatabase.Migration.all.map(SeekDatabase.Migration.file)
        #expect(expected.count == 8)
        #expect(Set(EmbeddedFiles.paths) == Set(expected))
        for identifier in SeekDatabase.Migration.all {
            let sql = try SeekDatabase.Migration.sql(identifier)
            #expect(sql.contains(";"), "\(identifier): no statement")
            #expect(sql.hasPrefix("-- Migration \(identifier) "), "\(identifier): the file does not name its migration")
        }
    }

    @Test("a migration whose file is not embedded fails naming the file")
    func missingFileNamed() {
        let error = #expect(throws: MissingMigrationFile.self) { try SeekDatabase.Migration.sql("v99-not-there") }
        #expect(error?.path == "SQL/v99-not-there.sql")
        #expect(error.map(String.init(describing:))?.contains("SQL/v99-not-there.sql is not embedded") == true)
    }

    @Test("a new database built from the files has the schema the Swift-string migrations built")
    func freshSchemaUnchanged() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        try await store.database.open()
        #expect(try await store.database.appliedMigrations() == SeekDatabase.Migration.all)
        #expect(try await Self.schema(of: store.database) == Self.previousSchema)
        #expect(try await store.database.integrityCheck() == ["ok"])
    }

    @Test("a database stopped at any earlier migration upgrades to the same schema", arguments: SeekDatabase.Migration.all.dropLast())
    func upgradeFromEachVersion(_ stop: String) async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let old = SeekDatabase(path: store.path, migratedUpTo: stop)
        try await old.open()
        let applied = try await old.appliedMigrations()
        #expect(applied == Array(SeekDatabase.Migration.all.prefix { $0 != stop }) + [stop])
        await old.close()
        let current = store.secondConnection()
        #expect(try await current.appliedMigrations() == SeekDatabase.Migration.all)
        #expect(try await Self.schema(of: current) == Self.previousSchema)
    }

    @Test("a database written by the previous version opens unchanged: no migration runs again, every row stays")
    func previousVersionOpensUnchanged() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        try FileManager.default.createDirectory(at: store.folder, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: store.path)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: Self.previousVersionDump) }
        let before = try await queue.read { db in try Self.schema(db) }
        let countsBefore = try await queue.read { db in try Self.rowCounts(db) }
        try queue.close()
        // The restored file is what the previous version left: the expectation below is its own schema.
        #expect(before == Self.previousSchema)
        #expect(countsBefore == ["cursor": 1, "favorite": 2, "grdb_migrations": 8, "responseCache": 1, "searchHistory": 2])

        #expect(try await store.database.appliedMigrations() == SeekDatabase.Migration.all)
        #expect(try await Self.schema(of: store.database) == Self.previousSchema)
        let countsAfter = try await store.database.read("count rows") { db in try Self.rowCounts(db) }
        #expect(countsAfter == countsBefore)
        #expect(try await SQLiteFavoritesStore(database: store.database).all().map(\.id.value) == ["OL45804W"])
        #expect(try await SQLiteFavoritesStore(database: store.database, owner: "visitor-1").all().map(\.title) == ["Fox"])
        #expect(try await SQLiteHistoryStore(database: store.database).entries().map(\.query) == ["Roald Dahl", "fox"])
        // The history's sequence goes on from where the previous version left it.
        try await SQLiteHistoryStore(database: store.database).record(query: "badger", providers: ["openlibrary"])
        let seq = try await store.database.read("read seq") { db in
            try Int.fetchOne(db, sql: "SELECT seq FROM searchHistory WHERE normalizedQuery = 'badger'")
        }
        #expect(seq == 3)
    }

    // MARK: - Helpers

    struct SchemaRow: Hashable, CustomStringConvertible {
        let type: String
        let name: String
        let sql: String?

        init(_ type: String, _ name: String, _ sql: String?) {
            self.type = type
            self.name = name
            self.sql = sql
        }

        var description: String { "\(type) \(name): \(sql ?? "NULL")" }
    }

    static func schema(of database: SeekDatabase) async throws -> [SchemaRow] {
        try await database.read("read schema") { db in try schema(db) }
    }

    static func schema(_ db: Database) throws -> [SchemaRow] {
        try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master ORDER BY name").map { row in
            SchemaRow(
                try row.decode(String.self, forColumn: "type"), try row.decode(String.self, forColumn: "name"),
                try row.decode(String?.self, forColumn: "sql"))
        }
    }

    static func rowCounts(_ db: Database) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["cursor", "favorite", "grdb_migrations", "responseCache", "searchHistory"] {
            counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)")
        }
        return counts
    }

    /// `SELECT type, name, sql FROM sqlite_master ORDER BY name` of a new database as the migrations
    /// wrote it when their SQL was in SeekDatabase.swift (captured from that build's `seek`, v1 to v8).
    static let previousSchema: [SchemaRow] = [
        SchemaRow(
            "table", "cursor",
            """
            CREATE TABLE cursor (
                token TEXT NOT NULL PRIMARY KEY,
                cursor TEXT NOT NULL,
                createdAt REAL NOT NULL
            )
            """),
        SchemaRow("index", "cursor_createdAt", "CREATE INDEX cursor_createdAt ON cursor(createdAt)"),
        SchemaRow(
            "table", "favorite",
            """
            CREATE TABLE "favorite" (
                owner TEXT NOT NULL DEFAULT '',
                id TEXT NOT NULL,
                provider TEXT NOT NULL,
                kind TEXT NOT NULL,
                title TEXT NOT NULL,
                creators TEXT NOT NULL,
                imageURL TEXT,
                addedAt REAL NOT NULL, owned TEXT,
                PRIMARY KEY (owner, id)
            )
            """),
        SchemaRow("index", "favorite_owner_addedAt", "CREATE INDEX favorite_owner_addedAt ON favorite(owner, addedAt)"),
        SchemaRow("table", "grdb_migrations", "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"),
        SchemaRow(
            "table", "responseCache",
            """
            CREATE TABLE responseCache (
                key TEXT NOT NULL PRIMARY KEY,
                provider TEXT NOT NULL,
                kind TEXT NOT NULL,
                body BLOB NOT NULL,
                storedAt REAL NOT NULL
            , bytes INTEGER NOT NULL DEFAULT 0)
            """),
        SchemaRow("index", "responseCache_storedAt_bytes", "CREATE INDEX responseCache_storedAt_bytes ON responseCache(storedAt, bytes)"),
        SchemaRow(
            "table", "searchHistory",
            """
            CREATE TABLE "searchHistory" (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                owner TEXT NOT NULL DEFAULT '',
                normalizedQuery TEXT NOT NULL,
                query TEXT NOT NULL,
                providers TEXT NOT NULL,
                searchedAt REAL NOT NULL,
                UNIQUE (owner, normalizedQuery)
            )
            """),
        SchemaRow("index", "searchHistory_owner_searchedAt", "CREATE INDEX searchHistory_owner_searchedAt ON searchHistory(owner, searchedAt)"),
        SchemaRow("index", "sqlite_autoindex_cursor_1", nil),
        SchemaRow("index", "sqlite_autoindex_favorite_1", nil),
        SchemaRow("index", "sqlite_autoindex_grdb_migrations_1", nil),
        SchemaRow("index", "sqlite_autoindex_responseCache_1", nil),
        SchemaRow("index", "sqlite_autoindex_searchHistory_1", nil),
        SchemaRow("table", "sqlite_sequence", "CREATE TABLE sqlite_sequence(name,seq)"),
    ]

    /// `sqlite3 seek.sqlite .dump` of a database the previous version created (its `seek favorites
    /// list` made the file; the rows were added in that schema): migrations v1 to v8 recorded.
    static let previousVersionDump = """
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES('v1-favorites');
        INSERT INTO grdb_migrations VALUES('v2-search-history');
        INSERT INTO grdb_migrations VALUES('v3-response-cache');
        INSERT INTO grdb_migrations VALUES('v4-safe-cached-answers');
        INSERT INTO grdb_migrations VALUES('v5-owners');
        INSERT INTO grdb_migrations VALUES('v6-response-cache-bytes');
        INSERT INTO grdb_migrations VALUES('v7-cursors');
        INSERT INTO grdb_migrations VALUES('v8-favorite-owned');
        CREATE TABLE responseCache (
            key TEXT NOT NULL PRIMARY KEY,
            provider TEXT NOT NULL,
            kind TEXT NOT NULL,
            body BLOB NOT NULL,
            storedAt REAL NOT NULL
        , bytes INTEGER NOT NULL DEFAULT 0);
        INSERT INTO responseCache VALUES('["search","openlibrary","fox"]','openlibrary','search',X'7b7d',1764000200.0,2);
        CREATE TABLE IF NOT EXISTS "favorite" (
            owner TEXT NOT NULL DEFAULT '',
            id TEXT NOT NULL,
            provider TEXT NOT NULL,
            kind TEXT NOT NULL,
            title TEXT NOT NULL,
            creators TEXT NOT NULL,
            imageURL TEXT,
            addedAt REAL NOT NULL, owned TEXT,
            PRIMARY KEY (owner, id)
        );
        INSERT INTO favorite VALUES('','openlibrary:OL45804W','openlibrary','book','Fantastic Mr Fox','["Roald Dahl"]','https://covers.openlibrary.org/b/id/6498519-M.jpg',1764000000.0,NULL);
        INSERT INTO favorite VALUES('visitor-1','giphy:xT9IgG50Fb7Mi0prBC','giphy','gif','Fox','[]',NULL,1764000100.0,NULL);
        CREATE TABLE IF NOT EXISTS "searchHistory" (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            owner TEXT NOT NULL DEFAULT '',
            normalizedQuery TEXT NOT NULL,
            query TEXT NOT NULL,
            providers TEXT NOT NULL,
            searchedAt REAL NOT NULL,
            UNIQUE (owner, normalizedQuery)
        );
        INSERT INTO searchHistory VALUES(1,'','fox','fox','["openlibrary","giphy"]',1764000200.0);
        INSERT INTO searchHistory VALUES(2,'','roald dahl','Roald Dahl','["openlibrary"]',1764000300.0);
        CREATE TABLE cursor (
            token TEXT NOT NULL PRIMARY KEY,
            cursor TEXT NOT NULL,
            createdAt REAL NOT NULL
        );
        INSERT INTO cursor VALUES('c1','opaque-cursor',1764000250.0);
        DELETE FROM sqlite_sequence;
        INSERT INTO sqlite_sequence VALUES('searchHistory',2);
        CREATE INDEX favorite_owner_addedAt ON favorite(owner, addedAt);
        CREATE INDEX searchHistory_owner_searchedAt ON searchHistory(owner, searchedAt);
        CREATE INDEX responseCache_storedAt_bytes ON responseCache(storedAt, bytes);
        CREATE INDEX cursor_createdAt ON cursor(createdAt);
        COMMIT;
        """
}
