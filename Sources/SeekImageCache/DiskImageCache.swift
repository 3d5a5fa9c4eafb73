#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekSupport

/// The disk tier: one file per URL, named by the SHA-256 of the URL, each verified on every read.
///
/// Entry file layout (all integers big-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `SEEKIMG1` |
/// | 8 | 8 | body length in bytes |
/// | 16 | 8 | stored-at, milliseconds since 1970 (the TTL counts from here) |
/// | 24 | 32 | SHA-256 of bytes 0..<24 followed by the body |
/// | 56 | n | the image bytes |
///
/// Writes go to a uniquely named temporary file in the same folder and are renamed over the entry,
/// so a reader — in this process or another — sees the old file or the new one, never half of
/// either, and a killed writer leaves only a `.tmp-` file that `prune` removes. A file that is
/// short, long or damaged fails its length or checksum check, is deleted, and reads as a miss.
/// The last access is the file's modification date (Linux ignores creation-date writes), set on a
/// hit when it is more than a second old; the size sweep removes the least recently used entries
/// first, down to `trimRatio` of the limit. The TTL counts from the stored-at field, not the date.
public final class DiskImageCache: Sendable {
    public let directory: URL
    /// The most bytes the entry files may take before a sweep.
    public let sizeLimit: Int
    /// How long an entry stays valid after it was stored.
    public let timeToLive: TimeInterval
    /// A sweep trims to this fraction of `sizeLimit`, so it does not run again at the next write.
    public let trimRatio: Double
    private let now: @Sendable () -> Date
    /// Bytes on disk as this process believes them to be; nil until the first scan.
    private let estimatedSize = NIOLockedValueBox<Int?>(nil)

    public static let headerSize = 56
    static let magic = Array("SEEKIMG1".utf8)
    static let temporaryPrefix = ".tmp-"
    /// Temporary files older than this belong to an interrupted writer.
    static let staleTemporaryAge: TimeInterval = 600

    public init(
        directory: URL, sizeLimit: Int = 256 * 1024 * 1024, timeToLive: TimeInterval = 7 * 86_400,
        trimRatio: Double = 0.7, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.directory = directory
        self.sizeLimit = max(0, sizeLimit)
        self.timeToLive = timeToLive
        self.trimRatio = min(1, max(0, trimRatio))
        self.now = now
    }

    /// What a lookup found.
    public enum Lookup: Sendable, Hashable {
        case hit(Data)
        case miss
        case expired
        /// The file was truncated or damaged; it has been removed.
        case corrupt
    }

    /// The entry's file: the lowercase hex SHA-256 of the key.
    public func fileURL(for key: String) -> URL {
        directory.appendingPathComponent(Self.fileName(for: key))
    }

    public static func fileName(for key: String) -> String {
        hex(SHA256.hash(data: Data(key.utf8)))
    }

    /// The verified bytes stored under `key`, or nil; a hit becomes the most recently used entry.
    public func data(for key: String) -> Data? {
        if case .hit(let data) = lookup(key) { return data }
        return nil
    }

    /// Reads and verifies the entry for `key`; removes it when it is expired or damaged.
    public func lookup(_ key: String) -> Lookup {
        let url = fileURL(for: key)
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .miss }
        defer { close(fd) }
        guard let (file, modified) = Self.readAll(fd) else { return .miss }
        switch Self.decode(file) {
        case nil:
            remove(at: url)
            return .corrupt
        case let (storedAt, body)?:
            let current = now()
            guard current.timeIntervalSince(storedAt) <= timeToLive else {
                remove(at: url)
                return .expired
            }
            // The sweep needs last use to the second, not to the nanosecond: skip most metadata writes.
            if abs(current.timeIntervalSince(modified)) >= Self.touchResolution { Self.touch(fd, at: current) }
            return .hit(body)
        }
    }

    /// Stores `data` under `key` atomically (temporary file + rename), then sweeps when over the limit.
    /// An entry larger than the whole limit is not stored.
    public func store(_ data: Data, for key: String) throws {
        let entry = Self.encode(data, storedAt: now())
        guard entry.count <= sizeLimit else { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        let destination = fileURL(for: key)
        do {
            try entry.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw SeekError(.configuration, detail: "cannot write to the image cache \(directory.path): \(error.localizedDescription)")
        }
        touch(temporary)
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw SeekError(.configuration, detail: "cannot rename into the image cache \(directory.path): \(reason)")
        }
        let known = estimatedSize.withLockedValue { size -> Int? in
            guard let known = size else { return nil }
            size = known + entry.count
            return size
        }
        if (known ?? usage().bytes) > sizeLimit {
            sweep()
        }
    }

    public func remove(_ key: String) {
        remove(at: fileURL(for: key))
    }

    /// Removes the least recently used entries until the total is at most `trimRatio` of the limit,
    /// if it is over the limit now. Returns the entries removed and the bytes freed.
    @discardableResult
    public func sweep() -> (entries: Int, bytes: Int) {
        let entries = scan()
        var total = entries.reduce(0) { $0 + $1.size }
        var removed = (entries: 0, bytes: 0)
        if total > sizeLimit {
            let target = Int(Double(sizeLimit) * trimRatio)
            let byAge = entries.sorted { ($0.modified, $0.url.lastPathComponent) < ($1.modified, $1.url.lastPathComponent) }
            for entry in byAge where total > target {
                remove(at: entry.url)
                total -= entry.size
                removed.entries += 1
                removed.bytes += entry.size
            }
        }
        estimatedSize.withLockedValue { $0 = total }
        return removed
    }

    /// Removes expired and damaged entries and stale temporary files, then sweeps to the size limit.
    public func prune() -> PruneReport {
        var report = PruneReport()
        let current = now()
        for entry in scan() {
            guard let file = FileManager.default.contents(atPath: entry.url.path) else { continue }
            guard let (storedAt, _) = Self.decode(file) else {
                remove(at: entry.url)
                report.corrupt += 1
                report.freedBytes += entry.size
                continue
            }
            if current.timeIntervalSince(storedAt) > timeToLive {
                remove(at: entry.url)
                report.expired += 1
                report.freedBytes += entry.size
            }
        }
        for temporary in temporaryFiles() where current.timeIntervalSince(temporary.modified) > Self.staleTemporaryAge {
            remove(at: temporary.url)
            report.temporary += 1
            report.freedBytes += temporary.size
        }
        let swept = sweep()
        report.evicted += swept.entries
        report.freedBytes += swept.bytes
        let remaining = usage()
        report.remainingEntries = remaining.entries
        report.remainingBytes = remaining.bytes
        return report
    }

    /// Removes every entry and temporary file.
    public func removeAll() -> PruneReport {
        var report = PruneReport()
        for entry in scan() + temporaryFiles() {
            remove(at: entry.url)
            if entry.url.lastPathComponent.hasPrefix(Self.temporaryPrefix) {
                report.temporary += 1
            } else {
                report.evicted += 1
            }
            report.freedBytes += entry.size
        }
        estimatedSize.withLockedValue { $0 = 0 }
        return report
    }

    /// Entries and bytes on disk now.
    public func usage() -> (entries: Int, bytes: Int) {
        let entries = scan()
        let bytes = entries.reduce(0) { $0 + $1.size }
        estimatedSize.withLockedValue { $0 = bytes }
        return (entries.count, bytes)
    }

    // MARK: - Entry format

    /// The entry file for `body`.
    static func encode(_ body: Data, storedAt: Date) -> Data {
        var header = Data(magic)
        append(UInt64(body.count), to: &header)
        append(UInt64(bitPattern: Int64((storedAt.timeIntervalSince1970 * 1000).rounded())), to: &header)
        var hasher = SHA256()
        hasher.update(data: header)
        hasher.update(data: body)
        var entry = header
        entry.append(contentsOf: hasher.finalize())
        entry.append(body)
        return entry
    }

    /// The stored date and body of a well-formed entry, or nil when anything does not check out.
    static func decode(_ file: Data) -> (storedAt: Date, body: Data)? {
        guard file.count >= headerSize else { return nil }
        let start = file.startIndex
        guard file[start..<start + 8].elementsEqual(magic),
              let length = readUInt64(file, at: start + 8),
              let stamp = readUInt64(file, at: start + 16),
              UInt64(file.count - headerSize) == length
        else { return nil }
        let body = file[(start + headerSize)...]
        var hasher = SHA256()
        hasher.update(data: file[start..<start + 24])
        hasher.update(data: body)
        guard hasher.finalize().elementsEqual(file[(start + 24)..<(start + headerSize)]) else { return nil }
        let milliseconds = Int64(bitPattern: stamp)
        return (Date(timeIntervalSince1970: Double(milliseconds) / 1000), Data(body))
    }

    private static func append(_ value: UInt64, to data: inout Data) {
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    private static func readUInt64(_ data: Data, at offset: Data.Index) -> UInt64? {
        guard offset >= data.startIndex, offset + 8 <= data.endIndex else { return nil }
        return data[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    // MARK: - Files

    struct FileInfo {
        let url: URL
        let size: Int
        let modified: Date
    }

    /// Entry files (64 hex characters) with their sizes and last-access dates.
    func scan() -> [FileInfo] {
        files { name in name.count == 64 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } }
    }

    private func temporaryFiles() -> [FileInfo] {
        files { $0.hasPrefix(Self.temporaryPrefix) }
    }

    private func files(where include: (String) -> Bool) -> [FileInfo] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.filter(include).compactMap { name in
            let url = directory.appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return nil }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            let modified = attributes[.modificationDate] as? Date ?? .distantPast
            return FileInfo(url: url, size: size, modified: modified)
        }
    }

    /// Marks the file as just used: its modification date is the last-access clock of the sweep.
    private func touch(_ url: URL) {
        try? FileManager.default.setAttributes([.modificationDate: now()], ofItemAtPath: url.path)
    }

    /// Reads lookups do not re-date a file used less than this long ago.
    static let touchResolution: TimeInterval = 1

    /// Sets the open file's access and modification dates to `date`.
    private static func touch(_ fd: Int32, at date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let stamp = timespec(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1e9))
        var times = [stamp, stamp]
        _ = futimens(fd, &times)
    }

    /// The whole file behind `fd` and its modification date; nil when it cannot be read in full.
    private static func readAll(_ fd: Int32) -> (Data, Date)? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        guard size >= 0, size <= Int(Int32.max) else { return nil }
        guard let data = FileDescriptorIO.data(fd, exactly: size) else { return nil }
        #if canImport(Darwin)
        let stamp = info.st_mtimespec
        #else
        let stamp = info.st_mtim
        #endif
        return (data, Date(timeIntervalSince1970: Double(stamp.tv_sec) + Double(stamp.tv_nsec) / 1e9))
    }

    private func remove(at url: URL) {
        try? FileManager.default.removeItem(at: url)
        estimatedSize.withLockedValue { $0 = nil }
    }
}
