import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekResilience
import SeekRuntime

/// `seek stats`: per provider, over its recent calls, how many, how many answered, how fast, and the last error.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Per-provider calls, success rate, p50/p95 latency and last error over recent calls.",
        discussion: "Every seek process records its provider calls under the cache directory (the last 100 per provider).")

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        guard format == .table || format == .json else { throw ValidationError("stats prints table or json") }
    }

    func run() async throws {
        try await CommandContext.with { session in
            let envelope = await session.core.statsDocument()
            if format == .json {
                session.context.out(JSONText.pretty(envelope))
            } else {
                session.context.out(StatsText.render(envelope.providers))
            }
            return ExitStatus.success
        }
    }
}

/// The table form of `seek stats`.
enum StatsText {
    static func render(_ documents: [StatsDocument]) -> String {
        var table = Table([
            .init("PROVIDER", width: 11), .init("CALLS", width: 5), .init("OK %", width: 5),
            .init("P50 MS", width: 7), .init("P95 MS", width: 7), .init("STATE", width: 9), .init("LAST ERROR", share: 1),
        ])
        for document in documents {
            let summary = document.summary
            table.add([
                summary.provider, String(summary.calls),
                summary.successRate.map { String(Int(($0 * 100).rounded())) } ?? "-",
                summary.p50Ms.map(String.init) ?? "-", summary.p95Ms.map(String.init) ?? "-",
                document.state, summary.lastError ?? "",
            ])
        }
        var lines = [table.render()]
        for document in documents {
            guard let suspension = document.suspension else { continue }
            lines.append("\(document.summary.provider): suspended until \(suspension.until.formatted(.iso8601))"
                + (suspension.reason.map { " (\($0))" } ?? ""))
        }
        if documents.allSatisfy({ $0.summary.calls == 0 }) { lines.append("No calls recorded yet.") }
        return lines.joined(separator: "\n")
    }
}
