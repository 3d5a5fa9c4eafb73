import ArgumentParser
import Foundation
import SeekCore
import SeekConfig
import SeekHTTP
import SeekJSON
import SeekResilience
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
        guard (1...100).contains(limit) else { throw ValidationError("--limit must be between 1 and 100") }
    }

    func run() async throws {
        let code = try await Session.with(demo: selection.demo) { session in
            let chosen = try session.selection(selection.providers)
            let engine = session.engine
            var providers = try engine.select(chosen.ids)
            if !chosen.explicit { providers = providers.filter { $0.descriptor.capabilities.contains(.trending) } }
            let (limit, options, pipeline) = (self.limit, selection.callOptions, engine.pipeline)
            let batches = await engine.fanOut(providers, timeout: options.timeout) { provider in
                try await pipeline.trending(limit: limit, on: provider, options: options)
            }
            let weights = Dictionary(uniqueKeysWithValues: providers.map { ($0.descriptor.id, $0.descriptor.weight) })
            let merged = ResultMerger.merge(batches.map { ($0.outcome.provider, $0.items) }, weights: weights)
            let outcomes = batches.map(\.outcome)
            let result = SearchResult(query: "", page: 1, results: merged, outcomes: outcomes, next: nil)
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
            let engine = session.engine
            var providers = try engine.select(chosen.ids)
            if !chosen.explicit { providers = providers.filter { $0.descriptor.capabilities.contains(.suggest) } }
            let (prefix, limit, options, pipeline) = (self.prefix, self.limit, selection.callOptions, engine.pipeline)
            let answers = await engine.collect(providers, timeout: options.timeout) { provider in
                try await pipeline.suggest(prefix, limit: limit, on: provider, options: options)
            }
            var suggestions: [String] = []
            for answer in answers {
                for text in answer.value ?? [] where !suggestions.contains(where: { $0.lowercased() == text.lowercased() }) {
                    suggestions.append(text)
                }
            }
            let outcomes = answers.map { $0.outcome { $0.count } }
            OutcomeReport.printFailures(outcomes, context: session.context)
            if format == .json {
                session.context.out(JSONText.pretty(SuggestDocument(prefix: prefix, suggestions: suggestions, outcomes: outcomes)))
            } else {
                session.context.out(suggestions.isEmpty ? "No suggestions." : suggestions.joined(separator: "\n"))
            }
            return ExitStatus.forOutcomes(OutcomeReport.counted(outcomes, explicit: chosen.explicit))
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }
}

