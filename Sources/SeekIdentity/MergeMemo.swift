import NIOConcurrencyHelpers
import SeekCore
import SeekSupport

/// The last merges, by their exact inputs: a search answered again from the providers' cached
/// answers hands the merger the same arrays, and gets back the list it got before instead of a new
/// merge and ranking (16 % of a cached search's CPU, BENCHMARKS.md issue 30). Inputs are compared
/// whole, so a changed answer is always merged anew; arrays that are the very same stored ones
/// compare in O(1).
package final class MergeMemo: Sendable {
    /// What a merge depends on.
    package struct Inputs: Equatable, Sendable {
        package var batches: [Batch]
        package var weights: [String: Double]
        package var ranking: RankingMethod
        package var grouping: ResultGrouping

        package init(batches: [Batch], weights: [String: Double], ranking: RankingMethod, grouping: ResultGrouping = .work) {
            self.batches = batches
            self.weights = weights
            self.ranking = ranking
            self.grouping = grouping
        }

        /// Whether each batch's items are the very array `other` holds, not only equal ones.
        package func sharesStorage(with other: Inputs) -> Bool {
            guard batches.count == other.batches.count else { return false }
            for (mine, theirs) in zip(batches, other.batches) {
                if !mine.items.sharesStorage(with: theirs.items) { return false }
            }
            return true
        }

        /// A short key naming the inputs (who answered, how many, and with what first); equal inputs
        /// have equal keys, and an entry is used only when its inputs are equal.
        var key: String {
            var key = ranking.rawValue + "/" + grouping.rawValue
            for batch in batches {
                key += "|\(batch.provider):\(batch.items.count):\(batch.items.first?.id.description ?? "")"
            }
            return key
        }
    }

    package struct Batch: Equatable, Sendable {
        package var provider: String
        package var items: [Item]

        package init(provider: String, items: [Item]) {
            self.provider = provider
            self.items = items
        }
    }

    private struct Entry: Sendable {
        var inputs: Inputs
        var merged: [MergedResult]
    }

    package let capacity: Int
    private let entries = NIOLockedValueBox(LRUList<Entry>())

    package init(capacity: Int = 64) {
        self.capacity = max(0, capacity)
    }

    /// Whether the entry for inputs equal to `inputs` holds these very arrays (nil: no such entry).
    package func remembersStorage(of inputs: Inputs) -> Bool? {
        entry(equalTo: inputs, key: inputs.key)?.inputs.sharesStorage(with: inputs)
    }

    /// The entry kept under `key`, when its inputs equal `inputs`.
    private func entry(equalTo inputs: Inputs, key: String) -> Entry? {
        guard let kept = entries.withLockedValue({ $0.value(for: key) }), kept.inputs == inputs else { return nil }
        return kept
    }

    /// The merge of `inputs`: the remembered one when these very inputs were merged lately, else
    /// `merge()`'s, remembered.
    package func merged(_ inputs: Inputs, merge: () -> [MergedResult]) -> [MergedResult] {
        guard capacity > 0 else { return merge() }
        let key = inputs.key
        if let kept = entry(equalTo: inputs, key: key) {
            // Equal, but held in other arrays (an answer stored again with the same content): keep
            // these, so the next look-up compares in O(1) rather than item by item.
            if !kept.inputs.sharesStorage(with: inputs) {
                entries.withLockedValue { $0.set(Entry(inputs: inputs, merged: kept.merged), cost: 1, for: key) }
            }
            return kept.merged
        }
        let merged = merge()
        let capacity = self.capacity
        entries.withLockedValue { list in
            list.set(Entry(inputs: inputs, merged: merged), cost: 1, for: key)
            while list.count > capacity, list.removeOldest() != nil {}
        }
        return merged
    }
}
