import Foundation
import SeekCore
@testable import SeekStore
import Testing

/// Items with every field set, and with every optional left out.
private let full = Item(
    id: ItemID(provider: "openlibrary", value: "OL45804W"), kind: .book, title: "Fantastic Mr Fox \"quoted\" / ½ 위대한",
    subtitle: "A tale\nin two lines", creators: ["Roald Dahl", "Quentin Blake"], year: 1970,
    identifiers: Identifiers(isbns: ["0140328726", "9780307352149"], other: ["openlibraryWork": "OL45804W", "note": "\u{1}"]),
    images: [
        .small: ImageReference(url: URL(string: "https://covers.example/b/id/1-S.jpg")!, size: .small, width: 40, height: 60),
        .large: ImageReference(url: URL(string: "https://covers.example/b/id/1-L.jpg?x=1&y=%20")!, size: .large),
        .original: ImageReference(url: URL(string: "https://covers.example/b/id/1.jpg")!, size: .original, width: 800),
    ],
    url: URL(string: "https://openlibrary.org/works/OL45804W"))
private let bare = Item(id: ItemID(provider: "giphy", value: "xT9"), kind: .gif, title: "")

/// The fields of `value` (and of the values in them) that hold nothing: nil, empty or "".
private func emptyFields(of value: Any, path: String = "") -> [String] {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
        guard let wrapped = mirror.children.first?.value else { return [path] }
        return emptyFields(of: wrapped, path: path)
    }
    if let text = value as? String { return text.isEmpty ? [path] : [] }
    if mirror.displayStyle == .collection || mirror.displayStyle == .dictionary {
        guard let first = mirror.children.first?.value else { return [path] }
        return emptyFields(of: first, path: path + "[]")
    }
    if mirror.displayStyle == .tuple {  // a dictionary's (key, value)
        return mirror.children.flatMap { emptyFields(of: $0.value, path: path) }
    }
    guard mirror.displayStyle == .struct, !(value is URL) else { return [] }
    return mirror.children.flatMap { child in emptyFields(of: child.value, path: path + "." + (child.label ?? "?")) }
}

/// A provider that answers every search with `page` and every detail with `detail`.
private struct FixedProvider: SearchProvider {
    let page: SearchPage
    let detail: ItemDetail
    let descriptor = ProviderDescriptor(id: "openlibrary", name: "Fixed", kinds: [.book], capabilities: [.search, .detail], paging: .page)
    let endpoint = "http://127.0.0.1:1/fixed"

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage { page }
    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { detail }
}

@Suite("Cached answers are written from the models' Codable layout, in the bytes JSONDecoder reads")
struct StoredAnswerTests {
    @Test("the layout sample sets every field of every model, so a new field must be set there and changes the layout version")
    func sampleIsFullyPopulated() {
        #expect(emptyFields(of: StoredAnswerFormat.sample) == [])
    }

    @Test("the empty-field finder finds a field left empty (the check above can fail)")
    func emptyFieldFinderFindsGaps() {
        #expect(emptyFields(of: ItemDetail(item: bare)).contains(".item.subtitle"))
        #expect(emptyFields(of: ItemDetail(item: bare)).contains(".redirect"))
    }

    @Test("a fully populated detail and page go through the cache (SQLite, no memory tier) and read back equal")
    func fullyPopulatedRoundTripThroughTheCache() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let sample = StoredAnswerFormat.sample
        let page = SearchPage(items: [sample.item, full, bare], total: 251, next: "20")
        let upstream = FixedProvider(page: page, detail: sample)
        let writer = CachingProvider(wrapping: upstream, cache: SQLiteResponseCache(database: store.database))
        _ = try await writer.search(SearchRequest(query: "fox", limit: 3))
        _ = try await writer.detail(sample.item.id)
        // A second provider over the same database, whose upstream answers something else: what it
        // returns can only have come from the stored bytes.
        let other = FixedProvider(page: SearchPage(items: []), detail: ItemDetail(item: bare))
        let reader = CachingProvider(wrapping: other, cache: SQLiteResponseCache(database: store.secondConnection()))
        #expect(try await reader.search(SearchRequest(query: "fox", limit: 3)) == page)
        #expect(try await reader.detail(sample.item.id) == sample)
    }

    @Test("pages and details, full and bare, are the bytes JSONEncoder writes, up to key order")
    func sameLayoutAsJSONEncoder() throws {
        let values: [any Encodable] = [
            CachedPage(SearchPage(items: [full, bare], total: 251, next: "20")), CachedPage(SearchPage(items: [])),
            StoredAnswerFormat.sample, ItemDetail(item: bare),
        ]
        for value in values {
            let ours = try JSONSerialization.jsonObject(with: StoredAnswerEncoder.encode(value)) as? NSObject
            let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? NSObject
            #expect(ours != nil && ours == theirs)
        }
    }

    @Test("items written by hand are the very bytes their encode(to:) writes: full, bare, in pages and in details")
    func itemsByHandMatchTheirEncodeTo() {
        let unusual = Item(
            id: ItemID(provider: "aladin", value: "a:\"b\\c\u{0}"), kind: ItemKind(rawValue: "e\u{1F}book"), title: "\t",
            subtitle: "", creators: [], year: -0, identifiers: Identifiers(other: [:]),
            images: [.medium: ImageReference(url: URL(string: "https://x.example/%22q%22")!, size: .medium, height: Int.min)])
        let values: [any Encodable] = [
            CachedPage(SearchPage(items: [full, bare, unusual], total: 251, next: "20")), CachedPage(SearchPage(items: [])),
            StoredAnswerFormat.sample, ItemDetail(item: bare), ItemDetail(item: unusual), [full, bare],
        ]
        for value in values {
            let byHand = StoredAnswerEncoder.encode(value)
            let generic = StoredAnswerEncoder.encode(value, itemsByHand: false)
            #expect(byHand == generic, "\(String(decoding: byHand, as: UTF8.self))\n\(String(decoding: generic, as: UTF8.self))")
        }
    }

    @Test("a value the streaming writer does not handle (a Date) is written by JSONEncoder instead, and reads back")
    func unsupportedShapeFallsBack() throws {
        struct Dated: Codable, Equatable { var at: Date }
        let value = Dated(at: Date(timeIntervalSince1970: 1_000_000))
        #expect(try JSONDecoder().decode(Dated.self, from: StoredAnswerEncoder.encode(value)) == value)
    }

    @Test("cache keys carry the layout version")
    func keysCarryTheLayoutVersion() {
        let key = CacheKey.detail(provider: "openlibrary", endpoint: "e", id: full.id)
        #expect(!StoredAnswerFormat.version.isEmpty)
        #expect(key.contains("layout=\(StoredAnswerFormat.version)"))
    }

    @Test("an entry under the key an older build used is not read: the call goes upstream")
    func oldLayoutKeyIsAMiss() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        let oldKey = CacheKey.encode(["detail", "openlibrary", "http://127.0.0.1:1/fixed", full.id.description])
        // Readable in today's layout too: only the key keeps it from being served.
        let old = ItemDetail(item: Item(id: full.id, kind: .book, title: "stored by an older build"))
        try await cache.store(CacheEntry(key: oldKey, provider: "openlibrary", kind: .detail, body: StoredAnswerEncoder.encode(old), storedAt: Date()))
        let provider = CachingProvider(wrapping: FixedProvider(page: SearchPage(items: []), detail: ItemDetail(item: full)), cache: cache)
        #expect(try await provider.detail(full.id) == ItemDetail(item: full))
    }

    @Test("an entry in another layout under the current key is a miss, not an error")
    func unreadableEntryIsAMiss() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        let upstream = FixedProvider(page: SearchPage(items: []), detail: ItemDetail(item: full))
        let key = CacheKey.detail(provider: "openlibrary", endpoint: upstream.endpoint, id: full.id)
        try await cache.store(CacheEntry(key: key, provider: "openlibrary", kind: .detail, body: Data(#"{"title":"old"}"#.utf8), storedAt: Date()))
        let provider = CachingProvider(wrapping: upstream, cache: cache)
        #expect(try await provider.detail(full.id) == ItemDetail(item: full))
    }
}
