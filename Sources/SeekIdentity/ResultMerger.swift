import Foundation
import SeekCore

/// Merges per-provider result lists into one ranked list, one row per book.
///
/// Identity (issue 48, `BookIdentity`): records that share a typed identifier — a verified ISBN-13
/// (ISBN-10s converted, bad check digits dropped), a DOI, an OCLC number, an LCCN, an Open Library
/// work or edition id — are one row, by union-find, so A=B by one key and B=C by another join all
/// three. Across sources, records also join on a guarded title key: normalised title, creators'
/// family names and year, with volume numbers, box sets, generic titles and languages guarded. A
/// part (chapter, entry) is never identified by its container's ISBN. Keys are blocked in
/// dictionaries: no page compares every pair. GIFs never merge. A key shared by two items of the
/// same provider joins nothing: its distinct ids are its own distinct records.
///
/// `grouping`: `.work` joins a work's editions; `.edition` never joins two records whose ISBN-13s
/// differ (nor rows holding such records), and Open Library work ids join nothing.
///
/// Each source of a row after its first says which key joined it (`ResultSource.joinedBy`).
///
/// Score: `RankingMethod` — SearXNG's |P| · Πw · Σ 1/p by default, or reciprocal rank fusion.
///
/// Field policy (each field's provider is kept in `provenance`): title and url from the best-ranked
/// source, subtitle from the best-ranked source that has one, creators from the source naming the
/// most, the earliest year, the largest image (by size, then pixels), identifiers united. For full
/// records (`mergeDetails`) also the longest description, and subjects and publishers united.
public struct ResultMerger: Sendable {
    public init() {}

    /// The most records of one block (a title and a family name) compared pair by pair: a page of
    /// one author's "Poems" from many sources stays near-linear.
    static let blockLimit = 48

    public static func merge(
        _ lists: [(provider: String, items: [Item])], weights: [String: Double] = [:], ranking: RankingMethod = .searxng,
        grouping: ResultGrouping = .work
    ) -> [MergedResult] {
        var joining = Joining(lists, grouping: grouping)
        joining.joinByKeys()
        joining.joinByTitles()
        let entries = joining.entries

        // Groups as linked lists through `next`, in entry order: no array per group.
        var groupOfRoot = [Int](repeating: -1, count: entries.count)
        var heads: [Int] = [], tails: [Int] = []
        var next = [Int](repeating: -1, count: entries.count)
        for position in entries.indices {
            let root = joining.sets.find(position)
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
        // Each group's joins, for saying how each of its sources joined: lists through `nextJoin`, in
        // the order they were made (no array per group).
        var firstJoin = [Int](repeating: -1, count: joining.edges.isEmpty ? 0 : heads.count)
        var nextJoin = [Int](repeating: -1, count: joining.edges.count)
        for index in joining.edges.indices.reversed() {
            let group = groupOfRoot[joining.sets.find(joining.edges[index].a)]
            nextJoin[index] = firstJoin[group]
            firstJoin[group] = index
        }

        var results: [(result: MergedResult, rank: Int, order: Int)] = []
        results.reserveCapacity(heads.count)
        // Provenance of single-source rows, shared by list and fields present (copy-on-write: no copies).
        var singleProvenance = [[[String: String]?]](repeating: [], count: lists.count)
        var jointProvenance: [UInt64: [String: String]] = [:]
        var members: [Int] = [], rowEntries: [Entry] = []
        for (group, head) in heads.enumerated() {
            guard next[head] >= 0 else {
                // The record read where it lies, and copied once: into its row.
                let entry = entries[head], provider = lists[entry.order].provider
                let source = ResultSource(
                    provider: provider, id: lists[entry.order].items[entry.index].id, rank: entry.index + 1, weight: weights[provider] ?? 1)
                let mask = fieldMask(lists[entry.order].items[entry.index])
                if singleProvenance[entry.order].isEmpty { singleProvenance[entry.order] = Array(repeating: nil, count: 64) }
                let provenance = singleProvenance[entry.order][mask] ?? provenance(of: lists[entry.order].items[entry.index], from: provider)
                singleProvenance[entry.order][mask] = provenance
                let sources = [source]
                let result = MergedResult(
                    item: lists[entry.order].items[entry.index], score: ranking.score(sources), sources: sources, provenance: provenance)
                results.append((result, entry.index + 1, entry.order))
                continue
            }
            members.removeAll(keepingCapacity: true)
            var cursor = head
            while cursor >= 0 {
                members.append(cursor)
                cursor = next[cursor]
            }
            members.sort { (entries[$0].index, entries[$0].order) < (entries[$1].index, entries[$1].order) }
            guard let best = members.first else { continue }
            joining.explain(members, firstJoin: firstJoin.isEmpty ? -1 : firstJoin[group], nextJoin: nextJoin)
            var sources: [ResultSource] = []
            sources.reserveCapacity(members.count)
            for (offset, position) in members.enumerated() {
                let entry = entries[position], provider = lists[entry.order].provider
                sources.append(ResultSource(
                    provider: provider, id: lists[entry.order].items[entry.index].id, rank: entry.index + 1, weight: weights[provider] ?? 1,
                    joinedBy: joining.reasons[offset]))
            }
            rowEntries.removeAll(keepingCapacity: true)
            for position in members { rowEntries.append(entries[position]) }
            let (merged, fields) = combine(lists, rowEntries)
            // Rows whose fields came from the same lists share one provenance (copy-on-write: no copies).
            let provenance: [String: String]
            if let key = fields.key {
                provenance = jointProvenance[key] ?? fields.provenance(lists)
                jointProvenance[key] = provenance
            } else {
                provenance = fields.provenance(lists)
            }
            let result = MergedResult(item: merged, score: ranking.score(sources), sources: sources, provenance: provenance)
            results.append((result, entries[best].index + 1, entries[best].order))
        }
        // Ties (e.g. a book and a GIF both first in their lists) go to the better rank, then provider order.
        // Sorted by place, not by moving whole rows about.
        let order = results.indices.sorted { left, right in
            let lhs = results[left], rhs = results[right]
            if lhs.result.score != rhs.result.score { return lhs.result.score > rhs.result.score }
            return (lhs.rank, lhs.order) < (rhs.rank, rhs.order)
        }
        return order.map { results[$0].result }
    }

    /// A record of the merge: `order` is its list's index, `index` its place in that list.
    private struct Entry { let order: Int; let index: Int }

    /// Which records of a merge are one book: their identities, read when needed, and the joins made.
    /// Its state is its own (no closure captures it), so reading and writing it needs no checks at run time.
    private struct Joining {
        let lists: [(provider: String, items: [Item])]
        let grouping: ResultGrouping
        /// Entries point into `lists` rather than copying items.
        var entries: [Entry] = []
        /// Each record's identity in full (title key, creators, numbers) is read only when needed: for
        /// records that share a rough title with another source's, or that an identifier would join.
        /// Read in place (`readIdentity`) and compared where it lies: a copy retains every field.
        var identities: [BookIdentity]
        var identityRead: [Bool]
        var scans: [BookIdentity.Scan]
        var roughs: [UInt64]
        var memo = IdentityMemo()
        var hasISBN: [Bool]
        var sets: Components
        var edges: [Join] = []
        /// Records by rough title, for comparing titles: each block's first and last record and size,
        /// found by the rough title's hash, and each record's next in its block (no array a block).
        var blocks: [(first: Int, last: Int, count: Int)] = []
        var blockSlots = MemoSlots()
        var nextInBlock: [Int]
        /// The rough titles read by words, by the title's text.
        struct RoughByWords {
            let title: String
            let rough: UInt64
        }
        var roughsByWords: [RoughByWords] = []
        /// `explain`'s answer for the last row, and its walk's queue.
        var reasons: [String?] = []
        var queue: [Int] = []
        var roughSlots = MemoSlots()

        init(_ lists: [(provider: String, items: [Item])], grouping: ResultGrouping) {
            self.lists = lists
            self.grouping = grouping
            entries.reserveCapacity(lists.reduce(0) { $0 + $1.items.count })
            for (order, list) in lists.enumerated() {
                for index in list.items.indices { entries.append(Entry(order: order, index: index)) }
            }
            identities = [BookIdentity](repeating: BookIdentity(), count: entries.count)
            identityRead = [Bool](repeating: false, count: entries.count)
            scans = [BookIdentity.Scan](repeating: BookIdentity.Scan(), count: entries.count)
            roughs = [UInt64](repeating: 0, count: entries.count)
            hasISBN = [Bool](repeating: false, count: entries.count)
            sets = Components(count: entries.count)
            nextInBlock = [Int](repeating: -1, count: entries.count)
        }

        mutating func readIdentity(_ position: Int) {
            guard !identityRead[position] else { return }
            identityRead[position] = true
            let entry = entries[position]
            // The fields, not the record: passing the record would copy it.
            guard lists[entry.order].items[entry.index].kind == .book else { return }
            identities[position] = BookIdentity(
                title: lists[entry.order].items[entry.index].title, subtitle: lists[entry.order].items[entry.index].subtitle,
                creators: lists[entry.order].items[entry.index].creators, year: lists[entry.order].items[entry.index].year,
                scan: scans[position], rough: roughs[position], memo: &memo)
        }

        /// Whether joining the sets of `a` and `b` would put two different ISBN-13 editions in one row
        /// (`group=edition` only).
        mutating func editionsClash(_ a: Int, _ b: Int) -> Bool {
            guard grouping == .edition else { return false }
            let (entries, lists, hasISBN) = (self.entries, self.lists, self.hasISBN)
            return sets.anyPair(a, b) { x, y in
                hasISBN[x] && hasISBN[y]
                    && !lists[entries[x].order].items[entries[x].index].identifiers.isbn13
                        .contains(where: lists[entries[y].order].items[entries[y].index].identifiers.isbn13.contains)
            }
        }

        mutating func join(_ a: Int, _ b: Int, _ reason: Join.Reason) {
            guard sets.find(a) != sets.find(b), !editionsClash(a, b) else { return }
            sets.union(a, b)
            edges.append(Join(a: a, b: b, reason: reason))
        }

        /// Joins records by their typed identifiers, and files each book by its rough title.
        /// A provider's own distinct ids are distinct records (Open Library lists box-set ISBNs under
        /// each volume's work, say): a shared key joins items of different providers only. Two items
        /// of one provider still meet in a row through another provider's record that matches both.
        mutating func joinByKeys() {
            var owner = [IdentityKey: Int](minimumCapacity: entries.count)
            // ISBN-13s (most keys) by their number in `MemoSlots`, without `Hasher`.
            var isbnSlots = MemoSlots()
            var isbnOwners: [Int] = []
            var pending: [IdentityKey] = []
            let grouping = grouping
            for position in entries.indices {
                let entry = entries[position]
                // Fields read where they lie (a copy of the item would retain every field).
                guard lists[entry.order].items[entry.index].kind == .book else { continue }
                // Known before its keys join anything (a part's, below, is not its own).
                hasISBN[position] = !lists[entry.order].items[entry.index].identifiers.isbn13.isEmpty
                pending.removeAll(keepingCapacity: true)
                let scan = BookIdentity.scanIdentifiers(lists[entry.order].items[entry.index]) { key in
                    if grouping == .work || key.namesEdition { pending.append(key) }
                }
                scans[position] = scan
                let rough = scan.isPart ? 0 : roughTitle(lists[entry.order].items[entry.index].title)
                roughs[position] = rough
                for key in pending {
                    let other: Int
                    if case .isbn(let number) = key {
                        guard let found = isbnSlots.find(number, matches: { _ in true }) else {
                            isbnSlots.insert(number)
                            isbnOwners.append(position)
                            continue
                        }
                        other = isbnOwners[found]
                    } else {
                        guard let found = owner[key] else { owner[key] = position; continue }
                        other = found
                    }
                    guard entries[other].order != entry.order, sets.find(other) != sets.find(position) else { continue }
                    readIdentity(position)
                    readIdentity(other)
                    if !identities[position].refusesIdentifierJoin(identities[other]) { join(other, position, .key(key)) }
                }
                hasISBN[position] = scan.hasISBN
                guard !scan.isPart else { continue }
                guard rough != 0 else { continue }
                if let block = blockSlots.find(rough, matches: { _ in true }) {
                    nextInBlock[blocks[block].last] = position
                    blocks[block].last = position
                    blocks[block].count += 1
                } else {
                    blockSlots.insert(rough)
                    blocks.append((position, position, 1))
                }
            }
        }

        /// `BookIdentity.roughTitle`; the titles it reads by words (other scripts, diacritics: some 80 K
        /// instructions each) are read once a merge, found again by a hash of their bytes.
        mutating func roughTitle(_ title: String) -> UInt64 {
            if let rough = BookIdentity.roughASCIIOrCJK(title) { return rough }
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in title.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            if let known = roughSlots.find(hash, matches: { roughsByWords[$0].title == title }) { return roughsByWords[known].rough }
            let rough = BookIdentity.roughTitle(title)
            roughSlots.insert(hash)
            roughsByWords.append(RoughByWords(title: title, rough: rough))
            return rough
        }

        mutating func compare(_ first: Int, _ second: Int) {
            guard entries[first].order != entries[second].order, sets.find(first) != sets.find(second) else { return }
            readIdentity(first)
            readIdentity(second)
            guard let family = identities[first].titleJoin(identities[second], grouping: grouping) else { return }
            join(first, second, .title(family: family))
        }

        /// Compares the records of each rough title's block (of more than one source) by their title keys.
        mutating func joinByTitles() {
            var block: [Int] = []
            for ends in blocks where ends.count > 1 {
                block.removeAll(keepingCapacity: true)
                var cursor = ends.first
                while cursor >= 0 {
                    block.append(cursor)
                    cursor = nextInBlock[cursor]
                }
                guard let firstOrder = block.first.map({ entries[$0].order }), block.contains(where: { entries[$0].order != firstOrder }) else {
                    continue
                }
                if block.count <= blockLimit {
                    for (offset, first) in block.enumerated() {
                        for second in block.dropFirst(offset + 1) { compare(first, second) }
                    }
                    continue
                }
                // A large block (one generic title from many sources): by exact title and each family name,
                // and records naming no creator against the rest.
                var byFamily = [TitleFamily: [Int]]()
                for position in block {
                    readIdentity(position)
                    let creators = identities[position].creators
                    for (index, creator) in creators.enumerated() where !creators[..<index].contains(where: { $0.family == creator.family }) {
                        byFamily[TitleFamily(title: identities[position].title, family: creator.family), default: []].append(position)
                    }
                }
                for (_, group) in byFamily where group.count > 1 {
                    let group = group.prefix(blockLimit)
                    for (offset, first) in group.enumerated() {
                        for second in group.dropFirst(offset + 1) { compare(first, second) }
                    }
                }
                for position in block where identities[position].creators.isEmpty {
                    for other in block.prefix(blockLimit) where other != position { compare(min(position, other), max(position, other)) }
                }
            }
        }

        /// How each member of a row (best-ranked first) joined it, by its place in `members`, into
        /// `reasons`: a walk from the first member over the row's joins (indices into `edges`, listed
        /// from `firstJoin` through `nextJoin`), each member reached by the join that reached it first.
        /// Rows are small: members are found by a scan. The buffers are kept from row to row.
        mutating func explain(_ members: [Int], firstJoin: Int, nextJoin: [Int]) {
            reasons.removeAll(keepingCapacity: true)
            reasons.append(contentsOf: repeatElement(nil, count: members.count))
            queue.removeAll(keepingCapacity: true)
            guard let first = members.first else { return }
            queue.append(first)
            var index = 0
            while index < queue.count {
                let current = queue[index]
                index += 1
                var edge = firstJoin
                while edge >= 0 {
                    defer { edge = nextJoin[edge] }
                    guard edges[edge].a == current || edges[edge].b == current else { continue }
                    let other = edges[edge].a == current ? edges[edge].b : edges[edge].a
                    // Reached already: in the queue.
                    guard !queue.contains(other), let offset = members.firstIndex(of: other) else { continue }
                    reasons[offset] = explanation(of: edges[edge], for: other)
                    queue.append(other)
                }
            }
        }

        /// What `joinedBy` says of `position`, joined by `join`: the key, or the title key as words with
        /// the creator's family name and the earlier year of the two records.
        mutating func explanation(of join: Join, for position: Int) -> String {
            switch join.reason {
            case .key(let key):
                return key.explanation
            case .title(let family):
                let a = entries[join.a], b = entries[join.b]
                let yearA = lists[a.order].items[a.index].year, yearB = lists[b.order].items[b.index].year
                let year = if let yearA, let yearB { min(yearA, yearB) } else { yearA ?? yearB }
                readIdentity(position)
                let fields = identities[position].titleKey.fields
                var text: [UInt8] = []
                text.reserveCapacity(32 + fields.title.utf8.count + fields.titleWordEnds.count + family.utf8.count)
                text.append(contentsOf: family.isEmpty ? "title+year ".utf8 : "title+creator ".utf8)
                fields.appendDisplayTitle(to: &text)
                if !family.isEmpty {
                    text.append(contentsOf: " / ".utf8)
                    text.append(contentsOf: family.utf8)
                }
                if let year {
                    text.append(contentsOf: " / ".utf8)
                    text.append(contentsOf: String(year).utf8)
                }
                return String(decoding: text, as: UTF8.self)
            }
        }
    }

    /// A title block's key: the title key and one creator's family name.
    struct TitleFamily: Hashable {
        let title: String
        let family: String
    }

    /// One join the merge made: two entries and the key that joined them.
    struct Join {
        enum Reason {
            case key(IdentityKey)
            /// The title key, with the family name of the creator both credit (empty: title and year alone).
            case title(family: String)
        }

        let a: Int
        let b: Int
        let reason: Reason
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
        let lists = details.map { (provider: $0.provider, items: [$0.detail.item]) }
        let (item, fields) = combine(lists, lists.indices.map { Entry(order: $0, index: 0) })
        var detail = first.detail
        var provenance = fields.provenance(lists)
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

    /// Calls `body` with each key under which `item` counts as seen. GIFs have none.
    static func forEachMatchKey(of item: Item, _ body: (MatchKey) -> Void) {
        guard item.kind == .book else { return }
        let scan = BookIdentity.scanIdentifiers(item) { key in
            if case .isbn(let isbn) = key { body(.isbn(String(isbn))) } else { body(.identifier(key.explanation)) }
        }
        // The title key is read only for a book without an ISBN (what a cursor remembers it by).
        guard !scan.hasISBN else { return }
        var memo = IdentityMemo()
        let identity = BookIdentity(item, scan: scan, rough: 0, memo: &memo)
        guard !identity.title.isEmpty else { return }
        let volumes = identity.volumes.map(String.init).joined(separator: ",")
        let family = identity.creators.first?.family ?? ""
        body(.titleCreatorYear("\(identity.title)|\(volumes)|\(identity.boxSet ? "set" : "")|\(family)|\(item.year.map(String.init) ?? "")"))
    }

    /// The keys of `forEachMatchKey` as an array.
    static func matchKeys(_ item: Item) -> [MatchKey] {
        var keys: [MatchKey] = []
        forEachMatchKey(of: item) { keys.append($0) }
        return keys
    }

    /// Which list gave each field of a combined row (`combine`); nil: no record had the field.
    struct FieldSources {
        var title: Int
        var subtitle: Int?
        var creators: Int?
        var year: Int?
        var image: Int?
        var url: Int?

        /// The lists packed into one number (six bits a field), for sharing provenance between rows;
        /// nil past 62 lists.
        var key: UInt64? {
            var key: UInt64 = 0
            for order in [title, subtitle ?? -1, creators ?? -1, year ?? -1, image ?? -1, url ?? -1] {
                guard order < 62 else { return nil }
                key = key << 6 | UInt64(order + 1)
            }
            return key
        }

        /// Each field's provider by name.
        func provenance(_ lists: [(provider: String, items: [Item])]) -> [String: String] {
            var provenance = ["title": lists[title].provider]
            if let subtitle { provenance["subtitle"] = lists[subtitle].provider }
            if let creators { provenance["creators"] = lists[creators].provider }
            if let year { provenance["year"] = lists[year].provider }
            if let image { provenance["image"] = lists[image].provider }
            if let url { provenance["url"] = lists[url].provider }
            return provenance
        }
    }

    /// Combines the records of one book (`members`, best-ranked first, at least one) under the field
    /// policy, read where they lie (no copy of a record but the best's), noting which list gave each field.
    private static func combine(_ lists: [(provider: String, items: [Item])], _ members: [Entry]) -> (Item, FieldSources) {
        let best = members[0]
        var item = lists[best.order].items[best.index]
        var sources = FieldSources(title: best.order)
        let others = members.dropFirst()
        if item.subtitle != nil {
            sources.subtitle = best.order
        } else if let other = others.first(where: { lists[$0.order].items[$0.index].subtitle != nil }) {
            item.subtitle = lists[other.order].items[other.index].subtitle
            sources.subtitle = other.order
        }
        // The first record naming the most creators; the best keeps its own on a tie.
        var most: Entry?
        var mostCount = item.creators.count
        for other in others where lists[other.order].items[other.index].creators.count > mostCount {
            most = other
            mostCount = lists[other.order].items[other.index].creators.count
        }
        if let most {
            item.creators = lists[most.order].items[most.index].creators
            sources.creators = most.order
        } else if !item.creators.isEmpty {
            sources.creators = best.order
        }
        // The earliest year, the first record giving it.
        var earliest = item.year.map { (year: $0, order: best.order) }
        for other in others {
            if let year = lists[other.order].items[other.index].year, year < earliest?.year ?? .max { earliest = (year, other.order) }
        }
        if let earliest {
            item.year = earliest.year
            sources.year = earliest.order
        }
        var largest: Entry?
        var largestSoFar = largestSize(item)
        for other in others {
            let size = largestSize(lists[other.order].items[other.index])
            if size > largestSoFar {
                largest = other
                largestSoFar = size
            }
        }
        if let largest {
            item.images = lists[largest.order].items[largest.index].images
            sources.image = largest.order
        } else if !item.images.isEmpty {
            sources.image = best.order
        }
        for other in others {
            let identifiers = lists[other.order].items[other.index].identifiers
            item.identifiers.add(isbns: identifiers.isbn13)
            item.identifiers.add(isbns: identifiers.isbn10)
            if !identifiers.other.isEmpty {
                item.identifiers.other.merge(identifiers.other) { current, _ in current }
            }
        }
        if item.address != nil {
            sources.url = best.order
        } else if let other = others.first(where: { lists[$0.order].items[$0.index].address != nil }) {
            item.address = lists[other.order].items[other.index].address
            sources.url = other.order
        }
        return (item, sources)
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

/// Disjoint sets with path compression, each set's members a linked list (for checks over two sets).
struct Components {
    private var parent: [Int]
    private var nextMember: [Int]
    private var lastMember: [Int]

    init(count: Int) {
        parent = Array(0..<count)
        nextMember = Array(repeating: -1, count: count)
        lastMember = Array(0..<count)
    }

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
        guard rootA != rootB else { return }
        let (root, child) = (min(rootA, rootB), max(rootA, rootB))
        parent[child] = root
        nextMember[lastMember[root]] = child
        lastMember[root] = lastMember[child]
    }

    /// Whether `test` holds for some member of `a`'s set and some member of `b`'s.
    mutating func anyPair(_ a: Int, _ b: Int, _ test: (Int, Int) -> Bool) -> Bool {
        var x = find(a)
        let rootB = find(b)
        while x >= 0 {
            var y = rootB
            while y >= 0 {
                if test(x, y) { return true }
                y = nextMember[y]
            }
            x = nextMember[x]
        }
        return false
    }
}
