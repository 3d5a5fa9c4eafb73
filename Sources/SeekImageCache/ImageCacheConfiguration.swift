import Foundation
import SeekKit
import SeekCore

/// Limits and places of the image cache, with the defaults `seek` uses.
public struct ImageCacheConfiguration: Sendable, Hashable {
    /// The disk tier's folder; nil keeps images in memory only.
    public var directory: URL?
    public var memoryLimitBytes: Int
    public var memoryCountLimit: Int
    /// The largest share of the memory limit one image may take (larger ones skip the memory tier).
    public var memoryEntryFraction: Double
    public var diskLimitBytes: Int
    /// How long a disk entry stays valid after it was stored.
    public var timeToLive: TimeInterval
    /// How long one download may take.
    public var requestTimeout: Duration
    /// A larger reply is refused without being held in memory.
    public var maxImageBytes: Int

    public static let defaultTimeToLive: TimeInterval = 7 * 86_400
    /// 8 MB (some 300 covers): with the response cache's 8 MB, a long-running server stays under
    /// 90 MiB (issue 30); the disk tier holds the rest.
    public static let defaultMemoryLimitMB = 8
    public static let defaultDiskLimitMB = 256
    /// The environment variable (seconds) that overrides `imageCache.ttlDays`.
    public static let ttlVariable = "SEEK_IMAGE_CACHE_TTL"
    /// The environment variable (megabytes) that overrides `imageCache.memoryLimitMB`.
    public static let memoryLimitVariable = "SEEK_IMAGE_CACHE_MEMORY_MB"
    /// The longest an image stays valid: ten years (`SEEK_IMAGE_CACHE_TTL` seconds, `ttlDays` days).
    public static let maxTimeToLive: TimeInterval = 3650 * 86_400

    public init(
        directory: URL?, memoryLimitBytes: Int = defaultMemoryLimitMB * 1024 * 1024, memoryCountLimit: Int = 500,
        memoryEntryFraction: Double = 0.1, diskLimitBytes: Int = defaultDiskLimitMB * 1024 * 1024,
        timeToLive: TimeInterval = defaultTimeToLive, requestTimeout: Duration = .seconds(30),
        maxImageBytes: Int = 32 * 1024 * 1024
    ) {
        self.directory = directory
        self.memoryLimitBytes = memoryLimitBytes
        self.memoryCountLimit = memoryCountLimit
        self.memoryEntryFraction = memoryEntryFraction
        self.diskLimitBytes = diskLimitBytes
        self.timeToLive = timeToLive
        self.requestTimeout = requestTimeout
        self.maxImageBytes = maxImageBytes
    }

    /// The configuration from settings: the disk tier in `<cache dir>/images`; the config file's
    /// `imageCache.ttlDays`, `imageCache.diskLimitMB` and `imageCache.memoryLimitMB`;
    /// `SEEK_IMAGE_CACHE_TTL` (seconds), which wins over `ttlDays`; and `SEEK_IMAGE_CACHE_MEMORY_MB`,
    /// which wins over `memoryLimitMB`.
    public init(settings: Settings) throws {
        self.init(directory: settings.cacheDirectory.appendingPathComponent("images"))
        let section = settings.file["imageCache"]
        if let text = settings.string(Self.ttlVariable) {
            guard let seconds = Double(text.trimmed()), seconds > 0, seconds <= Self.maxTimeToLive else {
                throw SeekError(
                    .configuration,
                    detail: "\(Self.ttlVariable) must be a number of seconds above 0 and at most \(SeekError.format(Self.maxTimeToLive)) (ten years), got \(text)")
            }
            timeToLive = seconds
        } else if let days = try Self.number(section, "ttlDays", allowZero: false, maximum: Self.maxTimeToLive / 86_400) {
            timeToLive = days * 86_400
        }
        if let megabytes = try Self.number(section, "diskLimitMB", allowZero: false, maximum: Self.maxLimitMB) {
            diskLimitBytes = Int(saturating: megabytes * 1024 * 1024)
        }
        if let text = settings.string(Self.memoryLimitVariable) {
            guard let megabytes = Double(text.trimmed()), megabytes >= 0, megabytes <= Self.maxLimitMB else {
                throw SeekError(
                    .configuration,
                    detail: "\(Self.memoryLimitVariable) must be a number of megabytes from 0 to \(SeekError.format(Self.maxLimitMB)), got \(text)")
            }
            memoryLimitBytes = Int(saturating: megabytes * 1024 * 1024)
        } else if let megabytes = try Self.number(section, "memoryLimitMB", allowZero: true, maximum: Self.maxLimitMB) {
            memoryLimitBytes = Int(saturating: megabytes * 1024 * 1024)
        }
    }

    /// The largest disk or memory limit, in megabytes (a petabyte: past it a limit is a typo).
    static let maxLimitMB: Double = 1_000_000_000

    private static func number(_ section: JSONValue?, _ key: String, allowZero: Bool, maximum: Double) throws -> Double? {
        guard let value = section?[key], value != .null else { return nil }
        guard let number = value.doubleValue, allowZero ? number >= 0 : number > 0, number <= maximum else {
            let wanted = allowZero ? "a number from 0" : "a number above 0 and"
            throw SeekError(
                .configuration, detail: "imageCache.\(key) in the config file must be \(wanted) at most \(SeekError.format(maximum))")
        }
        return number
    }
}
