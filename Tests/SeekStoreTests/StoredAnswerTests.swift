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

    @Test("an entry an older build wrote (the hand-written item layout) is read back, and is the bytes written today")
    func olderBuildsEntriesStayReadable() async throws {
        // Written by the encoder before issue 51 (items by hand): the layout is the models' `Codable`
        // one either way, so the layout version and the cache keys are unchanged and these entries
        // stay valid. One image and one `other` identifier each, so the bytes have one order.
        let oldPage = #"{"items":[{"id":"openlibrary:OL45804W","kind":"book","title":"Fantastic Mr Fox \"quoted\" / ½ 위대한","subtitle":"A tale\nin two lines","creators":["Roald Dahl","Quentin Blake"],"year":1970,"identifiers":{"isbn13":["9780140328721","9780307352149"],"isbn10":["0140328726"],"other":{"openlibraryWork":"OL45804W"}},"images":["small",{"url":"https://covers.example/b/id/1-S.jpg","size":"small","width":40,"height":60}],"url":"https://openlibrary.org/works/OL45804W","owned":{"id":"calibre:7","formats":["EPUB"]}},{"id":"giphy:xT9","kind":"gif","title":"","creators":[],"identifiers":{"isbn13":[],"isbn10":[],"other":{}},"images":[]}],"total":251,"next":"20"}"#
        let oldDetail = #"{"item":{"id":"openlibrary:OL45804W","kind":"book","title":"Fantastic Mr Fox","subtitle":"A tale","creators":["Roald Dahl"],"year":1970,"identifiers":{"isbn13":["9780140328721"],"isbn10":["0140328726"],"other":{"openlibraryWork":"OL45804W"}},"images":["large",{"url":"https://covers.example/b/id/1-L.jpg","size":"large","width":180,"height":270}],"url":"https://openlibrary.org/works/OL45804W","owned":{"id":"calibre:7","formats":["EPUB","PDF"]}},"description":"A fox outwits three farmers.","contributors":[{"name":"Roald Dahl","role":"author"}],"subjects":["Foxes"],"publishers":["Puffin"],"publishDate":"1970","pageCount":96,"attributes":{"language":"eng"},"redirect":{"from":"openlibrary:OL1W","to":"openlibrary:OL45804W"},"note":"Built from a recorded search answer."}"#
        let item = Item(
            id: full.id, kind: .book, title: full.title, subtitle: full.subtitle, creators: full.creators, year: full.year,
            identifiers: Identifiers(isbns: ["0140328726", "9780307352149"], other: ["openlibraryWork": "OL45804W"]),
            images: [.small: ImageReference(url: URL(string: "https://covers.example/b/id/1-S.jpg")!, size: .small, width: 40, height: 60)],
            url: full.url, owned: OwnedCopy(id: ItemID(provider: "calibre", value: "7"), formats: ["EPUB"]))
        let page = SearchPage(items: [item, bare], total: 251, next: "20")
        #expect(String(decoding: CachedPage(page).storedJSON, as: UTF8.self) == oldPage)
        #expect(String(decoding: StoredAnswerFormat.sample.storedJSON, as: UTF8.self) == oldDetail)

        // Through the cache, under today's keys: served without calling upstream.
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        let upstream = FixedProvider(page: SearchPage(items: []), detail: ItemDetail(item: bare))
        let request = SearchRequest(query: "fox", limit: 2)
        let keys = (
            search: CacheKey.search(provider: "openlibrary", endpoint: upstream.endpoint, request: request),
            detail: CacheKey.detail(provider: "openlibrary", endpoint: upstream.endpoint, id: StoredAnswerFormat.sample.item.id))
        try await cache.store(CacheEntry(key: keys.search, provider: "openlibrary", kind: .search, body: Data(oldPage.utf8), storedAt: Date()))
        try await cache.store(CacheEntry(key: keys.detail, provider: "openlibrary", kind: .detail, body: Data(oldDetail.utf8), storedAt: Date()))
        let provider = CachingProvider(wrapping: upstream, cache: cache)
        #expect(try await provider.search(request) == page)
        #expect(try await provider.detail(StoredAnswerFormat.sample.item.id) == StoredAnswerFormat.sample)
    }

    @Test("a truncated entry under the current key is a miss: the call goes upstream, and its answer replaces the entry")
    func truncatedEntryIsAMiss() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let cache = SQLiteResponseCache(database: store.database)
        let upstream = FixedProvider(page: SearchPage(items: []), detail: ItemDetail(item: full))
        let key = CacheKey.detail(provider: "openlibrary", endpoint: upstream.endpoint, id: full.id)
        let whole = StoredAnswerFormat.sample.storedJSON
        try await cache.store(CacheEntry(key: key, provider: "openlibrary", kind: .detail, body: whole.prefix(whole.count / 2), storedAt: Date()))
        let provider = CachingProvider(wrapping: upstream, cache: cache)
        #expect(try await provider.detail(full.id) == ItemDetail(item: full))
        let replaced = try #require(try await cache.entry(forKey: key))
        #expect(try JSONDecoder().decode(ItemDetail.self, from: replaced.body) == ItemDetail(item: full))
    }

    @Test("integers of every width are written as JSONEncoder writes them (not handed back and forth for ever)")
    func everyIntegerWidth() throws {
        struct Widths: Codable, Equatable {
            var int8 = Int8.min, int16 = Int16.min, int32 = Int32.min, int64 = Int64.min
            var uint = UInt.max, uint8 = UInt8.max, uint16 = UInt16.max, uint32 = UInt32.max, uint64 = UInt64.max
            var inArray: [Int64] = [-1, Int64.max]
            var single = Wrapped()
        }
        struct Wrapped: Codable, Equatable {
            var value = UInt64.max
            init() {}
            init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(UInt64.self) }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(value)
            }
        }
        let bytes = StoredAnswerEncoder.encode(Widths())
        #expect(try JSONDecoder().decode(Widths.self, from: bytes) == Widths())
        let ours = try JSONSerialization.jsonObject(with: bytes) as? NSObject
        let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Widths())) as? NSObject
        #expect(ours != nil && ours == theirs)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""uint64":18446744073709551615"#))
    }

    @Test("shapes the streaming writer leaves to JSONEncoder (a Float, a nested container, a value that writes nothing) read back")
    func otherShapesFallBack() throws {
        struct Shapes: Codable, Equatable {
            var ratio: Float = 0.1
            var nested = Nested()
            var empty = Empty()
        }
        struct Nested: Codable, Equatable {
            var inner = 7
            init() {}
            init(from decoder: any Decoder) throws {
                inner = try decoder.container(keyedBy: Keys.self).nestedContainer(keyedBy: Keys.self, forKey: .box).decode(Int.self, forKey: .inner)
            }
            func encode(to encoder: any Encoder) throws {
                var outer = encoder.container(keyedBy: Keys.self)
                var box = outer.nestedContainer(keyedBy: Keys.self, forKey: .box)
                try box.encode(inner, forKey: .inner)
            }
            enum Keys: CodingKey { case box, inner }
        }
        struct Empty: Codable, Equatable {
            init() {}
            init(from decoder: any Decoder) throws {}
            func encode(to encoder: any Encoder) throws {}
        }
        let bytes = StoredAnswerEncoder.encode(Shapes())
        #expect(try JSONDecoder().decode(Shapes.self, from: bytes) == Shapes())
        #expect(try JSONDecoder().decode(Nested.self, from: StoredAnswerEncoder.encode(Nested())) == Nested())
        struct Holder: Codable, Equatable {
            var count = 1
            var empty = Empty()
        }
        #expect(try JSONDecoder().decode(Holder.self, from: StoredAnswerEncoder.encode(Holder())) == Holder())
        // Alone, a value that writes nothing is nothing JSONEncoder writes either: stored as `null`.
        #expect(String(decoding: StoredAnswerEncoder.encode(Empty()), as: UTF8.self) == "null")
        #expect(String(decoding: StoredAnswerEncoder.encode(Float(0.1)), as: UTF8.self) == "0.1")
    }

    @Test("a value the streaming writer does not handle (a Date) is written by JSONEncoder instead, and reads back")
    func unsupportedShapeFallsBack() throws {
        struct Dated: Codable, Equatable { var at: Date }
        let value = Dated(at: Date(timeIntervalSince1970: 1_000_000))
        #expect(try JSONDecoder().decode(Dated.self, from: StoredAnswerEncoder.encode(value)) == value)
    }

    @Test("arrays and dictionaries of strings (written without a container each) are JSONEncoder's, escapes included")
    func stringCollectionsAsJSONEncoder() throws {
        struct Strings: Codable, Equatable {
            var list = ["plain", "a \"quote\"", "back\\slash", "tab\tnew\nline\u{1}", "", "위대한 ½"]
            var empty: [String] = []
            var map = ["key \"quoted\"": "value\n", "": "", "plain": "위대한", "control\u{1F}": "\\"]
            var emptyMap: [String: String] = [:]
            var nested = [["a", "b"], [], ["\""]]
            var maps = [["k": "v"], [:]]
            var optionalList: [String]? = ["x"]
        }
        let bytes = StoredAnswerEncoder.encode(Strings())
        #expect(try JSONDecoder().decode(Strings.self, from: bytes) == Strings())
        let ours = try JSONSerialization.jsonObject(with: bytes) as? NSObject
        let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Strings())) as? NSObject
        #expect(ours != nil && ours == theirs)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""list":["plain","a \"quote\"","back\\slash","tab\tnew\nline\u0001","","위대한 ½"]"#))
    }

    @Test("optional members of every kind, present and absent, are JSONEncoder's (absent ones left out)")
    func optionalMembersAsJSONEncoder() throws {
        struct Inner: Codable, Equatable { var name = "inner" }
        struct Optionals: Codable, Equatable {
            var text: String?, number: Int?, flag: Bool?, ratio: Double?, inner: Inner?, list: [String]?, small: UInt8?
        }
        let present = Optionals(text: "t", number: -7, flag: false, ratio: 2.5, inner: Inner(), list: [], small: 255)
        for value in [present, Optionals()] {
            let bytes = StoredAnswerEncoder.encode(value)
            #expect(try JSONDecoder().decode(Optionals.self, from: bytes) == value)
            let ours = try JSONSerialization.jsonObject(with: bytes) as? NSObject
            let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? NSObject
            #expect(ours != nil && ours == theirs)
        }
        #expect(String(decoding: StoredAnswerEncoder.encode(Optionals()), as: UTF8.self) == "{}")
    }

    @Test("doubles: whole and fractional ones read back; a non-finite one is left to JSONEncoder, which refuses it, so it is stored as null, which no answer decodes from")
    func doublesAndNonFiniteFallBack() throws {
        struct Ratio: Codable, Equatable { var value: Double }
        for number in [0, 2, -3.25, 0.1, 1.5e300, 4_503_599_627_370_496.5, 1e17] {
            let bytes = StoredAnswerEncoder.encode(Ratio(value: number))
            #expect(try JSONDecoder().decode(Ratio.self, from: bytes) == Ratio(value: number))
        }
        #expect(String(decoding: StoredAnswerEncoder.encode(Ratio(value: 96)), as: UTF8.self) == #"{"value":96}"#)
        for number in [Double.infinity, -.infinity, .nan] {
            #expect((try? JSONEncoder().encode(Ratio(value: number))) == nil)
            let bytes = StoredAnswerEncoder.encode(Ratio(value: number))
            #expect(String(decoding: bytes, as: UTF8.self) == "null")
            #expect((try? JSONDecoder().decode(Ratio.self, from: bytes)) == nil)
        }
    }

    @Test("a value nested deeper than the streaming writer follows (64 containers) is written by JSONEncoder, and reads back")
    func deepNestingFallsBack() throws {
        struct Node: Codable, Equatable {
            var children: [Node] = []
        }
        func nested(_ depth: Int) -> Node {
            var node = Node()
            for _ in 0..<depth { node = Node(children: [node]) }
            return node
        }
        // Each level is an object and an array: 31 levels are 63 containers, 40 are 81.
        for depth in [31, 40] {
            let bytes = StoredAnswerEncoder.encode(nested(depth))
            #expect(try JSONDecoder().decode(Node.self, from: bytes) == nested(depth))
            let ours = try JSONSerialization.jsonObject(with: bytes) as? NSObject
            let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(nested(depth))) as? NSObject
            #expect(ours != nil && ours == theirs)
        }
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
