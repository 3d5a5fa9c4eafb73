import Foundation
import SeekCore

/// The reader's own copies in a merged list (issue 49). A library source (Calibre) marks each of its
/// items with an `OwnedCopy`; after the merge, every row one of them joined carries that copy, and
/// the copy annotates the row rather than voting for it:
///
/// - a row that remote sources found is scored by those sources alone, so owning a book neither
///   lifts nor (through SearXNG's product of weights) sinks what the remote sources agree on;
/// - a row the library alone found keeps the score its own weight gives it: the library declares a
///   weight small enough that such a row stays below every row two remote sources agree on.
enum OwnedRows {
    /// `results` with ownership marked and owned rows scored by their remote sources, re-sorted when a
    /// score changed (ties keep the merger's order). Without any owned item, `results` as they are.
    static func mark(_ results: [MergedResult], lists: [[Item]], ranking: RankingMethod) -> [MergedResult] {
        var copies: [ItemID: OwnedCopy] = [:]
        for list in lists {
            for item in list {
                if let owned = item.owned { copies[item.id] = owned }
            }
        }
        guard !copies.isEmpty else { return results }
        var marked = results
        var rescored = false
        for index in marked.indices {
            let sources = marked[index].sources
            guard let copy = sources.lazy.compactMap({ copies[$0.id] }).first else { continue }
            marked[index].item.owned = copy
            let remote = sources.filter { copies[$0.id] == nil }
            guard !remote.isEmpty else { continue }
            let score = ranking.score(remote)
            if score != marked[index].score {
                marked[index].score = score
                rescored = true
            }
        }
        guard rescored else { return marked }
        return marked.enumerated()
            .sorted { lhs, rhs in
                if lhs.element.score != rhs.element.score { return lhs.element.score > rhs.element.score }
                return lhs.offset < rhs.offset
            }
            .map(\.element)
    }
}
