import Foundation
import SeekKit
import SeekCore

/// How long cached responses stay fresh, how long they may serve as a stale fallback, and whether
/// this run reads them at all.
public struct CachePolicy: Sendable, Hashable {
    public static let defaultSearchTTL: TimeInterval = 600
    public static let defaultDetailTTL: TimeInterval = 86_400
    public static let defaultMaxStaleAge: TimeInterval = 7 * 86_400

    /// Seconds a search answer is fresh; 0 turns the search cache off (no reads, writes or stale fallback).
    public var searchTTL: TimeInterval
    /// Seconds a detail answer is fresh; 0 turns the detail cache off.
    public var detailTTL: TimeInterval
    /// Seconds after it was stored that an entry may still be served when its provider fails.
    public var maxStaleAge: TimeInterval
    /// `--no-cache`: answer nothing from the cache, fresh or stale, but still store fresh answers.
    public var bypassReads: Bool
    /// Bytes of stored JSON the memory tier in front of the database may hold; 0 keeps none there.
    public var memoryLimitBytes: Int
    /// Bytes of stored answers the database may hold; past it the oldest are forgotten first.
    public var diskLimitBytes: Int

    /// 256 MB, as the image cache's disk tier: some 20,000 pages of 20 results.
    public static let defaultDiskLimitBytes = 256 * 1024 * 1024

    public init(
        searchTTL: TimeInterval = Self.defaultSearchTTL, detailTTL: TimeInterval = Self.defaultDetailTTL,
        maxStaleAge: TimeInterval = Self.defaultMaxStaleAge, bypassReads: Bool = false,
        memoryLimitBytes: Int = ResponseMemory.defaultLimitBytes, diskLimitBytes: Int = Self.defaultDiskLimitBytes
    ) {
        self.searchTTL = max(0, searchTTL)
        self.detailTTL = max(0, detailTTL)
        self.maxStaleAge = max(0, maxStaleAge)
        self.bypassReads = bypassReads
        self.memoryLimitBytes = max(0, memoryLimitBytes)
        self.diskLimitBytes = max(1, diskLimitBytes)
    }

    /// The largest memory tier or disk bound, in megabytes (a terabyte: past it a limit is a typo).
    public static let maxMemoryLimitMB: Double = 1_048_576

    /// The longest a cached answer may be kept fresh or stale: ten years, in seconds and in days.
    public static let maxTTL: TimeInterval = 3650 * 86_400
    public static let maxStaleDays: Double = 3650

    /// From settings: `SEEK_SEARCH_CACHE_TTL` / `SEEK_DETAIL_CACHE_TTL` (seconds) over the config file's
    /// `cache.searchTTL` / `cache.detailTTL`; `SEEK_CACHE_MAX_STALE_DAYS` over `cache.maxStaleDays`;
    /// `SEEK_NO_CACHE=1` bypasses reads; `SEEK_CACHE_MEMORY_MB` over `cache.memoryLimitMB` bounds the
    /// memory tier (megabytes, default 8); `SEEK_CACHE_DISK_MB` over `cache.diskLimitMB` bounds the stored
    /// answers (megabytes above 0, default 256). A value that is not a number in its range (NaN,
    /// infinity, 1e300, a negative number, an empty string) is a configuration error.
    public init(settings: Settings) throws {
        func number(_ variable: String, key: String, upTo limit: Double, unit: String, scale: Double = 1,
                    allowZero: Bool = true, default fallback: Double) throws -> Double {
            let raw: JSONValue? = settings.string(variable).map(JSONValue.string) ?? settings.file["cache"]?[key]
            guard let raw else { return fallback }
            guard let value = raw.doubleValue, allowZero ? value >= 0 : value > 0, value <= limit else {
                let shown = raw.stringValue ?? "a non-number"
                let range = allowZero ? "from 0 to" : "above 0 and at most"
                throw SeekError(
                    .configuration,
                    detail: "\(variable) (config cache.\(key)) must be a number of \(unit) \(range) \(SeekError.format(limit))\(unit == "megabytes" ? "" : " (ten years)"), not '\(shown)'")
            }
            return value * scale + 0
        }
        self.init(
            searchTTL: try number("SEEK_SEARCH_CACHE_TTL", key: "searchTTL", upTo: Self.maxTTL, unit: "seconds", default: Self.defaultSearchTTL),
            detailTTL: try number("SEEK_DETAIL_CACHE_TTL", key: "detailTTL", upTo: Self.maxTTL, unit: "seconds", default: Self.defaultDetailTTL),
            maxStaleAge: try number(
                "SEEK_CACHE_MAX_STALE_DAYS", key: "maxStaleDays", upTo: Self.maxStaleDays, unit: "days", scale: 86_400,
                default: Self.defaultMaxStaleAge),
            bypassReads: StoreSettings.isTrue(settings.string("SEEK_NO_CACHE")),
            memoryLimitBytes: Int(saturating:
                try number(
                    "SEEK_CACHE_MEMORY_MB", key: "memoryLimitMB", upTo: Self.maxMemoryLimitMB, unit: "megabytes",
                    scale: 1024 * 1024, default: Double(ResponseMemory.defaultLimitBytes)
                ).rounded(.down)),
            diskLimitBytes: Int(saturating:
                try number(
                    "SEEK_CACHE_DISK_MB", key: "diskLimitMB", upTo: Self.maxMemoryLimitMB, unit: "megabytes",
                    scale: 1024 * 1024, allowZero: false, default: Double(Self.defaultDiskLimitBytes)
                ).rounded(.up)))
    }

    /// Whether any cache is on.
    public var isEnabled: Bool { searchTTL > 0 || detailTTL > 0 }

    /// How long the store must keep an entry: until it can serve neither fresh nor stale.
    public var retention: TimeInterval { max(maxStaleAge, searchTTL, detailTTL) }

    func ttl(_ kind: CacheKind) -> TimeInterval {
        switch kind {
        case .search: return searchTTL
        case .detail: return detailTTL
        }
    }
}

/// Reading user-state settings.
public enum StoreSettings {
    /// The history bound: `SEEK_HISTORY_LIMIT` over the config file's `history.limit`, default 10.
    /// 0 keeps no history; anything but a whole number from 0 to 10000 is a configuration error.
    public static func historyLimit(_ settings: Settings) throws -> Int {
        let raw: JSONValue? = settings.string("SEEK_HISTORY_LIMIT").map(JSONValue.string) ?? settings.file["history"]?["limit"]
        guard let raw else { return SQLiteHistoryStore.defaultLimit }
        guard let value = raw.doubleValue, value == value.rounded(), (0...10_000).contains(value),
              let limit = Int(checked: value)
        else {
            let shown = raw.stringValue ?? "a non-number"
            throw SeekError(.configuration, detail: "SEEK_HISTORY_LIMIT (config history.limit) must be a whole number from 0 to 10000, not '\(shown)'")
        }
        return limit
    }

    /// True for `1`, `true`, `yes` and `on`, in any case.
    public static func isTrue(_ text: String?) -> Bool {
        guard let text else { return false }
        return ["1", "true", "yes", "on"].contains(text.trimmed().lowercased())
    }
}
