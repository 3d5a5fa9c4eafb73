/// A doubly linked LRU list: O(1) lookup, move-to-front and eviction, with a cost per entry (bytes,
/// say) summed in `totalCost`. The memory tiers of the image and response caches bound themselves with it.
///
/// The entries live in an array and link to each other by position, so a look-up hashes its key once;
/// links by key hashed long cache keys about eight times per look-up (issue 30).
package struct LRUList<Value: Sendable>: Sendable {
    package init() {}

    private struct Slot: Sendable {
        var key: String
        /// Nil while the slot is free for reuse.
        var value: Value?
        var cost: Int
        var older: Int?
        var newer: Int?
    }

    /// Each key's position in `slots`.
    private var positions: [String: Int] = [:]
    private var slots: [Slot] = []
    /// Positions of removed entries, reused before `slots` grows.
    private var free: [Int] = []
    private var oldest: Int?
    private var newest: Int?
    package private(set) var totalCost = 0

    package var count: Int { positions.count }

    /// The value for `key`, which becomes the newest entry.
    package mutating func value(for key: String) -> Value? {
        guard let position = positions[key] else { return nil }
        moveToNewest(position)
        return slots[position].value
    }

    /// Inserts or replaces `key` as the newest entry.
    package mutating func set(_ value: Value, cost: Int, for key: String) {
        if let position = positions[key] {
            totalCost += cost - slots[position].cost
            slots[position].value = value
            slots[position].cost = cost
            moveToNewest(position)
            return
        }
        let slot = Slot(key: key, value: value, cost: cost, older: nil, newer: nil)
        let position: Int
        if let reused = free.popLast() {
            position = reused
            slots[position] = slot
        } else {
            position = slots.count
            slots.append(slot)
        }
        positions[key] = position
        totalCost += cost
        linkAsNewest(position)
    }

    @discardableResult
    package mutating func remove(_ key: String) -> Value? {
        guard let position = positions.removeValue(forKey: key) else { return nil }
        return release(position)
    }

    /// Removes the least recently used entry.
    package mutating func removeOldest() -> (key: String, value: Value)? {
        guard let position = oldest else { return nil }
        let key = slots[position].key
        positions[key] = nil
        guard let value = release(position) else { return nil }
        return (key, value)
    }

    package var keysOldestFirst: [String] {
        var keys: [String] = []
        var cursor = oldest
        while let position = cursor {
            keys.append(slots[position].key)
            cursor = slots[position].newer
        }
        return keys
    }

    /// Unlinks the entry at `position` and frees its slot; returns its value.
    private mutating func release(_ position: Int) -> Value? {
        unlink(position)
        let value = slots[position].value
        totalCost -= slots[position].cost
        slots[position] = Slot(key: "", value: nil, cost: 0, older: nil, newer: nil)
        free.append(position)
        return value
    }

    private mutating func moveToNewest(_ position: Int) {
        guard newest != position else { return }
        unlink(position)
        linkAsNewest(position)
    }

    private mutating func unlink(_ position: Int) {
        let older = slots[position].older
        let newer = slots[position].newer
        if let older { slots[older].newer = newer } else { oldest = newer }
        if let newer { slots[newer].older = older } else { newest = older }
        slots[position].older = nil
        slots[position].newer = nil
    }

    private mutating func linkAsNewest(_ position: Int) {
        slots[position].older = newest
        slots[position].newer = nil
        if let newest { slots[newest].newer = position }
        newest = position
        if oldest == nil { oldest = position }
    }
}
