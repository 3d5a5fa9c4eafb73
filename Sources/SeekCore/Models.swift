import Foundation

/// What an item is: a book, a GIF, …
public struct ItemKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let book = ItemKind(rawValue: "book")
    public static let gif = ItemKind(rawValue: "gif")
    public var description: String { rawValue }
}

/// A capability a provider may offer beyond the basics.
public enum ProviderCapability: String, Sendable, Codable, CaseIterable {
    case search, detail, image, trending, suggest
}

/// How a provider pages through results.
public enum PagingStyle: String, Sendable, Codable {
    case page, offset, cursor
}

/// Image sizes every provider maps its renditions to.
public enum ImageSize: String, Sendable, Codable, CaseIterable, Comparable {
    case small, medium, large, original

    /// Smallest first. `allCases` builds a new array each time it is asked for.
    public static let ascending: [ImageSize] = allCases

    /// The size's place, smallest first: what comparing, equality and hashing use. A raw-value
    /// enumeration otherwise hashes and compares its `String` raw value (every image dictionary of
    /// every result did, issue 30).
    public var rank: Int {
        switch self {
        case .small: 0
        case .medium: 1
        case .large: 2
        case .original: 3
        }
    }

    public static func < (lhs: ImageSize, rhs: ImageSize) -> Bool { lhs.rank < rhs.rank }

    public static func == (lhs: ImageSize, rhs: ImageSize) -> Bool { lhs.rank == rhs.rank }

    public func hash(into hasher: inout Hasher) { hasher.combine(rank) }
}

/// One image rendition of an item.
public struct ImageReference: Sendable, Hashable, Codable {
    /// The URL as text: what hosts write, without parsing it.
    public var address: URLText
    public var size: ImageSize
    public var width: Int?
    public var height: Int?

    public var url: URL {
        get { address.url }
        set { address = URLText(newValue) }
    }

    public init(url: URL, size: ImageSize, width: Int? = nil, height: Int? = nil) {
        self.init(address: URLText(url), size: size, width: width, height: height)
    }

    public init(address: URLText, size: ImageSize, width: Int? = nil, height: Int? = nil) {
        self.address = address
        self.size = size
        self.width = width
        self.height = height
    }

    private enum CodingKeys: String, CodingKey {
        case address = "url", size, width, height
    }
}

/// Identifiers that let the aggregator recognise one book across providers.
public struct Identifiers: Sendable, Hashable, Codable {
    /// Valid ISBN-13s (ISBN-10s are converted on insertion), without duplicates.
    public private(set) var isbn13: [String] = []
    /// Valid ISBN-10s as given by the source.
    public private(set) var isbn10: [String] = []
    /// Other identifiers by scheme, e.g. `openlibraryWork`, `aladinItemId`, `giphy`.
    public var other: [String: String] = [:]

    public init(isbns: [String] = [], other: [String: String] = [:]) {
        self.other = other
        add(isbns: isbns)
    }

    /// Adds one ISBN (10 or 13, with or without hyphens, spaces and an "ISBN" label): an ISBN-10 is kept
    /// and its ISBN-13 added; anything invalid is ignored. For catalogue text (qualifiers, several ISBNs
    /// in a field, other scripts' digits), SeekKit's `add(isbnsIn:)` reads it first.
    public mutating func add(isbn raw: String) {
        add(isbns: CollectionOfOne(raw))
    }

    /// Adds each ISBN of `isbns` as `add(isbn:)` does, in linear time however many there are.
    public mutating func add(isbns: some Sequence<String>) {
        var tens: [String] = []
        var thirteens: [String] = []
        for raw in isbns {
            let cleaned = ISBN.clean(raw)
            if ISBN.isValid13(cleaned) {
                thirteens.append(cleaned)
            } else if let thirteen = ISBN.isbn13(from: cleaned) {
                tens.append(cleaned)
                thirteens.append(thirteen)
            }
        }
        ISBN.appendUnique(tens, to: &isbn10)
        ISBN.appendUnique(thirteens, to: &isbn13)
    }

    public var isEmpty: Bool { isbn13.isEmpty && isbn10.isEmpty && other.isEmpty }
}

/// One search result from one provider.
public struct Item: Sendable, Hashable, Codable {
    public var id: ItemID
    public var kind: ItemKind
    public var title: String
    public var subtitle: String?
    public var creators: [String]
    public var year: Int?
    public var identifiers: Identifiers
    /// Renditions by size; a provider fills what it knows.
    public var images: [ImageSize: ImageReference]
    /// The item's page on the provider's site, as text: what hosts write, without parsing it.
    public var address: URLText?
    /// The reader's own copy of this book, when a library source (Calibre) has it: set by that source
    /// on its items, and by the engine on a merged row one of them joined (`SearchEngine.merge`).
    public var owned: OwnedCopy?

    /// The item's page on the provider's site.
    public var url: URL? {
        get { address?.url }
        set { address = newValue.map(URLText.init) }
    }

    public init(
        id: ItemID, kind: ItemKind, title: String, subtitle: String? = nil, creators: [String] = [],
        year: Int? = nil, identifiers: Identifiers = Identifiers(), images: [ImageSize: ImageReference] = [:],
        url: URL? = nil, owned: OwnedCopy? = nil
    ) {
        self.id = id
        self.kind = kind
        self.title = title
        self.subtitle = subtitle
        self.creators = creators
        self.year = year
        self.identifiers = identifiers
        self.images = images
        self.address = url.map(URLText.init)
        self.owned = owned
    }

    private enum CodingKeys: String, CodingKey {
        case id, kind, title, subtitle, creators, year, identifiers, images, address = "url", owned
    }

    public var provider: String { id.provider }

    /// The rendition closest to `size`: the size itself, else the next larger, else the largest smaller.
    public func image(_ size: ImageSize) -> ImageReference? {
        if let exact = images[size] { return exact }
        for larger in ImageSize.ascending where larger > size {
            if let image = images[larger] { return image }
        }
        for smaller in ImageSize.ascending.reversed() where smaller < size {
            if let image = images[smaller] { return image }
        }
        return nil
    }
}

/// A book the reader owns: the library record's id (`calibre:42`) and the formats kept there
/// (`EPUB`, `PDF`), upper case as the library names them.
public struct OwnedCopy: Sendable, Hashable, Codable {
    public var id: ItemID
    public var formats: [String]

    public init(id: ItemID, formats: [String]) {
        self.id = id
        self.formats = formats
    }
}

/// A person credited on an item, with a role when the source gives one.
public struct Contributor: Sendable, Hashable, Codable {
    public var name: String
    public var role: String?
    public init(name: String, role: String? = nil) {
        self.name = name
        self.role = role
    }
}

/// The full record of one item.
public struct ItemDetail: Sendable, Hashable, Codable {
    public var item: Item
    public var description: String?
    public var contributors: [Contributor]
    public var subjects: [String]
    public var publishers: [String]
    public var publishDate: String?
    public var pageCount: Int?
    /// Provider-specific facts worth showing (price, sales point, category, rating, …).
    public var attributes: [String: String]
    /// Set when the id asked for led the provider to another record (a merged Open Library work):
    /// the id asked for and the id it was redirected to, which `item` must then carry.
    public var redirect: ItemRedirect?
    /// A word to the reader about the record itself, not the book (a demo record built from a
    /// recorded search answer says so here); shown apart from the description.
    public var note: String?

    public init(
        item: Item, description: String? = nil, contributors: [Contributor] = [], subjects: [String] = [],
        publishers: [String] = [], publishDate: String? = nil, pageCount: Int? = nil, attributes: [String: String] = [:],
        redirect: ItemRedirect? = nil, note: String? = nil
    ) {
        self.item = item
        self.description = description
        self.contributors = contributors
        self.subjects = subjects
        self.publishers = publishers
        self.publishDate = publishDate
        self.pageCount = pageCount
        self.attributes = attributes
        self.redirect = redirect
        self.note = note
    }
}

/// A provider's word that the id asked for now lives under another id: `from` exactly as it was
/// asked (the `ItemID` the provider was given), `to` the record it fetched instead.
public struct ItemRedirect: Sendable, Hashable, Codable {
    public var from: ItemID
    public var to: ItemID

    public init(from: ItemID, to: ItemID) {
        self.from = from
        self.to = to
    }
}

/// What to search for, and which page of it.
public struct SearchRequest: Sendable, Hashable {
    public var query: String
    /// 1-based page number; ignored when `cursor` is set.
    public var page: Int
    /// A provider's own continuation token from a previous `SearchPage.next`.
    public var cursor: String?
    public var limit: Int
    /// ISO 639-1 language preference, when the user gave one.
    public var language: String?

    /// `page` and `limit` are clamped to `1...maxPage` and `1...maxLimit`, so that no arithmetic on
    /// them can overflow; hosts reject deeper pages before asking (`checkedOffset(page:limit:)`).
    public init(query: String, page: Int = 1, cursor: String? = nil, limit: Int = SearchBounds.defaultLimit, language: String? = nil) {
        self.query = query
        self.page = min(max(1, page), Self.maxPage)
        self.cursor = cursor
        self.limit = min(max(1, limit), Self.maxLimit)
        self.language = language
    }

    /// How deep seek pages: the first result of a page (or an offset cursor) is at most this far in.
    /// Past it no provider serves anything useful (Aladin stops at 200, GIPHY at 5,000) and a forged
    /// `--page` or cursor must not make arithmetic overflow.
    public static let maxOffset = 100_000
    /// The largest page a request carries (a page of one result at `maxOffset`).
    public static let maxPage = maxOffset + 1
    /// The largest page size a request carries.
    public static let maxLimit = 1000

    /// The offset of the first result of `page` (1-based) at `limit` a page: `(page − 1) × limit`, or nil
    /// when the page is below 1, the limit below 1, or the offset past `maxOffset` (overflow included).
    public static func checkedOffset(page: Int, limit: Int) -> Int? {
        guard page >= 1, limit >= 1 else { return nil }
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: limit)
        guard !overflow, offset <= maxOffset else { return nil }
        return offset
    }

    /// The 0-based offset of the first wanted result: the cursor when it is an offset, else from the page;
    /// never more than `maxOffset`.
    public var offset: Int {
        if let cursor, let value = Int(cursor), value >= 0 { return min(value, Self.maxOffset) }
        return Self.checkedOffset(page: page, limit: limit) ?? Self.maxOffset
    }
}

/// One page of results from one provider.
public struct SearchPage: Sendable, Hashable {
    public var items: [Item]
    /// Total hits, when the provider reports it.
    public var total: Int?
    /// Continuation token for the next page; nil when there is no more.
    public var next: String?
    /// Set when these items are a cached copy served because the provider failed with this error.
    public var staleBecause: SeekError?

    public init(items: [Item], total: Int? = nil, next: String? = nil, staleBecause: SeekError? = nil) {
        self.items = items
        self.total = total
        self.next = next
        self.staleBecause = staleBecause
    }

    /// The next cursor for offset-paged providers: `offset + count` unless the end is reached.
    /// Paging stops at `SearchRequest.maxOffset`.
    public static func nextOffset(after request: SearchRequest, received: Int, total: Int?, ceiling: Int? = nil) -> String? {
        guard received > 0 else { return nil }
        let (next, overflow) = request.offset.addingReportingOverflow(received)
        guard !overflow, next <= SearchRequest.maxOffset else { return nil }
        if let total, next >= total { return nil }
        if let ceiling, next >= ceiling { return nil }
        return String(next)
    }
}
