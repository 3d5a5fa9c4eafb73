import Foundation
import SeekCore
import SeekKit
import SeekStore

/// DESIGN's envelope for list commands: `{ "entries": [...] }`.
public struct EntriesDocument<Entry: JSONWritable>: JSONWritable {
    public init(entries: [Entry]) {
        self.entries = entries
    }

    public let entries: [Entry]

    public func write(to writer: inout JSONWriter) {
        writer.object { $0.field("entries", entries) }
    }
}

/// One favourite in `seek favorites list --format json`.
public struct FavoriteDocument: JSONWritable {
    public init(favorite: Favorite) {
        self.favorite = favorite
    }

    public let favorite: Favorite
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("id", favorite.id)
            writer.field("provider", favorite.provider)
            writer.field("kind", favorite.kind.rawValue)
            writer.field("title", favorite.title)
            writer.field("creators", favorite.creators)
            writer.field("imageURL", favorite.imageURL?.absoluteString)
            writer.field("addedAt", favorite.addedAt.formatted(.iso8601))
            writer.field("owned", favorite.owned.map(OwnedDocument.init))
        }
    }
}

/// One search in `seek history --format json`.
public struct HistoryDocument: JSONWritable {
    public init(entry: SearchHistoryEntry) {
        self.entry = entry
    }

    public let entry: SearchHistoryEntry
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("query", entry.query)
            writer.field("providers", entry.providers)
            writer.field("searchedAt", entry.searchedAt.formatted(.iso8601))
        }
    }
}
