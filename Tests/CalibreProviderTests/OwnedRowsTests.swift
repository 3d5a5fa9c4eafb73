import CalibreProvider
import Foundation
import SeekCore
import SeekIdentity
import Testing

/// A source that answers nothing: only its descriptor (id and weight) matters to a merge.
private struct Listed: SearchProvider {
    let descriptor: ProviderDescriptor
    init(_ id: String, weight: Double = 1) {
        descriptor = ProviderDescriptor(id: id, name: id, kinds: [.book], capabilities: [.search], paging: .page, weight: weight)
    }
    var endpoint: String { "test:" + descriptor.id }
    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage { SearchPage(items: []) }
    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { throw SeekError(.notFound) }
}

private func book(_ provider: String, _ value: String, _ title: String, isbn: String? = nil, owned formats: [String]? = nil) -> Item {
    let id = ItemID(provider: provider, value: value)
    return Item(
        id: id, kind: .book, title: title, creators: ["Writer \(value)"], identifiers: Identifiers(isbns: isbn.map { [$0] } ?? []),
        owned: formats.map { OwnedCopy(id: id, formats: $0) })
}

private func batch(_ provider: String, _ items: [Item]) -> ProviderBatch {
    ProviderBatch(outcome: ProviderOutcome(provider: provider, status: .ok, count: items.count), items: items)
}

@Suite("Owned rows: a library book marks the row it joins and never outranks what remote sources agree on")
struct OwnedRowsTests {
    let providers: [any SearchProvider] = [Listed("openlibrary"), Listed("aladin"), Listed("calibre", weight: CalibreProvider.defaultWeight)]

    @Test("a library book joined by ISBN: the row is owned, with the formats, and scored as without it", arguments: RankingMethod.allCases)
    func joined(_ ranking: RankingMethod) throws {
        let registry = try ProviderRegistry(providers)
        let engine = SearchEngine(registry: registry, merger: ResultMerger())
        let remote = book("openlibrary", "OL1W", "The Lord of the Rings", isbn: "9780618640157")
        let other = book("openlibrary", "OL2W", "The Hobbit", isbn: "9780618260300")
        let mine = book("calibre", "7", "The Lord of the Rings", isbn: "0618640150", owned: ["EPUB", "PDF"])
        let alone = engine.merge([batch("openlibrary", [remote, other])], from: providers, ranking: ranking)
        let merged = engine.merge([batch("openlibrary", [remote, other]), batch("calibre", [mine])], from: providers, ranking: ranking)
        #expect(merged.count == 2)
        let row = try #require(merged.first { $0.sources.contains { $0.provider == "calibre" } })
        #expect(row.item.owned == OwnedCopy(id: ItemID(provider: "calibre", value: "7"), formats: ["EPUB", "PDF"]))
        #expect(row.sources.map(\.provider) == ["openlibrary", "calibre"])
        #expect(row.score == alone.first?.score)
        #expect(merged.map(\.item.id) == alone.map(\.item.id), "owning a book moved its row")
        #expect(merged.first { $0.item.id == other.id }?.item.owned == nil)
    }

    @Test("a library book alone ranks below a row two remote sources agree on, even at their last places", arguments: RankingMethod.allCases)
    func alone(_ ranking: RankingMethod) throws {
        let engine = SearchEngine(registry: try ProviderRegistry(providers), merger: ResultMerger())
        let filler = (1...99).map { book("openlibrary", "F\($0)", "Filler \($0)", isbn: nil) }
        let fillerAladin = (1...99).map { book("aladin", "A\($0)", "Other \($0)", isbn: nil) }
        let agreedOL = book("openlibrary", "OL9W", "Agreed", isbn: "9780140328721")
        let agreedAL = book("aladin", "9780140328721", "Agreed", isbn: "9780140328721")
        let mine = book("calibre", "1", "Only Mine", isbn: "9788936434120", owned: ["EPUB"])
        let merged = engine.merge(
            [batch("openlibrary", filler + [agreedOL]), batch("aladin", fillerAladin + [agreedAL]), batch("calibre", [mine])],
            from: providers, ranking: ranking)
        let agreed = try #require(merged.firstIndex { $0.sources.count == 2 })
        let library = try #require(merged.firstIndex { $0.item.id == mine.id })
        #expect(agreed < library, "the library's own book (\(merged[library].score)) outranked the agreed row (\(merged[agreed].score))")
        #expect(merged[library].item.owned?.formats == ["EPUB"])
    }

    @Test("without a library book, rows carry no ownership")
    func none() throws {
        let engine = SearchEngine(registry: try ProviderRegistry(providers), merger: ResultMerger())
        let merged = engine.merge([batch("openlibrary", [book("openlibrary", "OL1W", "A", isbn: "9780618640157")])], from: providers)
        #expect(merged.allSatisfy { $0.item.owned == nil })
    }
}
