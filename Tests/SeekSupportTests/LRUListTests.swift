import SeekSupport
import Testing

@Suite("The LRU list under the memory tiers")
struct LRUListTests {
    @Test("a look-up makes the entry the newest, so the oldest untouched entry goes first")
    func lookUpRefreshes() {
        var list = LRUList<Int>()
        list.set(1, cost: 10, for: "a")
        list.set(2, cost: 20, for: "b")
        list.set(3, cost: 30, for: "c")
        #expect(list.value(for: "a") == 1)
        #expect(list.keysOldestFirst == ["b", "c", "a"])
        #expect(list.removeOldest()?.key == "b")
        #expect(list.keysOldestFirst == ["c", "a"])
    }

    @Test("replacing a key keeps one entry, counts the new cost and makes it the newest")
    func replacementCountsNewCost() {
        var list = LRUList<String>()
        list.set("old", cost: 100, for: "a")
        list.set("b", cost: 5, for: "b")
        list.set("new", cost: 7, for: "a")
        #expect(list.count == 2)
        #expect(list.totalCost == 12)
        #expect(list.keysOldestFirst == ["b", "a"])
        #expect(list.value(for: "a") == "new")
    }

    @Test("removing an absent key, or the oldest of an empty list, changes nothing")
    func removingAbsentChangesNothing() {
        var list = LRUList<Int>()
        #expect(list.remove("missing") == nil)
        #expect(list.removeOldest() == nil)
        list.set(1, cost: 1, for: "a")
        #expect(list.remove("missing") == nil)
        #expect(list.count == 1)
        #expect(list.totalCost == 1)
        #expect(list.remove("a") == 1)
        #expect(list.removeOldest() == nil)
        #expect(list.totalCost == 0)
        #expect(list.keysOldestFirst.isEmpty)
    }

    @Test("removed entries' places are reused without disturbing the order of the rest")
    func reusedPlacesKeepOrder() {
        var list = LRUList<Int>()
        for (index, key) in ["a", "b", "c", "d"].enumerated() { list.set(index, cost: 1, for: key) }
        #expect(list.remove("b") == 1)
        #expect(list.remove("d") == 3)
        list.set(10, cost: 1, for: "e")
        list.set(11, cost: 1, for: "f")
        list.set(12, cost: 1, for: "g")
        #expect(list.keysOldestFirst == ["a", "c", "e", "f", "g"])
        #expect(list.value(for: "c") == 2)
        #expect(list.keysOldestFirst == ["a", "e", "f", "g", "c"])
        #expect(list.value(for: "b") == nil)
    }

    @Test("thousands of mixed operations agree with a plain ordered model")
    func agreesWithModel() {
        var list = LRUList<Int>()
        var model: [(key: String, value: Int, cost: Int)] = []  // oldest first
        var random = SplitMix(seed: 30)
        for step in 0..<5_000 {
            let key = "key-\(random.next() % 40)"
            switch random.next() % 4 {
            case 0:
                let cost = Int(random.next() % 1_000)
                list.set(step, cost: cost, for: key)
                model.removeAll { $0.key == key }
                model.append((key, step, cost))
            case 1:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                if let expected { model.append(expected) }
                #expect(list.value(for: key) == expected?.value)
            case 2:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                #expect(list.remove(key) == expected?.value)
            default:
                let expected = model.isEmpty ? nil : model.removeFirst()
                let removed = list.removeOldest()
                #expect(removed?.key == expected?.key)
                #expect(removed?.value == expected?.value)
            }
            #expect(list.count == model.count)
            #expect(list.totalCost == model.reduce(0) { $0 + $1.cost })
        }
        #expect(list.keysOldestFirst == model.map(\.key))
    }
}
