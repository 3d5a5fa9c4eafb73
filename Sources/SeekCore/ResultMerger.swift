import Foundation

/// Merges per-provider result lists into one ranked list, one row per book.
///
/// Books that share a verified ISBN-13 are one row (union-find, so A=B and B=C join all three);
/// books with no ISBN on either side fall back to normalised title + first creator + year.
/// Score is SearXNG's: |P| · Πw · Σ 1/p over the row's positions p in each provider's list.
///
/// Field policy: title, subtitle and url from the best-ranked source; creators from the source
/// with the most; the earliest year; the largest image; identifiers united.
public enum ResultMerger {
    public static func merge(_ lists: [(provider: String, items: [Item])], weights: [String: Double] = [:]) -> [MergedResult] {
        struct Entry { let item: Item; let provider: String; let rank: Int; let order: Int }
        var entries: [Entry] = []
        for (listIndex, list) in lists.enumerated() {
            for (index, item) in list.items.enumerated() {
                entries.append(Entry(item: item, provider: list.provider, rank: index + 1, order: listIndex))
            }
        }
        var sets = UnionFind(count: entries.count)
        var owner: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            for key in matchKeys(entry.item) {
                if let other = owner[key] { sets.union(index, other) } else { owner[key] = index }
            }
        }
        var groups: [Int: [Int]] = [:]
        var groupOrder: [Int] = []
        for index in entries.indices {
            let root = sets.find(index)
            if groups[root] == nil { groupOrder.append(root) }
            groups[root, default: []].append(index)
        }
        var results: [(MergedResult, Int, Int)] = []
        for root in groupOrder {
            let members = (groups[root] ?? []).map { entries[$0] }
                .sorted { ($0.rank, $0.order) < ($1.rank, $1.order) }
            guard let best = members.first else { continue }
            let providers = Set(members.map(\.provider))
            let weight = providers.reduce(1.0) { $0 * (weights[$1] ?? 1) }
            let score = Double(providers.count) * weight * members.reduce(0) { $0 + 1 / Double($1.rank) }
            let sources = members.map { ResultSource(provider: $0.provider, id: $0.item.id, rank: $0.rank) }
            let (item, provenance) = combine(best: (best.item, best.provider), others: members.dropFirst().map { ($0.item, $0.provider) })
            results.append((MergedResult(item: item, score: score, sources: sources, provenance: provenance), best.rank, best.order))
        }
        return results.sorted { lhs, rhs in
            if lhs.0.score != rhs.0.score { return lhs.0.score > rhs.0.score }
            return (lhs.1, lhs.2) < (rhs.1, rhs.2)
        }.map(\.0)
    }

    /// Keys under which two items are the same work. GIFs never merge.
    static func matchKeys(_ item: Item) -> [String] {
        guard item.kind == .book else { return [] }
        if !item.identifiers.isbn13.isEmpty { return item.identifiers.isbn13.map { "isbn:" + $0 } }
        let title = normalise(item.title)
        guard !title.isEmpty else { return [] }
        let creator = item.creators.first.map(normalise) ?? ""
        return ["twy:\(title)|\(creator)|\(item.year.map(String.init) ?? "")"]
    }

    /// Lowercased letters and digits only, diacritics folded.
    public static func normalise(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        return String(folded.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// Combines items (best-ranked first) under the field policy, noting each field's provider.
    static func combine(best: (Item, String), others: [(Item, String)]) -> (Item, [String: String]) {
        var (item, provider) = best
        let members = [best] + others
        var provenance = ["title": provider]
        if item.subtitle == nil, let other = members.first(where: { $0.0.subtitle != nil }) {
            item.subtitle = other.0.subtitle
            provenance["subtitle"] = other.1
        } else if item.subtitle != nil { provenance["subtitle"] = provider }
        if let most = members.max(by: { $0.0.creators.count < $1.0.creators.count }), most.0.creators.count > item.creators.count {
            item.creators = most.0.creators
            provenance["creators"] = most.1
        } else if !item.creators.isEmpty { provenance["creators"] = provider }
        if let earliest = members.filter({ $0.0.year != nil }).min(by: { ($0.0.year ?? 0) < ($1.0.year ?? 0) }) {
            item.year = earliest.0.year
            provenance["year"] = earliest.1
        }
        if let largest = members.max(by: { largestSize($0.0) < largestSize($1.0) }), largestSize(largest.0) > largestSize(item) {
            item.images = largest.0.images
            provenance["image"] = largest.1
        } else if !item.images.isEmpty { provenance["image"] = provider }
        for (other, _) in others {
            for isbn in other.identifiers.isbn13 + other.identifiers.isbn10 { item.identifiers.add(isbn: isbn) }
            item.identifiers.other.merge(other.identifiers.other) { current, _ in current }
        }
        if item.url == nil, let other = members.first(where: { $0.0.url != nil }) {
            item.url = other.0.url
            provenance["url"] = other.1
        } else if item.url != nil { provenance["url"] = provider }
        return (item, provenance)
    }

    private static func largestSize(_ item: Item) -> Int {
        item.images.keys.map { (ImageSize.allCases.firstIndex(of: $0) ?? -1) + 1 }.max() ?? 0
    }
}

/// Disjoint sets with path compression.
struct UnionFind {
    private var parent: [Int]

    init(count: Int) { parent = Array(0..<count) }

    mutating func find(_ index: Int) -> Int {
        var root = index
        while parent[root] != root { root = parent[root] }
        var node = index
        while parent[node] != root {
            let next = parent[node]
            parent[node] = root
            node = next
        }
        return root
    }

    mutating func union(_ a: Int, _ b: Int) {
        let rootA = find(a), rootB = find(b)
        if rootA != rootB { parent[max(rootA, rootB)] = min(rootA, rootB) }
    }
}
