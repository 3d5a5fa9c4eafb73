import Foundation

/// Merges per-provider result lists into one ranked list, one row per book.
///
/// Identity: books that share a verified ISBN-13 (ISBN-10s are converted, bad check digits dropped)
/// are one row — union-find, so A=B by one ISBN and B=C by another join all three. Only books with
/// no ISBN fall back to normalised title + first creator + year. GIFs never merge. A key shared by
/// two items of the same provider joins nothing: its distinct ids are its own distinct records.
///
/// Score: `RankingMethod` — SearXNG's |P| · Πw · Σ 1/p by default, or reciprocal rank fusion.
///
/// Field policy (each field's provider is kept in `provenance`): title and url from the best-ranked
/// source, subtitle from the best-ranked source that has one, creators from the source naming the
/// most, the earliest year, the largest image (by size, then pixels), identifiers united. For full
/// records (`mergeDetails`) also the longest description, and subjects and publishers united.
public enum ResultMerger {
    public static func merge(
        _ lists: [(provider: String, items: [Item])], weights: [String: Double] = [:], ranking: RankingMethod = .searxng
    ) -> [MergedResult] {
        // Entries point into `lists` rather than copying items; `order` is the list's index.
        struct Entry { let order: Int; let index: Int }
        var entries: [Entry] = []
        entries.reserveCapacity(lists.reduce(0) { $0 + $1.items.count })
        for (order, list) in lists.enumerated() {
            for index in list.items.indices { entries.append(Entry(order: order, index: index)) }
        }
        func item(_ entry: Entry) -> Item { lists[entry.order].items[entry.index] }

        // A provider's own distinct ids are distinct records (Open Library lists box-set ISBNs under
        // each volume's work, say): a shared key joins items of different providers only. Two items
        // of one provider still meet in a row through another provider's record that matches both.
        var sets = UnionFind(count: entries.count)
        var owner = [MatchKey: Int](minimumCapacity: entries.count)
        for (position, entry) in entries.enumerated() {
            forEachMatchKey(of: item(entry)) { key in
                guard let other = owner[key] else { owner[key] = position; return }
                if entries[other].order != entry.order { sets.union(position, other) }
            }
        }
        // Groups as linked lists through `next`, in entry order: no array per group.
        var groupOfRoot = [Int](repeating: -1, count: entries.count)
        var heads: [Int] = [], tails: [Int] = []
        var next = [Int](repeating: -1, count: entries.count)
        for position in entries.indices {
            let root = sets.find(position)
            let group = groupOfRoot[root]
            if group < 0 {
                groupOfRoot[root] = heads.count
                heads.append(position)
                tails.append(position)
            } else {
                next[tails[group]] = position
                tails[group] = position
            }
        }
        var results: [(result: MergedResult, rank: Int, order: Int)] = []
        results.reserveCapacity(heads.count)
        // Provenance of single-source rows, shared by list and fields present (copy-on-write: no copies).
        var singleProvenance = [[[String: String]?]](repeating: [], count: lists.count)
        for head in heads {
            guard next[head] >= 0 else {
                let entry = entries[head], provider = lists[entry.order].provider, single = item(entry)
                let source = ResultSource(provider: provider, id: single.id, rank: entry.index + 1, weight: weights[provider] ?? 1)
                let mask = fieldMask(single)
                if singleProvenance[entry.order].isEmpty { singleProvenance[entry.order] = Array(repeating: nil, count: 64) }
                let provenance = singleProvenance[entry.order][mask] ?? provenance(of: single, from: provider)
                singleProvenance[entry.order][mask] = provenance
                let sources = [source]
                let result = MergedResult(item: single, score: ranking.score(sources), sources: sources, provenance: provenance)
                results.append((result, entry.index + 1, entry.order))
                continue
            }
            var members: [Entry] = []
            var cursor = head
            while cursor >= 0 {
                members.append(entries[cursor])
                cursor = next[cursor]
            }
            members.sort { ($0.index, $0.order) < ($1.index, $1.order) }
            guard let best = members.first else { continue }
            let sources = members.map { entry in
                let provider = lists[entry.order].provider
                return ResultSource(provider: provider, id: item(entry).id, rank: entry.index + 1, weight: weights[provider] ?? 1)
            }
            let (merged, provenance) = combine(
                best: (item(best), lists[best.order].provider),
                others: members.dropFirst().map { (item($0), lists[$0.order].provider) })
            let result = MergedResult(item: merged, score: ranking.score(sources), sources: sources, provenance: provenance)
            results.append((result, best.index + 1, best.order))
        }
        // Ties (e.g. a book and a GIF both first in their lists) go to the better rank, then provider order.
        results.sort { lhs, rhs in
            if lhs.result.score != rhs.result.score { return lhs.result.score > rhs.result.score }
            return (lhs.rank, lhs.order) < (rhs.rank, rhs.order)
        }
        return results.map(\.result)
    }

    /// Which optional fields an item has, as bits (subtitle, creators, year, image, url).
    private static func fieldMask(_ item: Item) -> Int {
        (item.subtitle != nil ? 1 : 0) | (item.creators.isEmpty ? 0 : 2) | (item.year != nil ? 4 : 0)
            | (item.images.isEmpty ? 0 : 8) | (item.address != nil ? 16 : 0)
    }

    /// What a single source gives: every field it has is its own.
    private static func provenance(of item: Item, from provider: String) -> [String: String] {
        var provenance = ["title": provider]
        if item.subtitle != nil { provenance["subtitle"] = provider }
        if !item.creators.isEmpty { provenance["creators"] = provider }
        if item.year != nil { provenance["year"] = provider }
        if !item.images.isEmpty { provenance["image"] = provider }
        if item.address != nil { provenance["url"] = provider }
        return provenance
    }

    /// Combines full records of one book (best-ranked first): the item under the item policy, the
    /// longest description, subjects and publishers united; `provenance` says who gave what.
    public static func mergeDetails(_ details: [(provider: String, detail: ItemDetail)]) -> (detail: ItemDetail, provenance: [String: String])? {
        guard let first = details.first else { return nil }
        let (item, itemProvenance) = combine(best: (first.detail.item, first.provider),
                                             others: details.dropFirst().map { ($0.detail.item, $0.provider) })
        var detail = first.detail
        var provenance = itemProvenance
        detail.item = item
        if let longest = details.filter({ $0.detail.description?.isEmpty == false })
            .max(by: { ($0.detail.description?.count ?? 0) < ($1.detail.description?.count ?? 0) }) {
            detail.description = longest.detail.description
            provenance["description"] = longest.provider
        }
        for (_, other) in details.dropFirst() {
            for subject in other.subjects where !detail.subjects.contains(subject) { detail.subjects.append(subject) }
            for publisher in other.publishers where !detail.publishers.contains(publisher) { detail.publishers.append(publisher) }
            if detail.pageCount == nil { detail.pageCount = other.pageCount }
            if detail.publishDate == nil { detail.publishDate = other.publishDate }
            detail.attributes.merge(other.attributes) { current, _ in current }
        }
        return (detail, provenance)
    }

    /// A key under which two books are the same work: a verified ISBN-13, or (only for books with
    /// none) normalised title + first creator + year. An ISBN fits a small string: no allocation.
    enum MatchKey: Hashable {
        case isbn(String)
        case titleCreatorYear(String)

        /// The key as text, for fingerprints that must be stable across processes.
        var text: String {
            switch self {
            case .isbn(let isbn): return "isbn:" + isbn
            case .titleCreatorYear(let key): return "twy:" + key
            }
        }
    }

    /// Calls `body` with each key under which `item` is the same work as another. GIFs have none.
    static func forEachMatchKey(of item: Item, _ body: (MatchKey) -> Void) {
        guard item.kind == .book else { return }
        if !item.identifiers.isbn13.isEmpty {
            for isbn in item.identifiers.isbn13 { body(.isbn(isbn)) }
            return
        }
        let title = normalise(item.title)
        guard !title.isEmpty else { return }
        let creator = item.creators.first.map(normalise) ?? ""
        body(.titleCreatorYear("\(title)|\(creator)|\(item.year.map(String.init) ?? "")"))
    }

    /// The keys of `forEachMatchKey` as an array.
    static func matchKeys(_ item: Item) -> [MatchKey] {
        var keys: [MatchKey] = []
        forEachMatchKey(of: item) { keys.append($0) }
        return keys
    }

    /// Lowercased letters and digits only, diacritics folded. ASCII text takes a fast path, and so
    /// does text of ASCII, Hangul syllables and CJK ideographs (Aladin's titles and authors).
    public static func normalise(_ text: String) -> String {
        if text.isASCII {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count)
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): bytes.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte + 32)
                default: break
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return normalisedHangulOrCJK(text) ?? normalisedByFoundation(text)
    }

    /// `normalise` of text whose scalars are all ASCII, Hangul syllables or CJK unified ideographs;
    /// nil for any other. Folding leaves those syllables and ideographs as they are (the tests check
    /// every one against Foundation), so only ASCII changes: Foundation's folding cost about 12 K
    /// instructions a string, more than half of a miss's merge when the answers differ (issue 30).
    static func normalisedHangulOrCJK(_ text: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x61...0x7A, 0x30...0x39, 0xAC00...0xD7A3, 0x4E00...0x9FFF: scalars.append(scalar)
            case 0x41...0x5A: scalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value + 32)))
            case 0...0x7F: continue
            default: return nil
            }
        }
        return String(scalars)
    }

    /// `normalise` through Foundation's folding, for any text.
    package static func normalisedByFoundation(_ text: String) -> String {
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
            item.identifiers.add(isbns: other.identifiers.isbn13 + other.identifiers.isbn10)
            item.identifiers.other.merge(other.identifiers.other) { current, _ in current }
        }
        if item.address == nil, let other = members.first(where: { $0.0.address != nil }) {
            item.address = other.0.address
            provenance["url"] = other.1
        } else if item.address != nil { provenance["url"] = provider }
        return (item, provenance)
    }

    /// An item's biggest image as (size class, pixels), for comparing covers; (0, 0) without one.
    private static func largestSize(_ item: Item) -> ImageRank {
        guard let size = item.images.keys.max(), let image = item.images[size] else { return ImageRank(size: 0, pixels: 0) }
        // Sizes come from upstreams: a product past `Int.max` counts as the largest, not as a trap.
        let (pixels, overflow) = (image.width ?? 0).multipliedReportingOverflow(by: image.height ?? 0)
        return ImageRank(size: size.rank + 1, pixels: overflow ? .max : pixels)
    }

    private struct ImageRank: Comparable {
        let size: Int
        let pixels: Int
        static func < (lhs: ImageRank, rhs: ImageRank) -> Bool { (lhs.size, lhs.pixels) < (rhs.size, rhs.pixels) }
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
