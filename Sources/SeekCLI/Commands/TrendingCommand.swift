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
    var limit = SeekSession.defaultLimit

    @Option(help: "table, json, ndjson or csv.")
    var format: OutputFormat = .table

    func run() async throws {
        let code = try await CommandContext.with(demo: selection.demo) { session in
            let answer = try await session.core.trending(selection.fanOut(limit: limit))
            OutcomeReport.printFailures(answer.result.outcomes, context: session.context)
            SearchOutput.print(
                answer.result, format: format, explain: false, context: session.context, includeQuery: false,
                noneAnswered: answer.verdict == .noneAnswered)
            return ExitStatus.of(answer.verdict)
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
    var limit = SeekSession.defaultSuggestionLimit

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        guard format == .table || format == .json else { throw ValidationError("suggest prints table or json") }
    }

    func run() async throws {
        let code = try await CommandContext.with(demo: selection.demo) { session in
            let (answer, _) = try await session.core.suggest(selection.fanOut(prefix, limit: limit))
            let document = SuggestDocument(prefix: answer.prefix, suggestions: answer.suggestions, outcomes: answer.outcomes)
            let outcomes = document.outcomes
            OutcomeReport.printFailures(outcomes, context: session.context)
            if format == .json {
                session.context.out(JSONText.pretty(document))
            } else if answer.verdict != .noneAnswered {
                let suggestions = document.suggestions
                session.context.out(suggestions.isEmpty ? "No suggestions." : suggestions.joined(separator: "\n"))
            }
            return ExitStatus.of(answer.verdict)
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }
}

