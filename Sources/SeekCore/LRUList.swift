/// A doubly linked LRU list threaded through a dictionary: O(1) lookup, move-to-front and eviction,
/// with a cost per entry (bytes, say) summed in `totalCost`. The memory tiers of the image and response
/// caches bound themselves with it.
package struct LRUList<Value: Sendable>: Sendable {
    package init() {}

    private struct Node: Sendable {
        var value: Value
        var cost: Int
        var older: String?
        var newer: String?
    }

    private var nodes: [String: Node] = [:]
    private var oldest: String?
    private var newest: String?
    package private(set) var totalCost = 0

    package var count: Int { nodes.count }

    /// The value for `key`, which becomes the newest entry.
    package mutating func value(for key: String) -> Value? {
        guard let node = nodes[key] else { return nil }
        unlink(key)
        linkAsNewest(key)
        return node.value
    }

    /// Inserts or replaces `key` as the newest entry.
    package mutating func set(_ value: Value, cost: Int, for key: String) {
        _ = remove(key)
        nodes[key] = Node(value: value, cost: cost, older: nil, newer: nil)
        totalCost += cost
        linkAsNewest(key)
    }

    @discardableResult
    package mutating func remove(_ key: String) -> Value? {
        guard let node = nodes[key] else { return nil }
        unlink(key)
        nodes[key] = nil
        totalCost -= node.cost
        return node.value
    }

    /// Removes the least recently used entry.
    package mutating func removeOldest() -> (key: String, value: Value)? {
        guard let key = oldest, let value = remove(key) else { return nil }
        return (key, value)
    }

    package var keysOldestFirst: [String] {
        var keys: [String] = []
        var cursor = oldest
        while let key = cursor, let node = nodes[key] {
            keys.append(key)
            cursor = node.newer
        }
        return keys
    }

    private mutating func unlink(_ key: String) {
        guard let node = nodes[key] else { return }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        nodes[key]?.older = nil
        nodes[key]?.newer = nil
    }

    private mutating func linkAsNewest(_ key: String) {
        nodes[key]?.older = newest
        nodes[key]?.newer = nil
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }
}
