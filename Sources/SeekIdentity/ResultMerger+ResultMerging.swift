import SeekCore

/// The engine's merging role played by the identity rules: merges remembered by their inputs, and
/// the keys a cursor remembers items by.
extension ResultMerger: ResultMerging {
    /// Merges of late, by their exact inputs (a cached search is not merged and ranked again). One
    /// for the process: entries hold their whole inputs, so mergers cannot be given each other's.
    static let memo = MergeMemo()

    /// `merge` remembered by its inputs, rows a library copy joined marked as owned and scored by
    /// their remote sources (OwnedRows.swift, issue 49).
    public func merge(
        _ lists: [(provider: String, items: [Item])], weights: [String: Double], ranking: RankingMethod, grouping: ResultGrouping
    ) -> [MergedResult] {
        let inputs = MergeMemo.Inputs(
            batches: lists.map { MergeMemo.Batch(provider: $0.provider, items: $0.items) }, weights: weights, ranking: ranking,
            grouping: grouping)
        return Self.memo.merged(inputs) {
            let merged = Self.merge(lists, weights: weights, ranking: ranking, grouping: grouping)
            return OwnedRows.mark(merged, lists: inputs.batches.map(\.items), ranking: ranking)
        }
    }

    public func forEachMatchKey(of item: Item, _ body: (MatchKey) -> Void) {
        Self.forEachMatchKey(of: item, body)
    }
}
