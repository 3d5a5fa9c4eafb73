import Foundation

/// The role every image consumer uses: "give me the bytes at this URL", served from memory, disk or
/// the network, one download per URL however many callers ask at once. The default is `ImageCache`.
///
/// Providers only map items to image URLs; they never fetch or cache image bytes themselves.
public protocol ImageStore: Sendable {
    /// The image at `url`; `provider` names who it belongs to in errors ("openlibrary: …").
    /// Throws `SeekError`: `.notFound` with "no image" when the reply is missing, HTML or a placeholder.
    func image(at url: URL, provider: String) async throws -> CachedImage

    /// Entries, bytes, limits, hits and misses per tier.
    func statistics() -> ImageCacheStatistics

    /// Forgets every entry of every tier (and the hit/miss counters).
    @discardableResult
    func removeAll() throws -> PruneReport

    /// Removes expired and damaged entries and leftovers, then trims the disk tier to its limit.
    @discardableResult
    func prune() throws -> PruneReport

    /// Writes hit/miss counters not yet persisted, so the next process sees them (loads do it at most
    /// every two seconds; call this at the end of a run).
    func flushStatistics()
}

/// Image bytes with their recognised format and where they came from this time.
public struct CachedImage: Sendable, Hashable {
    public var data: Data
    public var format: ImageFormat
    public var origin: ImageOrigin

    public init(data: Data, format: ImageFormat, origin: ImageOrigin) {
        self.data = data
        self.format = format
        self.origin = origin
    }
}

/// Which tier answered.
public enum ImageOrigin: String, Sendable, Hashable, Codable {
    case memory, disk, network
    /// Drawn by Seek for an item without an image of its own (`GeneratedCover`), never cached.
    case generated
}

/// What one tier holds and how often it answered.
public struct TierStatistics: Sendable, Hashable, Codable {
    public var entries: Int
    public var bytes: Int
    public var limitBytes: Int
    public var hits: Int
    public var misses: Int

    public init(entries: Int = 0, bytes: Int = 0, limitBytes: Int = 0, hits: Int = 0, misses: Int = 0) {
        self.entries = entries
        self.bytes = bytes
        self.limitBytes = limitBytes
        self.hits = hits
        self.misses = misses
    }
}

/// The whole cache's figures, as `seek cache stats` prints them.
public struct ImageCacheStatistics: Sendable, Hashable, Codable {
    public var memory: TierStatistics
    public var disk: TierStatistics
    /// Upstream requests made.
    public var downloads: Int
    /// Replies refused because they were not an image (HTML, placeholder, empty, 404).
    public var rejected: Int
    /// Disk entries found truncated or damaged and removed.
    public var corrupt: Int
    /// The disk tier's folder, when there is one.
    public var directory: String?
    public var timeToLiveSeconds: Double

    public init(
        memory: TierStatistics, disk: TierStatistics, downloads: Int = 0, rejected: Int = 0, corrupt: Int = 0,
        directory: String? = nil, timeToLiveSeconds: Double = 0
    ) {
        self.memory = memory
        self.disk = disk
        self.downloads = downloads
        self.rejected = rejected
        self.corrupt = corrupt
        self.directory = directory
        self.timeToLiveSeconds = timeToLiveSeconds
    }
}

/// What a prune or clear removed, and what is left on disk.
public struct PruneReport: Sendable, Hashable, Codable {
    public var expired = 0
    public var corrupt = 0
    /// Entries evicted (least recently used first) to get under the size limit, or cleared.
    public var evicted = 0
    /// Leftover temporary files of interrupted writes.
    public var temporary = 0
    public var freedBytes = 0
    public var remainingEntries = 0
    public var remainingBytes = 0

    public init() {}

    public var removedEntries: Int { expired + corrupt + evicted }
}
