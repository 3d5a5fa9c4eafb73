import Foundation
import GRDB
import SeekCore
import SeekKit

/// A favourite item: a snapshot of what the provider said when it was added, so listing needs no network.
public struct Favorite: Sendable, Hashable, Codable {
    public var id: ItemID
    public var kind: ItemKind
    public var title: String
    public var creators: [String]
    public var imageURL: URL?
    public var addedAt: Date
    /// The reader's own copy when their library held the book as it was added (issue 49).
    public var owned: OwnedCopy?

    public init(
        id: ItemID, kind: ItemKind, title: String, creators: [String] = [], imageURL: URL? = nil, addedAt: Date, owned: OwnedCopy? = nil
    ) {
        self.id = id
        self.kind = kind
        self.title = title
        self.creators = creators
        self.imageURL = imageURL
        self.addedAt = addedAt
        self.owned = owned
    }

    /// The snapshot of a provider's detail record; `imageURL` defaults to the item's medium rendition.
    public init(snapshotOf detail: ItemDetail, imageURL: URL? = nil, addedAt: Date) {
        let item = detail.item
        let creators = item.creators.isEmpty ? detail.contributors.map(\.name) : item.creators
        self.init(
            id: item.id, kind: item.kind, title: item.subtitle.map { "\(item.title): \($0)" } ?? item.title,
            creators: creators, imageURL: imageURL ?? item.image(.medium)?.url, addedAt: addedAt, owned: item.owned)
    }

    /// The provider that supplied the item.
    public var provider: String { id.provider }
}

/// Favourite items that survive restarts.
public protocol FavoritesStore: Sendable {
    /// Adds `favorite`; returns false, changing nothing, when its id is already a favourite.
    @discardableResult
    func add(_ favorite: Favorite) async throws -> Bool
    /// Removes the favourite with `id`; returns false when there was none.
    @discardableResult
    func remove(_ id: ItemID) async throws -> Bool
    /// The favourite with `id`, if any.
    func favorite(_ id: ItemID) async throws -> Favorite?
    /// Every favourite, most recently added first.
    func all() async throws -> [Favorite]
}

extension FavoritesStore {
    public func contains(_ id: ItemID) async throws -> Bool {
        try await favorite(id) != nil
    }

    /// Removes `id` if it is a favourite, else adds the snapshot `make` builds (only called then).
    /// Returns true when the item is a favourite afterwards.
    @discardableResult
    public func toggle(_ id: ItemID, snapshot make: () async throws -> Favorite) async throws -> Bool {
        if try await remove(id) { return false }
        try await add(try await make())
        return true
    }
}

/// Favourites in Seek's SQLite database.
public struct SQLiteFavoritesStore: FavoritesStore {
    public let database: SeekDatabase
    /// Whose favourites these are: '' for the owner, a visitor's id on a public instance.
    public let owner: String

    public init(database: SeekDatabase, owner: String = "") {
        self.database = database
        self.owner = owner
    }

    @discardableResult
    public func add(_ favorite: Favorite) async throws -> Bool {
        let creators = try StoredJSON.text(favorite.creators)
        let owned = try favorite.owned.map(StoredJSON.text)
        let owner = self.owner
        return try await database.write("add favorite \(favorite.id)") { db in
            try db.execute(
                sql: """
                    INSERT INTO favorite (owner, id, provider, kind, title, creators, imageURL, addedAt, owned)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(owner, id) DO NOTHING
                    """,
                arguments: [
                    owner, favorite.id.description, favorite.provider, favorite.kind.rawValue, favorite.title, creators,
                    favorite.imageURL?.absoluteString, favorite.addedAt.timeIntervalSince1970, owned,
                ])
            return db.changesCount > 0
        }
    }

    @discardableResult
    public func remove(_ id: ItemID) async throws -> Bool {
        let owner = self.owner
        return try await database.write("remove favorite \(id)") { db in
            try db.execute(sql: "DELETE FROM favorite WHERE owner = ? AND id = ?", arguments: [owner, id.description])
            return db.changesCount > 0
        }
    }

    public func favorite(_ id: ItemID) async throws -> Favorite? {
        let owner = self.owner
        return try await database.read("read favorite \(id)") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM favorite WHERE owner = ? AND id = ?", arguments: [owner, id.description])
                .map(Self.favorite(from:))
        }
    }

    public func all() async throws -> [Favorite] {
        let owner = self.owner
        return try await database.read("list favorites") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM favorite WHERE owner = ? ORDER BY addedAt DESC, rowid DESC", arguments: [owner])
                .map(Self.favorite(from:))
        }
    }

    /// Decodes a row; a row someone else damaged is an error naming the row, never a crash.
    static func favorite(from row: Row) throws -> Favorite {
        let text = try row.decode(String.self, forColumn: "id")
        guard let id = ItemID(parsing: text) else {
            throw StoredJSON.Damaged(what: "favorite id '\(text)'")
        }
        let imageURL = try row.decode(String?.self, forColumn: "imageURL").flatMap(URL.init(string:))
        return Favorite(
            id: id, kind: ItemKind(rawValue: try row.decode(String.self, forColumn: "kind")),
            title: try row.decode(String.self, forColumn: "title"),
            creators: try StoredJSON.value([String].self, from: try row.decode(String.self, forColumn: "creators")),
            imageURL: imageURL,
            addedAt: Date(timeIntervalSince1970: try row.decode(Double.self, forColumn: "addedAt")),
            owned: try row.decode(String?.self, forColumn: "owned").map { try StoredJSON.value(OwnedCopy.self, from: $0) })
    }
}

/// Small JSON values stored in TEXT columns (by SeekPostgres' stores too).
package enum StoredJSON {
    /// A stored value that does not decode.
    package struct Damaged: Error, CustomStringConvertible {
        let what: String
        package var description: String { "damaged \(what)" }
    }

    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    package static func value<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw Damaged(what: "JSON value \(text.prefix(40))")
        }
    }
}
