import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekRuntime

struct TrendingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trending", abstract: "What is popular now at the selected providers (GIFs, bestsellers).")

    @OptionGroup var selection: SelectionOptions

    @Option(help: "Results per provider (1–100).")
    var limit = 20

    @Option(help: "table, json, ndjson or csv.")
    var format: OutputFormat = .table

    func run() async throws {
        let code = try await CommandContext.with(demo: selection.demo) { session in
            let answer = try await session.core.trending(selection.fanOut(limit: limit))
            let (result, chosen) = (answer.result, answer.selection)
            let outcomes = result.outcomes
            OutcomeReport.printFailures(outcomes, context: session.context)
            let noneAnswered = CallVerdict(outcomes, explicit: chosen.explicit) == .noneAnswered
            SearchOutput.print(
                result, format: format, explain: false, context: session.context, includeQuery: false, noneAnswered: noneAnswered)
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
    }

    func run() async throws {
        let code = try await CommandContext.with(demo: selection.demo) { session in
            let (answer, chosen) = try await session.core.suggest(selection.fanOut(prefix, limit: limit))
            let document = SuggestDocument(prefix: answer.prefix, suggestions: answer.suggestions, outcomes: answer.outcomes)
            let outcomes = document.outcomes
            OutcomeReport.printFailures(outcomes, context: session.context)
            if format == .json {
                session.context.out(JSONText.pretty(document))
            } else if CallVerdict(outcomes, explicit: chosen.explicit) != .noneAnswered {
                let suggestions = document.suggestions
                session.context.out(suggestions.isEmpty ? "No suggestions." : suggestions.joined(separator: "\n"))
            }
            return ExitStatus.forOutcomes(OutcomeReport.counted(outcomes, explicit: chosen.explicit))
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }
}

