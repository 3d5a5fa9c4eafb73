import Foundation

/// The engine's merging role: which records from several sources are one book, and the ranked rows
/// they make. SeekIdentity's `ResultMerger` is the one default (issue 48's identity rules); the
/// session wires it, and an embedder may give the engine another.
public protocol ResultMerging: Sendable {
    /// One ranked list, one row per book, from each provider's items in rank order, each provider's
    /// answer scored with its weight.
    func merge(
        _ lists: [(provider: String, items: [Item])], weights: [String: Double], ranking: RankingMethod, grouping: ResultGrouping
    ) -> [MergedResult]

    /// Calls `body` with each key under which `item` counts as one an earlier page showed (the keys
    /// its rows are joined by), for `SearchCursor`.
    func forEachMatchKey(of item: Item, _ body: (MatchKey) -> Void)
}

/// A key under which an item counts as seen: each ISBN-13, each other typed identifier, and (only
/// for books with no ISBN) the title key with its volume numbers, first creator's family name and
/// year, as the merger (`ResultMerging.forEachMatchKey`) reads them.
public enum MatchKey: Hashable, Sendable {
    case isbn(String)
    case identifier(String)
    case titleCreatorYear(String)

    /// The key as text, for fingerprints that must be stable across processes.
    public var text: String {
        switch self {
        case .isbn(let isbn): return "isbn:" + isbn
        case .identifier(let key): return "key:" + key
        case .titleCreatorYear(let key): return "twy:" + key
        }
    }
}

/// How a merged search groups records into rows (`--group`, `group=`, MCP `group`).
public enum ResultGrouping: String, Sendable, Hashable, CaseIterable, Codable {
    /// Every edition and format a source ties to one work is one row, listing its editions' ISBNs.
    case work
    /// Two records with different ISBN-13s never join; the title key joins only records of which one has no ISBN.
    case edition
}

/// Where one merged result came from: a provider, its item id there, its 1-based rank in that
/// list, and the provider's ranking weight (so a score can be explained from its sources alone).
public struct ResultSource: Sendable, Hashable, Codable {
    public var provider: String
    public var id: ItemID
    public var rank: Int
    public var weight: Double
    /// The key that joined this source to its row's first (`isbn 9780618640157`, `doi 10.1000/x`,
    /// `title+creator lord of the rings / tolkien / 1954`); nil for a row's first source.
    public var joinedBy: String?

    public init(provider: String, id: ItemID, rank: Int, weight: Double = 1, joinedBy: String? = nil) {
        self.provider = provider
        self.id = id
        self.rank = rank
        self.weight = weight
        self.joinedBy = joinedBy
    }
}

/// One row of a merged search: the combined item, its score and every source that had it.
public struct MergedResult: Sendable, Hashable {
    public var item: Item
    public var score: Double
    public var sources: [ResultSource]
    /// Which provider supplied each merged field (`title`, `creators`, `year`, `image`, …).
    public var provenance: [String: String]

    public init(item: Item, score: Double, sources: [ResultSource], provenance: [String: String] = [:]) {
        self.item = item
        self.score = score
        self.sources = sources
        self.provenance = provenance
    }
}
