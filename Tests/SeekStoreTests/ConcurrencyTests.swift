import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekStore
import Testing

@Suite("Concurrent writers")
struct ConcurrencyTests {
    @Test("two connection pools adding favourites at once lose nothing")
    func twoPools() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let first = SQLiteFavoritesStore(database: store.database)
        let second = SQLiteFavoritesStore(database: store.secondConnection())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, favorites) in [("a", first), ("b", second)] {
                for n in 0..<25 {
                    group.addTask { try await favorites.add(.sample("OL\(name)\(n)W")) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.all().count == 50)
        #expect(try await store.database.integrityCheck() == ["ok"])
    }

    @Test("history recorded from two pools at once stays de-duplicated and bounded")
    func historyFromTwoPools() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let first = SQLiteHistoryStore(database: store.database, limit: 10)
        let second = SQLiteHistoryStore(database: store.secondConnection(), limit: 10)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<30 {
                let history = n.isMultiple(of: 2) ? first : second
                group.addTask { try await history.record(query: "query \(n % 15)", providers: ["openlibrary"]) }
            }
            try await group.waitForAll()
        }
        let entries = try await first.entries()
        #expect(entries.count == 10)
        #expect(Set(entries.map(\.query)).count == 10)
    }
}
