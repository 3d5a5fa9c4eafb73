import Foundation

/// One provider call as the stats remember it.
public struct ProviderCallRecord: Codable, Sendable, Hashable {
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

/// Per-provider outcomes of recent calls, in a locked JSON file under the cache directory
/// (`stats.json`), so every `seek` process adds to the same window.
public struct ProviderStatsStore: Sendable {
    /// How many recent calls are kept per provider.
    public let window: Int
    private let file: LockedStateFile<[String: [ProviderCallRecord]]>
    private let now: @Sendable () -> Date

    public init(file: LockedStateFile<[String: [ProviderCallRecord]]>, window: Int = 100, now: @escaping @Sendable () -> Date = { Date() }) {
        self.file = file
        self.window = max(1, window)
        self.now = now
    }

    /// A store in the file at `url`.
    public init(url: URL, window: Int = 100, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(file: LockedStateFile(url: url, empty: [:]), window: window, now: now)
    }

    /// Records one call's outcome.
    public func record(provider: String, status: ProviderStatus, elapsed: Duration, count: Int, error: SeekError?) {
        let text = error.map { Self.shorten(Redaction.redact($0.cause, secrets: [])) }
        let record = ProviderCallRecord(
            at: now(), status: status, elapsedMs: Int((elapsed.seconds * 1000).rounded()), count: count, error: text)
        let window = self.window
        file.update { state in
            var calls = state[provider] ?? []
            calls.append(record)
            if calls.count > window { calls.removeFirst(calls.count - window) }
            state[provider] = calls
        }
    }

    /// Every provider's recorded calls, oldest first.
    public func records() -> [String: [ProviderCallRecord]] { file.read() }

    /// The summary of one provider's recent calls.
    public func summary(for provider: String) -> ProviderStatsSummary {
        ProviderStatsSummary(provider: provider, records: records()[provider] ?? [])
    }

    /// Forgets every recorded call.
    public func clear() { file.reset() }

    private static func shorten(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}
