import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit

/// Where circuit breakers keep their state, by breaker key (`openlibrary@openlibrary.org`). Each
/// transition is one atomic step, so every process or instance sharing the store sees one breaker.
/// A store never fails a call: one that cannot reach its state carries on with state of its own.
public protocol BreakerStore: Sendable {
    /// Decides about one call (claiming the half-open probe, fleet-wide).
    func admit(_ key: String, policy: BreakerPolicy) async -> BreakerDecision
    /// Records how an admitted call ended.
    func record(_ key: String, outcome: BreakerOutcome, probe: Bool, policy: BreakerPolicy) async
    /// The stored state.
    func state(_ key: String) async -> BreakerState
    /// Clears every breaker of provider `id`, whatever host it was for (keys `id` and `id@…`).
    func reset(provider id: String) async
}

/// Where rate-limit buckets are kept, by host key: one budget for every process or instance sharing the store.
public protocol RateLimitStore: Sendable {
    /// Takes a token of `key`'s bucket for a request that may wait at most `maxWait` seconds.
    func reserve(_ key: String, limit: RateLimit, maxWait: Double) async -> TokenBucketState.Reservation
}

/// The embedded default: a locked state file per breaker under `directory`, shared by every `seek`
/// process on the machine (nil `directory`: this process's memory).
public struct FileBreakerStore: BreakerStore {
    public let directory: URL?
    public let clock: ResilienceClock
    /// `directory`'s path, worked out once: each provider call names its breaker's file twice.
    private let directoryPath: String?

    public init(directory: URL?, clock: ResilienceClock = .system) {
        self.directory = directory
        self.clock = clock
        directoryPath = directory?.path
    }

    public func admit(_ key: String, policy: BreakerPolicy) async -> BreakerDecision {
        let now = clock.now()
        return file(key).update { $0.admit(at: now, policy: policy) }
    }

    public func record(_ key: String, outcome: BreakerOutcome, probe: Bool, policy: BreakerPolicy) async {
        let now = clock.now()
        file(key).update { $0.record(outcome, probe: probe, at: now, policy: policy) }
    }

    public func state(_ key: String) async -> BreakerState { file(key).read() }

    public func reset(provider id: String) async {
        guard let directory else {
            file(id).reset()
            return
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name == "\(id).json" || name.hasPrefix("\(id)@") {
            LockedStateFile(url: directory.appendingPathComponent(name), empty: BreakerState()).reset()
        }
    }

    /// The state file of breaker `key`: its name made safe for a file system.
    package func file(_ key: String) -> LockedStateFile<BreakerState> {
        guard let directoryPath else { return LockedStateFile(inMemory: "breaker/" + key, empty: BreakerState()) }
        return LockedStateFile(path: directoryPath + "/" + Self.fileName(key), empty: BreakerState())
    }

    package static func fileName(_ key: String) -> String {
        if key.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII (every provider id and host so far): the same rule on bytes, without Character
            // properties, as each provider call names this file twice.
            let safe = key.utf8.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "@"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    byte
                default: UInt8(ascii: "_")
                }
            }
            return String(decoding: safe, as: UTF8.self) + ".json"
        }
        return String(key.map { $0.isLetter || $0.isNumber || "@.-_".contains($0) ? $0 : "_" }) + ".json"
    }
}

/// The embedded default: a locked state file per host under `directory` (`<directory>/<host>.json`),
/// shared by every `seek` process on the machine (nil `directory`: this process's memory).
public struct FileRateLimitStore: RateLimitStore {
    public let directory: URL?
    public let clock: ResilienceClock
    /// `directory`'s path, worked out once: each rate-limited request names its bucket's file.
    private let directoryPath: String?

    public init(directory: URL?, clock: ResilienceClock = .system) {
        self.directory = directory
        self.clock = clock
        directoryPath = directory?.path
    }

    public func reserve(_ key: String, limit: RateLimit, maxWait: Double) async -> TokenBucketState.Reservation {
        let now = clock.now()
        return bucket(key, limit: limit).update { $0.reserve(at: now, limit: limit, maxWait: maxWait) }
    }

    /// The bucket of `key`: a locked file, or process memory without a directory.
    package func bucket(_ key: String, limit: RateLimit) -> LockedStateFile<TokenBucketState> {
        let empty = TokenBucketState(tokens: limit.burst, updatedAt: Date(timeIntervalSince1970: 0))
        guard let directoryPath else { return LockedStateFile(inMemory: "ratelimit/" + key, empty: empty) }
        let name = String(key.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        return LockedStateFile(path: directoryPath + "/" + name + ".json", empty: empty)
    }
}

extension RateLimit {
    /// This limit divided among `instances` sharers: what one of them may spend on its own.
    public func share(among instances: Int) -> RateLimit {
        let count = Double(max(1, instances))
        return RateLimit(requests: requests / count, per: per, burst: max(1, burst / count))
    }
}

/// Buckets in this store's own memory, for keys without end (one per client address): a bucket that
/// has filled up again is the same as none, so such buckets are dropped as the store grows.
public final class MemoryRateLimitStore: RateLimitStore {
    private let buckets = NIOLockedValueBox<[String: TokenBucketState]>([:])
    private let clock: ResilienceClock
    /// How many buckets may be kept before the full ones are dropped.
    private let sweepAbove: Int

    public init(clock: ResilienceClock = .system, sweepAbove: Int = 10_000) {
        self.clock = clock
        self.sweepAbove = max(1, sweepAbove)
    }

    public func reserve(_ key: String, limit: RateLimit, maxWait: Double) async -> TokenBucketState.Reservation {
        let now = clock.now()
        return buckets.withLockedValue { buckets in
            if buckets.count >= sweepAbove {
                // A bucket untouched for as long as it takes to refill is full: forgetting it changes nothing.
                let refill = limit.burst / limit.ratePerSecond
                buckets = buckets.filter { now.timeIntervalSince($0.value.updatedAt) < refill }
            }
            var state = buckets[key] ?? TokenBucketState(tokens: limit.burst, updatedAt: now)
            let answer = state.reserve(at: now, limit: limit, maxWait: maxWait)
            buckets[key] = state
            return answer
        }
    }

    /// How many buckets are kept.
    public var count: Int { buckets.withLockedValue { $0.count } }
}
