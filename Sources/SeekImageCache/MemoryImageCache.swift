import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekSupport

/// The memory tier: least-recently-used image bytes bounded by total bytes and by count.
///
/// Like Nuke's `ImageCache` (and unlike `NSCache`, which is not LRU), an entry costing more than
/// `entryCostFraction` of the byte limit is not kept at all, so one huge GIF cannot flush every cover.
public final class MemoryImageCache: Sendable {
    public let costLimit: Int
    public let countLimit: Int
    /// The largest share of `costLimit` one entry may take.
    public let entryCostFraction: Double
    private let state: NIOLockedValueBox<State>

    private struct State: Sendable {
        var list = LRUList<StoredImage>()
        var hits = 0
        var misses = 0
    }

    struct StoredImage: Sendable {
        let data: Data
        let format: ImageFormat
    }

    /// A cache of at most `costLimit` bytes and `countLimit` entries; a zero limit disables it.
    public init(costLimit: Int, countLimit: Int = 1000, entryCostFraction: Double = 0.1) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.entryCostFraction = min(1, max(0, entryCostFraction))
        self.state = NIOLockedValueBox(State())
    }

    /// The image stored under `key`, now the most recently used; counts a hit or a miss.
    public func image(for key: String) -> CachedImage? {
        state.withLockedValue { state in
            guard let stored = state.list.value(for: key) else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            return CachedImage(data: stored.data, format: stored.format, origin: .memory)
        }
    }

    /// Stores `image` as the most recently used entry and evicts the least recently used ones over
    /// a limit. Returns false when the entry is too large for this tier and was not stored.
    @discardableResult
    public func store(_ image: CachedImage, for key: String) -> Bool {
        let cost = image.data.count
        guard countLimit > 0, Double(cost) <= Double(costLimit) * entryCostFraction else {
            state.withLockedValue { _ = $0.list.remove(key) }
            return false
        }
        let stored = StoredImage(data: image.data, format: image.format)
        let costLimit = self.costLimit, countLimit = self.countLimit
        state.withLockedValue { state in
            state.list.set(stored, cost: cost, for: key)
            while state.list.totalCost > costLimit || state.list.count > countLimit {
                guard state.list.removeOldest() != nil else { break }
            }
        }
        return true
    }

    public func remove(_ key: String) {
        state.withLockedValue { _ = $0.list.remove(key) }
    }

    /// Empties the tier and resets its counters.
    public func removeAll() {
        state.withLockedValue { $0 = State() }
    }

    /// Keys from least to most recently used (for tests and diagnostics).
    public var keysByRecency: [String] {
        state.withLockedValue { $0.list.keysOldestFirst }
    }

    public var statistics: TierStatistics {
        state.withLockedValue { state in
            TierStatistics(
                entries: state.list.count, bytes: state.list.totalCost, limitBytes: costLimit,
                hits: state.hits, misses: state.misses)
        }
    }
}
