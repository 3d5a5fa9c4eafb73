import NIOConcurrencyHelpers
import SeekCore
import SeekIdentity
import Testing

@Suite("The merge memo: a cached search is not merged again")
struct MergeMemoTests {
    let harbor = [book("ol", "1", "Harbor"), book("ol", "2", "Quiet Harbor")]
    let river = [book("gp", "1", "River")]

    func inputs(_ batches: [(String, [Item])], ranking: RankingMethod = .searxng, weights: [String: Double] = ["ol": 1, "gp": 1]) -> MergeMemo.Inputs {
        MergeMemo.Inputs(batches: batches.map { MergeMemo.Batch(provider: $0.0, items: $0.1) }, weights: weights, ranking: ranking)
    }

    /// Merges through `memo`, counting the merges actually run.
    func merge(_ memo: MergeMemo, _ inputs: MergeMemo.Inputs, count: NIOLockedValueBox<Int>) -> [MergedResult] {
        memo.merged(inputs) {
            count.withLockedValue { $0 += 1 }
            return ResultMerger.merge(inputs.batches.map { ($0.provider, $0.items) }, weights: inputs.weights, ranking: inputs.ranking)
        }
    }

    @Test("the same inputs again are given the remembered merge, without merging")
    func sameInputs() {
        let memo = MergeMemo(), count = NIOLockedValueBox(0)
        let first = merge(memo, inputs([("ol", harbor), ("gp", river)]), count: count)
        let second = merge(memo, inputs([("ol", harbor), ("gp", river)]), count: count)
        #expect(second == first)
        #expect(count.withLockedValue { $0 } == 1)
    }

    @Test("equal inputs in other arrays are given the remembered merge, and the memo keeps those arrays")
    func equalInputsInOtherArrays() {
        let memo = MergeMemo(), count = NIOLockedValueBox(0)
        let first = merge(memo, inputs([("ol", harbor), ("gp", river)]), count: count)
        // Built element by element: equal to `harbor`, but a buffer of its own.
        let copied = harbor.map { $0 }
        let again = inputs([("ol", copied), ("gp", river)])
        #expect(memo.remembersStorage(of: again) == false)
        let second = merge(memo, again, count: count)
        #expect(second == first)
        #expect(count.withLockedValue { $0 } == 1)
        #expect(memo.remembersStorage(of: again) == true)
        #expect(memo.remembersStorage(of: inputs([("gp", river)])) == nil)
    }

    @Test("a changed item, weight or ranking is merged anew, even under the same key")
    func changedInputs() {
        let memo = MergeMemo(), count = NIOLockedValueBox(0)
        let first = merge(memo, inputs([("ol", harbor), ("gp", river)]), count: count)
        var renamed = harbor
        renamed[1].title = "Loud Harbor"  // same ids and count: the same key, other inputs
        let second = merge(memo, inputs([("ol", renamed), ("gp", river)]), count: count)
        #expect(second != first)
        #expect(second.map(\.item.title).contains("Loud Harbor"))
        _ = merge(memo, inputs([("ol", renamed), ("gp", river)], weights: ["ol": 1, "gp": 3]), count: count)
        _ = merge(memo, inputs([("ol", renamed), ("gp", river)], ranking: RankingMethod.allCases.last ?? .searxng), count: count)
        #expect(count.withLockedValue { $0 } == (RankingMethod.allCases.count > 1 ? 4 : 3))
    }

    @Test("the memo holds at most its capacity, dropping the least recently used; capacity 0 remembers nothing")
    func bounded() {
        let memo = MergeMemo(capacity: 1), count = NIOLockedValueBox(0)
        _ = merge(memo, inputs([("ol", harbor)]), count: count)
        _ = merge(memo, inputs([("gp", river)]), count: count)
        _ = merge(memo, inputs([("ol", harbor)]), count: count)
        #expect(count.withLockedValue { $0 } == 3)
        let none = MergeMemo(capacity: 0), counted = NIOLockedValueBox(0)
        _ = merge(none, inputs([("ol", harbor)]), count: counted)
        _ = merge(none, inputs([("ol", harbor)]), count: counted)
        #expect(counted.withLockedValue { $0 } == 2)
    }
}
