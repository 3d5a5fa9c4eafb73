import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekRuntime
import SeekStore

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the selected providers concurrently; print one merged, ranked list.",
        discussion: "Bangs in the query select providers: `seek search '!ol harbor'`.")

    @Argument(help: "What to search for.")
    var query: String

    @OptionGroup var selection: SelectionOptions

    @Option(help: "Results per provider (1–100).")
    var limit = SeekSession.defaultLimit

    @Option(help: "Page number, from 1: asks each provider for that page directly (--cursor also skips repeats).")
    var page: Int?

    @Option(help: "Continue from the `next` cursor of an earlier search; nothing shown before repeats.")
    var cursor: String?

    @Option(help: "table, json, ndjson or csv.")
    var format: OutputFormat = .table

    @Option(help: "Ranking: searxng (|P| × Πw × Σ 1/p) or rrf (reciprocal rank fusion, k = 60).")
    var rank: RankingMethod = .searxng

    @Flag(help: "Print each result's sources, positions and score terms, and the key that joined each source to its row.")
    var explain = false

    @Option(help: "Rows: work (a work's editions in one row) or edition (different ISBN-13s never join).")
    var group: ResultGrouping = .work

    @Option(help: "Prefer results in this language (ISO 639-1, such as en); providers that cannot filter ignore it.")
    var language: String?

    func run() async throws {
        let code = try await CommandContext.with(demo: selection.demo) { session in
            try await execute(session)
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }

    private func execute(_ session: CommandContext) async throws -> Int32 {
        let request = SearchQuery(
            query: query, providers: selection.providers, limit: limit, page: page, cursor: cursor, ranking: rank,
            rating: selection.rating, noCache: selection.noCache, explain: explain, language: language,
            timeout: selection.timeoutDuration, group: group)
        let context = session.context
        let format = self.format
        let core = session.core
        // The results are printed while the history records the search.
        return try await core.search(request, onBatch: streamer(weights: core.providerWeights, context: context)) { answer in
            let result = answer.result
            OutcomeReport.printFailures(result.outcomes, context: context)
            // The next page's cursor as a short token a later `seek` reads from the local store.
            let next = await core.lastingToken(for: result.next)
            SearchOutput.print(
                result, next: next, format: format, explain: request.explain, context: context, noneAnswered: answer.verdict == .noneAnswered)
            return ExitStatus.of(answer.verdict)
        }
    }

    /// For `--format ndjson`, writes one `batch` line per provider the moment it answers; otherwise nothing.
    /// `weights`: each provider's weight in the ranking (`SeekSession.providerWeights`).
    private func streamer(weights: [String: Double], context: CLIContext) -> @Sendable (ProviderBatch) async -> Void {
        guard format == .ndjson else { return { _ in } }
        let ranking = rank
        let stdout = context.stdout
        return { batch in
            let weight = weights[batch.outcome.provider] ?? 1
            stdout.write(SearchOutput.batchLine(batch, weight: weight, ranking: ranking) + "\n")
        }
    }
}

/// `--rank searxng|rrf`.
extension RankingMethod: ExpressibleByArgument {}

/// `--group work|edition`.
extension ResultGrouping: ExpressibleByArgument {}

/// Stderr lines for failed providers.
enum OutcomeReport {
    static func printFailures(_ outcomes: [ProviderOutcome], context: CLIContext) {
        let failures = outcomes.filter { !$0.status.answered }
        // Providers skipped for want of a key say nothing about the network; every other one failing
        // to connect (or resting after failing to connect) most likely means no network, and demo mode
        // is how to see Seek work offline.
        let attempted = outcomes.filter { $0.status != .skipped }
        let networkDown = !attempted.isEmpty
            && attempted.allSatisfy { !$0.status.answered && ($0.error.map(isNetworkFailure) ?? false) }
        for outcome in failures {
            let cause = outcome.error?.cause ?? outcome.status.rawValue
            var line = "seek: \(outcome.provider): \(outcome.status.rawValue): \(cause)"
            if networkDown, outcome.status != .skipped { line += " (offline? try --demo)" }
            if outcome.stale { line += " (serving cached results from before)" }
            context.err(line)
        }
    }

    /// A failure to connect, or a cool-down whose last failure was one (the breaker's reason:
    /// "network error", "3 failures in a row, last: network error").
    static func isNetworkFailure(_ error: SeekError) -> Bool {
        let network = SeekError(.network).cause
        switch error.kind {
        case .network:
            return true
        case .suspended:
            return error.detail.hasPrefix(network) || error.detail.contains("last: \(network)")
        default:
            return false
        }
    }
}
