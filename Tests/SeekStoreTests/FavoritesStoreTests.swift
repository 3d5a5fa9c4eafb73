import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekStore
import Testing

@Suite("Favorites store")
struct FavoritesStoreTests {
    @Test("an added favourite is listed with its snapshot")
    func addAndList() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let favorites = SQLiteFavoritesStore(database: store.database)
        let fox = Favorite.sample("OL45804W", title: "Fantastic Mr Fox", at: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try await favorites.add(fox))
        #expect(try await favorites.all() == [fox])
        #expect(try await favorites.favorite(fox.id) == fox)
    }

    @Test("adding the same id twice changes nothing")
    func addIsIdempotent() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let favorites = SQLiteFavoritesStore(database: store.database)
        let first = Favorite.sample("OL1W", title: "First snapshot", at: Date(timeIntervalSince1970: 100))
        #expect(try await favorites.add(first))
        #expect(try await !favorites.add(Favorite.sample("OL1W", title: "Second snapshot", at: Date(timeIntervalSince1970: 200))))
        #expect(try await favorites.all() == [first])
    }

    @Test("the list is most recently added first")
    func newestFirst() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let favorites = SQLiteFavoritesStore(database: store.database)
        for (index, value) in ["OL1W", "OL2W", "OL3W"].enumerated() {
            try await favorites.add(.sample(value, at: Date(timeIntervalSince1970: Double(100 + index))))
        }
        #expect(try await favorites.all().map(\.id.value) == ["OL3W", "OL2W", "OL1W"])
    }

    @Test("remove deletes the favourite and says whether there was one")
    func remove() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let favorites = SQLiteFavoritesStore(database: store.database)
        let fox = Favorite.sample("OL45804W")
        try await favorites.add(fox)
        #expect(try await favorites.remove(fox.id))
        #expect(try await !favorites.remove(fox.id))
        #expect(try await favorites.all().isEmpty)
    }

    @Test("toggle adds a missing favourite and removes a present one, building the snapshot only to add")
    func toggle() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let favorites = SQLiteFavoritesStore(database: store.database)
        let fox = Favorite.sample("OL45804W")
        #expect(try await favorites.toggle(fox.id) { fox })
        #expect(try await favorites.contains(fox.id))
        #expect(try await !favorites.toggle(fox.id) { throw SeekError(.network, detail: "must not be called") })
        #expect(try await !favorites.contains(fox.id))
    }

    @Test("a failing snapshot stores nothing")
    func failedSnapshotStoresNothing() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let favorites = SQLiteFavoritesStore(database: store.database)
        let id = ItemID(provider: "openlibrary", value: "OL0W")
        await #expect(throws: SeekError.self) {
            try await favorites.toggle(id) { throw SeekError(.notFound, provider: "openlibrary") }
        }
        #expect(try await favorites.all().isEmpty)
    }

    @Test("the snapshot of a detail keeps title, creators, kind, image and provider")
    func snapshotOfDetail() throws {
        let cover = ImageReference(url: try #require(URL(string: "https://covers.example/M.jpg")), size: .medium)
        let item = Item(id: ItemID(provider: "openlibrary", value: "OL45804W"), kind: .book, title: "Fantastic Mr Fox",
                        images: [.medium: cover])
        let detail = ItemDetail(item: item, contributors: [Contributor(name: "Roald Dahl", role: "author")])
        let added = Date(timeIntervalSince1970: 5)
        let favorite = Favorite(snapshotOf: detail, addedAt: added)
        #expect(favorite.title == "Fantastic Mr Fox")
        #expect(favorite.creators == ["Roald Dahl"])
        #expect(favorite.kind == .book)
        #expect(favorite.provider == "openlibrary")
        #expect(favorite.imageURL == cover.url)
        #expect(favorite.addedAt == added)
    }

    @Test("favourites written by one connection are read by another")
    func survivesReopen() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        try await SQLiteFavoritesStore(database: store.database).add(.sample("OL7W", title: "Matilda"))
        let reopened = SQLiteFavoritesStore(database: store.secondConnection())
        #expect(try await reopened.all().map(\.title) == ["Matilda"])
    }
}
