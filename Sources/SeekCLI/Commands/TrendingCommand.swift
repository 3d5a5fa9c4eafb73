import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekSession

struct TrendingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trending", abstract: "What is popular now at the selected providers (GIFs, bestsellers).")

    @OptionGroup var selection: SelectionOptions

    @Option(help: "Results per provider (1–100).")
    var limit = 20

    @Option(help: "table, json, ndjson or csv.")
    var format: OutputFormat = .table

    func validate() throws {
        guard SeekSession.resultLimits.contains(limit) else { throw ValidationError("--limit must be between 1 and 100") }
    }

    func run() async throws {
        let code = try await Session.with(demo: selection.demo) { session in
            let chosen = try session.selection(selection.providers)
            let result = try await session.core.trending(chosen, limit: limit, options: selection.callOptions)
            let outcomes = result.outcomes
            OutcomeReport.printFailures(outcomes, context: session.context)
            SearchOutput.print(result, format: format, explain: false, context: session.context, includeQuery: false)
            return ExitStatus.forOutcomes(OutcomeReport.counted(outcomes, explicit: chosen.explicit))
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }
}

struct SuggestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest", abstract: "Search suggestions for a prefix from the selected providers.")

    @Argument(help: "The start of a query.")
    var prefix: String

    @OptionGroup var selection: SelectionOptions

    @Option(help: "Suggestions per provider.")
    var limit = 10

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        guard format == .table || format == .json else { throw ValidationError("suggest prints table or json") }
        guard (1...50).contains(limit) else { throw ValidationError("--limit must be between 1 and 50") }
    }

    func run() async throws {
        let code = try await Session.with(demo: selection.demo) { session in
            let chosen = try session.selection(selection.providers)
            let answer = try await session.core.suggest(prefix, chosen, limit: limit, options: selection.callOptions)
            let document = SuggestDocument(prefix: answer.prefix, suggestions: answer.suggestions, outcomes: answer.outcomes)
            let outcomes = document.outcomes
            OutcomeReport.printFailures(outcomes, context: session.context)
            if format == .json {
                session.context.out(JSONText.pretty(document))
            } else {
                let suggestions = document.suggestions
                session.context.out(suggestions.isEmpty ? "No suggestions." : suggestions.joined(separator: "\n"))
            }
            return ExitStatus.forOutcomes(OutcomeReport.counted(outcomes, explicit: chosen.explicit))
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }
}

