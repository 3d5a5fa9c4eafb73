import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekRuntime
import SeekStore

/// `seek history [--clear]`: recent searches, most recent first, one entry per query.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Recent searches, most recent first (a repeated query moves to the top).",
        discussion: "Every search is recorded with the providers it asked. The history keeps the last 10 queries; set SEEK_HISTORY_LIMIT or the config file's history.limit to change that (0 keeps none).")

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    @Flag(help: "Forget every recorded search.")
    var clear = false

    func validate() throws {
        guard format == .table || format == .json else { throw ValidationError("history prints table or json") }
    }

    func run() async throws {
        let format = self.format
        let clear = self.clear
        try await FavoritesCommand.withUserState { session in
            let context = session.context
            if clear {
                try await session.core.clearHistory(owner: .instanceOwner)
                context.err("seek: search history cleared")
                if format == .json { context.out(JSONText.pretty(EntriesDocument<HistoryDocument>(entries: []))) }
                return ExitStatus.success
            }
            let entries = try await session.core.history(of: .instanceOwner)
            if format == .json {
                context.out(JSONText.pretty(EntriesDocument(entries: entries.map(HistoryDocument.init))))
            } else if entries.isEmpty {
                context.err("seek: no searches recorded yet")
            } else {
                var table = Table([
                    .init("#", width: 3), .init("QUERY", share: 3), .init("PROVIDERS", share: 2), .init("WHEN", width: 16),
                ])
                for (index, entry) in entries.enumerated() {
                    table.add([String(index + 1), entry.query, entry.providers.joined(separator: ","),
                               UserStateText.minute(entry.searchedAt)])
                }
                context.out(table.render())
            }
            return ExitStatus.success
        }
    }
}

