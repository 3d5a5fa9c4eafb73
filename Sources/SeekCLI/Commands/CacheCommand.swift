import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekImageCache
import SeekRuntime

/// `seek cache stats|clear|prune`: look at and tidy the shared image cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "Inspect and tidy the shared image cache (memory and disk tiers).",
        subcommands: [Stats.self, Clear.self, Prune.self], defaultSubcommand: Stats.self)

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Entries, bytes, limits, hits and misses per tier (hits and misses summed over every run).")

        @Option(help: "table or json.")
        var format: OutputFormat = .table

        func validate() throws {
            guard format == .table || format == .json else { throw ValidationError("cache stats prints table or json") }
        }

        func run() async throws {
            try await CommandContext.with { session in
                let statistics = try session.core.imageCacheStatistics()
                if format == .json {
                    session.context.out(JSONText.pretty(CacheStatsDocument(statistics)))
                } else {
                    session.context.out(CacheText.render(statistics))
                }
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every cached image.")

        func run() async throws {
            try await CommandContext.with { session in
                let (report, directory) = try session.core.clearImageCache()
                let place = directory.map { " from \($0)" } ?? ""
                session.context.out("Removed \(CacheText.images(report.evicted)) (\(CacheText.bytes(report.freedBytes)))\(place).")
            }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Remove expired and damaged images and leftovers, then trim to the size limit (least recently used first).")

        func run() async throws {
            try await CommandContext.with { session in
                let report = try session.core.pruneImageCache()
                session.context.out(
                    "Pruned \(report.expired) expired, \(report.corrupt) damaged, \(report.evicted) over the size limit, "
                        + "\(report.temporary) leftover temporary files; freed \(CacheText.bytes(report.freedBytes)). "
                        + "Left: \(CacheText.images(report.remainingEntries)), \(CacheText.bytes(report.remainingBytes)).")
            }
        }
    }
}

/// The human-readable forms of cache figures.
enum CacheText {
    static func render(_ statistics: ImageCacheStatistics) -> String {
        var table = Table([
            .init("TIER", width: 7), .init("ENTRIES", width: 8), .init("BYTES", width: 10), .init("LIMIT", width: 10),
            .init("HITS", width: 8), .init("MISSES", width: 8),
        ])
        table.totalWidth = 56
        for (name, tier) in [("memory", statistics.memory), ("disk", statistics.disk)] {
            table.add([name, String(tier.entries), bytes(tier.bytes), bytes(tier.limitBytes), String(tier.hits), String(tier.misses)])
        }
        var lines = [table.render(), ""]
        if let directory = statistics.directory {
            lines.append("Folder      \(directory)")
            lines.append("Expiry      \(duration(statistics.timeToLiveSeconds)) after download")
        }
        lines.append("Downloads   \(statistics.downloads)")
        lines.append("Refused     \(statistics.rejected) (not an image: HTML, 404, empty or placeholder)")
        lines.append("Damaged     \(statistics.corrupt) (detected on read and fetched again)")
        return lines.joined(separator: "\n")
    }

    static func images(_ count: Int) -> String { count == 1 ? "1 image" : "\(count) images" }

    /// Bytes in binary units: `512 B`, `2.0 KiB`, `256.0 MiB`.
    static func bytes(_ count: Int) -> String {
        var value = Double(count)
        for unit in ["B", "KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" {
                return unit == "B" ? "\(count) B" : String(format: "%.1f", value) + " " + unit
            }
            value /= 1024
        }
        return "\(count) B"
    }

    static func duration(_ seconds: Double) -> String {
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 { return counted(seconds / 86_400, "day") }
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return counted(seconds / 3600, "hour") }
        return SeekError.secondsInWords(seconds.rounded())
    }

    /// `count` `unit`s in words: "1 day", "2 days".
    private static func counted(_ count: Double, _ unit: String) -> String {
        "\(SeekError.format(count)) \(unit)\(count == 1 ? "" : "s")"
    }
}
