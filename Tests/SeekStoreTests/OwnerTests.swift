import Foundation
import GRDB
import SeekCore
@testable import SeekStore
import Testing

@Suite("Owners: the instance's owner and each visitor")
struct OwnerTests {
    static func favorite(_ value: String) -> Favorite {
        Favorite(id: ItemID(provider: "openlibrary", value: value), kind: .book, title: value, addedAt: Date(timeIntervalSince1970: 10))
    }

    @Test("each owner's favourites are their own: the same item may be two owners' favourite")
    func favouritesPerOwner() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let owner = SQLiteFavoritesStore(database: store.database)
        let visitor = SQLiteFavoritesStore(database: store.database, owner: StateOwner.visitor("abc").key)
        #expect(try await owner.add(Self.favorite("OL1W")))
        #expect(try await visitor.add(Self.favorite("OL1W")))
        #expect(try await visitor.add(Self.favorite("OL2W")))
        #expect(try await owner.all().map(\.id.value) == ["OL1W"])
        #expect(try await visitor.remove(ItemID(provider: "openlibrary", value: "OL1W")))
        #expect(try await owner.favorite(ItemID(provider: "openlibrary", value: "OL1W")) != nil)
        #expect(try await visitor.all().map(\.id.value) == ["OL2W"])
    }

    @Test("each owner's history is their own, trimmed and cleared on its own")
    func historyPerOwner() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let owner = SQLiteHistoryStore(database: store.database, limit: 2)
        let visitor = SQLiteHistoryStore(database: store.database, limit: 2, owner: StateOwner.visitor("abc").key)
        try await owner.record(query: "mine", providers: ["openlibrary"])
        for query in ["a", "b", "c"] { try await visitor.record(query: query, providers: ["giphy"]) }
        #expect(try await owner.entries().map(\.query) == ["mine"])
        #expect(try await visitor.entries().map(\.query) == ["c", "b"])
        try await visitor.clear()
        #expect(try await owner.entries().map(\.query) == ["mine"])
    }

    @Test("visitors unseen for the lifetime lose their whole history; recent visitors and the owner keep theirs")
    func forgetVisitors() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let owner = SQLiteHistoryStore(database: store.database)
        let old = SQLiteHistoryStore(database: store.database, owner: StateOwner.visitor("old").key)
        let recent = SQLiteHistoryStore(database: store.database, owner: StateOwner.visitor("recent").key)
        try await owner.record(query: "ancient", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await old.record(query: "x", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await old.record(query: "y", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 2))
        try await recent.record(query: "z", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await recent.record(query: "w", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 100))
        #expect(try await owner.forgetVisitors(unseenSince: Date(timeIntervalSince1970: 50)) == 2)
        #expect(try await old.entries().isEmpty)
        #expect(try await recent.entries().map(\.query) == ["w", "z"])
        #expect(try await owner.entries().map(\.query) == ["ancient"])
    }

    @Test("a database from before owners keeps its favourites and history as the owner's")
    func upgrade() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let old = SeekDatabase(path: store.database.path, migratedUpTo: SeekDatabase.Migration.safeCachedAnswers)
        try await old.write("seed an old database") { db in
            try db.execute(sql: "INSERT INTO favorite (id, provider, kind, title, creators, imageURL, addedAt) VALUES ('openlibrary:OL7W', 'openlibrary', 'book', 'Old', '[]', NULL, 5)")
            try db.execute(sql: "INSERT INTO searchHistory (normalizedQuery, query, providers, searchedAt) VALUES ('old query', 'Old query', '[\"openlibrary\"]', 5)")
        }
        await old.close()
        let upgraded = SeekDatabase(path: store.database.path)
        #expect(try await SQLiteFavoritesStore(database: upgraded).all().map(\.title) == ["Old"])
        #expect(try await SQLiteHistoryStore(database: upgraded).entries().map(\.query) == ["Old query"])
        #expect(try await SQLiteFavoritesStore(database: upgraded, owner: StateOwner.visitor("v").key).all().isEmpty)
        await upgraded.close()
    }
}
