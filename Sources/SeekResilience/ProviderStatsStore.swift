import Foundation
import SeekCore
import SeekKit
import SeekSupport
import NIOConcurrencyHelpers

/// One provider call as the stats remember it.
public struct ProviderCallRecord: Sendable, Hashable {
    public var at: Date
    public var status: ProviderStatus
    public var elapsedMs: Int
    public var count: Int
    /// The error's cause, secret-free and short; nil on success.
    public var error: String?

    public init(at: Date, status: ProviderStatus, elapsedMs: Int, count: Int, error: String?) {
        self.at = at
        self.status = status
        self.elapsedMs = elapsedMs
        self.count = count
        self.error = error
    }
}

/// A provider's recent calls in numbers: SearXNG's per-engine stats, for a CLI.
public struct ProviderStatsSummary: Sendable, Hashable {
    public var provider: String
    public var calls: Int
    /// Calls that answered (`ok` or `empty`).
    public var successes: Int
    /// successes / calls; nil without calls.
    public var successRate: Double?
    /// Latency percentiles over every recorded call (failures included: the user waited for them too).
    public var p50Ms: Int?
    public var p95Ms: Int?
    public var lastError: String?
    public var lastErrorAt: Date?
    public var lastCallAt: Date?

    /// Summarises `records` (any order).
    public init(provider: String, records: [ProviderCallRecord]) {
        self.provider = provider
        calls = records.count
        successes = records.filter(\.status.answered).count
        successRate = records.isEmpty ? nil : Double(successes) / Double(calls)
        let latencies = records.map(\.elapsedMs).sorted()
        p50Ms = Self.percentile(50, of: latencies)
        p95Ms = Self.percentile(95, of: latencies)
        let ordered = records.sorted { $0.at < $1.at }
        let failure = ordered.last { $0.error != nil }
        lastError = failure?.error
        lastErrorAt = failure?.at
        lastCallAt = ordered.last?.at
    }

    /// The nearest-rank percentile of sorted values.
    public static func percentile(_ p: Double, of sorted: [Int]) -> Int? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }
}

/// Per-provider outcomes of recent calls, in an append-only JSON Lines file under the cache directory
/// (`stats.jsonl`), so every `seek` process adds to the same window.
///
/// Recording is on every provider call's path, so it costs one line: a single `O_APPEND` write under
/// a shared `flock`, whatever the window holds (concurrent appends never interleave). Once the file
/// passes `compactionBytes`, the writer that notices rewrites it under an exclusive lock, keeping each
/// provider's last `window` calls. A line that does not parse (cut short by a crash) is skipped: stats
/// are advisory. When the file cannot be used, the calls are kept in this store's memory instead.
public struct ProviderStatsStore: Sendable {
    /// How many recent calls are kept per provider.
    public let window: Int
    /// The log file; nil keeps the calls in memory only.
    public let url: URL?
    /// `url`'s path, worked out once: every provider call appends a line.
    private let path: String?
    /// The file size past which a writer compacts it.
    public let compactionBytes: Int
    private let now: @Sendable () -> Date
    private let memory = NIOLockedValueBox<[String: [ProviderCallRecord]]>([:])

    /// A store in the file at `url` (its directory is created on first use), or in memory when nil.
    public init(url: URL?, window: Int = 100, compactionBytes: Int = 256 * 1024, now: @escaping @Sendable () -> Date = { Date() }) {
        self.url = url
        self.path = url?.path
        self.window = max(1, window)
        self.compactionBytes = max(1024, compactionBytes)
        self.now = now
    }

    /// Records one call's outcome.
    public func record(provider: String, status: ProviderStatus, elapsed: Duration, count: Int, error: SeekError?) {
        let text = error.map { Self.shorten(Redaction.redact($0.cause, secrets: [])) }
        let record = ProviderCallRecord(
            at: now(), status: status, elapsedMs: elapsed.wholeMilliseconds, count: count, error: text)
        let window = self.window
        if let url, let path, let size = StatsLog.append(Self.line(provider: provider, record), to: url, path: path) {
            if size > compactionBytes { StatsLog.compact(url) { Self.compacted($0, window: window) } }
            return
        }
        memory.withLockedValue { state in
            state[provider, default: []].append(record)
            if let calls = state[provider], calls.count > window { state[provider] = Array(calls.suffix(window)) }
        }
    }

    /// Every provider's recorded calls (the last `window` of each), oldest first.
    public func records() -> [String: [ProviderCallRecord]] {
        var records = url.flatMap(StatsLog.read).map { Self.parse($0, window: window) } ?? [:]
        for (provider, calls) in memory.withLockedValue({ $0 }) {
            records[provider] = Array((records[provider, default: []] + calls).suffix(window))
        }
        return records
    }

    /// The summary of one provider's recent calls.
    public func summary(for provider: String) -> ProviderStatsSummary {
        ProviderStatsSummary(provider: provider, records: records()[provider] ?? [])
    }

    /// Forgets every recorded call.
    public func clear() {
        if let url { StatsLog.compact(url) { _ in Data() } }
        memory.withLockedValue { $0 = [:] }
    }

    // MARK: Lines

    /// One call as a JSON line: `{"provider":…,"at":<Unix seconds>,"status":…,"elapsedMs":…,"count":…,"error":…}`.
    static func line(provider: String, _ record: ProviderCallRecord) -> String {
        var writer = JSONWriter()
        writer.object { writer in
            writer.field("provider", provider)
            writer.field("at", record.at.timeIntervalSince1970)
            writer.field("status", record.status.rawValue)
            writer.field("elapsedMs", record.elapsedMs)
            writer.field("count", record.count)
            writer.field("error", record.error)
        }
        return writer.text + "\n"
    }

    /// The last `window` calls per provider in `log`, skipping lines that do not parse.
    static func parse(_ log: Data, window: Int) -> [String: [ProviderCallRecord]] {
        var records: [String: [ProviderCallRecord]] = [:]
        for line in log.split(separator: UInt8(ascii: "\n")) {
            guard let value = try? JSONValue(parsing: Data(line)),
                  case .string(let provider)? = value["provider"],
                  let at = value["at"]?.doubleValue,
                  let status = value["status"]?.stringValue.flatMap(ProviderStatus.init(rawValue:)),
                  let elapsed = value["elapsedMs"]?.intValue,
                  let count = value["count"]?.intValue
            else { continue }
            let error: String? = if case .string(let text)? = value["error"] { text } else { nil }
            records[provider, default: []].append(ProviderCallRecord(
                at: Date(timeIntervalSince1970: at), status: status, elapsedMs: elapsed, count: count, error: error))
        }
        return records.mapValues { Array($0.suffix(window)) }
    }

    /// `log` with only the last `window` calls of each provider (damaged lines dropped), oldest first.
    static func compacted(_ log: Data, window: Int) -> Data {
        let calls = parse(log, window: window).flatMap { provider, records in records.map { (provider, $0) } }
        return Data(calls.sorted { $0.1.at < $1.1.at }.map { line(provider: $0.0, $0.1) }.joined().utf8)
    }

    private static func shorten(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}

/// The stats file's locked appends, reads and rewrites.
enum StatsLog {
    /// Appends `line` to the log at `url` (whose path is `path`); the file's size after it, or nil when
    /// the file cannot be used.
    static func append(_ line: String, to url: URL, path: String) -> Int? {
        appending.withLockedValue { kept in
            // Twice at most: a kept descriptor whose file was removed or replaced meanwhile wrote the
            // line where no one reads it, so the file is opened anew and the line written again.
            for _ in 0..<2 {
                let fd: Int32
                if let open = kept, open.path == path {
                    fd = open.descriptor
                } else {
                    forget(&kept)
                    guard let opened = LockedFile.openFile(url, writes: true, append: true) else { return nil }
                    kept = (path, opened)
                    fd = opened
                }
                guard LockedFile.lock(fd, exclusive: false) else {
                    forget(&kept)
                    return nil
                }
                let written = FileDescriptorIO.writeAll(fd, line)
                let status = LockedFile.status(fd)
                LockedFile.unlock(fd)
                guard written, let status else {
                    forget(&kept)
                    return nil
                }
                if status.links > 0 { return status.size }
                forget(&kept)
            }
            return nil
        }
    }

    /// The stats log this process appends to, kept open between calls: opening and closing it for each
    /// line were two of the seven system calls a provider call's stats cost (issue 30). A process has
    /// one log in practice; appending to another closes this one. Held for a whole append, because a
    /// `flock` belongs to the open file, which the process's appends share: one append's unlock must
    /// not end another's lock while a compaction in another process waits for it.
    private static let appending = NIOLockedValueBox<(path: String, descriptor: Int32)?>(nil)

    /// Closes the kept descriptor: after a failure on it, or when its file went away.
    private static func forget(_ kept: inout (path: String, descriptor: Int32)?) {
        if let open = kept { close(open.descriptor) }
        kept = nil
    }

    /// The whole log; nil when there is none.
    static func read(_ url: URL) -> Data? {
        guard let fd = LockedFile.openLocked(url, exclusive: false) else { return nil }
        defer { LockedFile.unlockAndClose(fd) }
        return LockedFile.readAll(fd)
    }

    /// Rewrites the log as `transform` makes it, holding every other reader and writer off meanwhile.
    static func compact(_ url: URL, _ transform: (Data) -> Data) {
        guard let fd = LockedFile.openLocked(url, exclusive: true) else { return }
        defer { LockedFile.unlockAndClose(fd) }
        LockedFile.replaceContents(fd, with: transform(LockedFile.readAll(fd)))
    }
}
