import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit

/// The default `ImageStore`: a memory tier, a disk tier and the network, with request coalescing.
///
/// Memory and disk hits are served in the caller's task (a disk hit costs a read and a checksum, no
/// hop to another task). Downloads are coalesced as in Nuke: one in-flight download per URL; later
/// callers subscribe to it; a caller that is cancelled leaves at once without disturbing the others;
/// the download is cancelled only when its last subscriber has gone, and it leaves the table when it ends.
public final class ImageCache: ImageStore {
    public let memory: MemoryImageCache
    /// Nil when the cache is memory only.
    public let disk: DiskImageCache?
    private let transport: any HTTPTransport
    private let requestTimeout: Duration
    private let maxImageBytes: Int
    private let flights = NIOLockedValueBox(FlightTable())
    /// Counters not yet added to `persisted`.
    private let pending = NIOLockedValueBox(ImageCacheCounters())
    /// Hit/miss counters shared by every process using the same disk folder; nil when memory only
    /// (the counters then stay in `pending`).
    private let persisted: LockedStateFile<ImageCacheCounters>?
    /// When counters were last written; loads write them at most every `flushInterval`.
    private let lastFlush = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
    static let flushInterval: Duration = .seconds(2)

    public init(
        memory: MemoryImageCache, disk: DiskImageCache?, transport: any HTTPTransport,
        requestTimeout: Duration = .seconds(30), maxImageBytes: Int = 32 * 1024 * 1024
    ) {
        self.memory = memory
        self.disk = disk
        self.transport = transport
        self.requestTimeout = requestTimeout
        self.maxImageBytes = maxImageBytes
        persisted = disk.map {
            LockedStateFile(url: $0.directory.appendingPathComponent(".statistics.json"), empty: ImageCacheCounters())
        }
    }

    /// A cache built from `configuration`; `now` is the clock of TTLs and last-access dates.
    public convenience init(
        configuration: ImageCacheConfiguration, transport: any HTTPTransport,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        let memory = MemoryImageCache(
            costLimit: configuration.memoryLimitBytes, countLimit: configuration.memoryCountLimit,
            entryCostFraction: configuration.memoryEntryFraction)
        let disk = configuration.directory.map {
            DiskImageCache(directory: $0, sizeLimit: configuration.diskLimitBytes, timeToLive: configuration.timeToLive, now: now)
        }
        self.init(
            memory: memory, disk: disk, transport: transport, requestTimeout: configuration.requestTimeout,
            maxImageBytes: configuration.maxImageBytes)
    }

    deinit {
        flushStatistics()
    }

    // MARK: - ImageStore

    public func image(at url: URL, provider: String) async throws -> CachedImage {
        let key = url.absoluteString
        if let hit = memory.image(for: key) {
            count { $0.memoryHits += 1 }
            return hit
        }
        count { $0.memoryMisses += 1 }
        if let image = diskImage(for: key) { return image }
        try Task.checkCancellation()
        let waiter = flights.withLockedValue { $0.allocateWaiter() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(key: key, waiter: waiter, continuation: continuation) {
                    try await self.load(url: url, key: key, provider: provider)
                }
            }
        } onCancel: {
            leave(key: key, waiter: waiter)
        }
    }

    public func statistics() -> ImageCacheStatistics {
        let counters = storedCounters() + pending.withLockedValue { $0 }
        var memoryTier = memory.statistics
        memoryTier.hits = counters.memoryHits
        memoryTier.misses = counters.memoryMisses
        var diskTier = TierStatistics(hits: counters.diskHits, misses: counters.diskMisses)
        if let disk {
            let usage = disk.usage()
            diskTier.entries = usage.entries
            diskTier.bytes = usage.bytes
            diskTier.limitBytes = disk.sizeLimit
        }
        return ImageCacheStatistics(
            memory: memoryTier, disk: diskTier, downloads: counters.downloads, rejected: counters.rejected,
            corrupt: counters.corrupt, directory: disk?.directory.path, timeToLiveSeconds: disk?.timeToLive ?? 0)
    }

    @discardableResult
    public func removeAll() throws -> PruneReport {
        let entries = memory.statistics.entries
        memory.removeAll()
        var report = disk?.removeAll() ?? PruneReport()
        if disk == nil { report.evicted = entries }
        pending.withLockedValue { $0 = ImageCacheCounters() }
        persisted?.reset()
        return report
    }

    @discardableResult
    public func prune() throws -> PruneReport {
        let report = disk?.prune() ?? PruneReport()
        count { $0.corrupt += report.corrupt }
        flushStatistics()
        return report
    }

    public func flushStatistics() {
        guard let persisted else { return }
        lastFlush.withLockedValue { $0 = ContinuousClock.now }
        let delta = pending.withLockedValue { counters -> ImageCacheCounters in
            defer { counters = ImageCacheCounters() }
            return counters
        }
        guard !delta.isZero else { return }
        persisted.update { $0 = $0 + delta }
    }

    /// Writes the counters unless that was done less than `flushInterval` ago (the file is shared and locked).
    private func flushStatisticsIfDue() {
        let now = ContinuousClock.now
        let due = lastFlush.withLockedValue { last in last.map { now - $0 >= Self.flushInterval } ?? true }
        if due { flushStatistics() }
    }

    /// Upstream requests started by this instance (for tests and benchmarks).
    public var downloadCount: Int {
        flights.withLockedValue { $0.downloads }
    }

    // MARK: - Loading

    /// The verified disk entry for `key` (then also kept in memory); counts a disk hit or miss.
    private func diskImage(for key: String) -> CachedImage? {
        guard let disk else { return nil }
        switch disk.lookup(key) {
        case .hit(let data):
            guard let format = ImageSignature.format(of: data) else {
                disk.remove(key)
                count { $0.diskMisses += 1 }
                return nil
            }
            count { $0.diskHits += 1 }
            let image = CachedImage(data: data, format: format, origin: .disk)
            memory.store(image, for: key)
            return image
        case .corrupt:
            count { $0.diskMisses += 1; $0.corrupt += 1 }
        case .miss, .expired:
            count { $0.diskMisses += 1 }
        }
        return nil
    }

    /// Runs once per URL however many callers wait: downloads and stores in both tiers.
    private func load(url: URL, key: String, provider: String) async throws -> CachedImage {
        defer { flushStatisticsIfDue() }
        // A download that finished between this caller's lookups and its joining has stored the image.
        if let image = memory.image(for: key) { return image }
        if let data = disk?.data(for: key), let format = ImageSignature.format(of: data) {
            return CachedImage(data: data, format: format, origin: .disk)
        }
        try Task.checkCancellation()
        let image = try await download(url, provider: provider)
        memory.store(image, for: key)
        // A full or read-only disk must not fail the caller: the image is in hand.
        try? disk?.store(image.data, for: key)
        return image
    }

    /// GETs `url`; a 404, a body that is not an image, or a 1×1 placeholder is "no image" and is not cached.
    private func download(_ url: URL, provider: String) async throws -> CachedImage {
        count { $0.downloads += 1 }
        flights.withLockedValue { $0.downloads += 1 }
        let client = ProviderClient(provider: provider, transport: transport, timeout: requestTimeout, maxBodyBytes: maxImageBytes)
        let response = try await client.fetch(url, headers: [("Accept", "image/*")])
        let printable = Redaction.redact(url: url)
        if response.status == 404 || response.status == 410 {
            count { $0.rejected += 1 }
            throw SeekError(.notFound, provider: provider, detail: "no image: HTTP \(response.status) (\(printable))")
        }
        try client.check(response, url: url)
        guard let format = ImageSignature.format(of: response.body) else {
            count { $0.rejected += 1 }
            let type = response.header("content-type").map { "\($0), " } ?? ""
            throw SeekError(
                .notFound, provider: provider,
                detail: "no image: the reply (\(type)\(response.body.count) bytes) is not a JPEG, PNG, GIF or WebP image (\(printable))")
        }
        guard !ImageSignature.isPlaceholder(response.body) else {
            count { $0.rejected += 1 }
            throw SeekError(.notFound, provider: provider, detail: "no image: the reply is a 1×1 placeholder (\(printable))")
        }
        return CachedImage(data: response.body, format: format, origin: .network)
    }

    // MARK: - Coalescing

    /// Subscribes `waiter` to the load of `key`, starting the load when there is none.
    private func join(
        key: String, waiter: UInt64, continuation: CheckedContinuation<CachedImage, any Error>,
        work: @escaping @Sendable () async throws -> CachedImage
    ) {
        let cancelledAlready = flights.withLockedValue { table -> Bool in
            table.unjoined.remove(waiter)
            if table.cancelledBeforeJoining.remove(waiter) != nil { return true }
            if table.flights[key] != nil {
                table.flights[key]?.waiters[waiter] = continuation
                return false
            }
            table.nextFlight += 1
            let id = table.nextFlight
            let task = Task {
                let result: Result<CachedImage, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                self.finish(key: key, flight: id, result: result)
            }
            table.flights[key] = Flight(id: id, task: task, waiters: [waiter: continuation])
            return false
        }
        if cancelledAlready { continuation.resume(throwing: CancellationError()) }
    }

    /// A cancelled waiter leaves; the load is cancelled when it was the last one.
    private func leave(key: String, waiter: UInt64) {
        let (continuation, task) = flights.withLockedValue { table -> (CheckedContinuation<CachedImage, any Error>?, Task<Void, Never>?) in
            guard let continuation = table.flights[key]?.waiters.removeValue(forKey: waiter) else {
                // Not subscribed yet: remember, so `join` answers at once. Already answered: nothing to do.
                if table.unjoined.contains(waiter) { table.cancelledBeforeJoining.insert(waiter) }
                return (nil, nil)
            }
            guard table.flights[key]?.waiters.isEmpty == true else { return (continuation, nil) }
            let task = table.flights[key]?.task
            table.flights[key] = nil
            return (continuation, task)
        }
        continuation?.resume(throwing: CancellationError())
        task?.cancel()
    }

    /// Hands the load's result to every waiter still subscribed.
    private func finish(key: String, flight id: UInt64, result: Result<CachedImage, any Error>) {
        let waiters = flights.withLockedValue { table -> [CheckedContinuation<CachedImage, any Error>] in
            guard let flight = table.flights[key], flight.id == id else { return [] }
            table.flights[key] = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func count(_ change: (inout ImageCacheCounters) -> Void) {
        pending.withLockedValue { counters in change(&counters) }
    }

    private func storedCounters() -> ImageCacheCounters {
        guard let persisted, let path = persisted.path, FileManager.default.fileExists(atPath: path) else {
            return ImageCacheCounters()
        }
        return persisted.read()
    }
}

/// In-flight loads by key, and the waiters subscribed to each.
private struct FlightTable {
    var flights: [String: Flight] = [:]
    var nextWaiter: UInt64 = 0
    var nextFlight: UInt64 = 0
    /// Waiters allocated but not yet subscribed.
    var unjoined: Set<UInt64> = []
    /// Waiters cancelled before they could subscribe.
    var cancelledBeforeJoining: Set<UInt64> = []
    var downloads = 0

    mutating func allocateWaiter() -> UInt64 {
        nextWaiter += 1
        unjoined.insert(nextWaiter)
        return nextWaiter
    }
}

private struct Flight {
    let id: UInt64
    let task: Task<Void, Never>
    var waiters: [UInt64: CheckedContinuation<CachedImage, any Error>]
}

/// Hits, misses and outcomes, persisted next to the disk entries so `seek cache stats` sees every process's.
struct ImageCacheCounters: Codable, Sendable, Hashable {
    var memoryHits = 0
    var memoryMisses = 0
    var diskHits = 0
    var diskMisses = 0
    var downloads = 0
    var rejected = 0
    var corrupt = 0

    var isZero: Bool { self == ImageCacheCounters() }

    static func + (lhs: ImageCacheCounters, rhs: ImageCacheCounters) -> ImageCacheCounters {
        ImageCacheCounters(
            memoryHits: lhs.memoryHits + rhs.memoryHits, memoryMisses: lhs.memoryMisses + rhs.memoryMisses,
            diskHits: lhs.diskHits + rhs.diskHits, diskMisses: lhs.diskMisses + rhs.diskMisses,
            downloads: lhs.downloads + rhs.downloads, rejected: lhs.rejected + rhs.rejected, corrupt: lhs.corrupt + rhs.corrupt)
    }
}
