import Foundation
import SeekCore
import SeekKit
import SeekRuntime

/// Prints a merged search (or trending) result in the chosen format.
enum SearchOutput {
    /// - Parameters:
    ///   - next: the token of the next page (`--cursor`), short and kept where a later run reads it.
    ///   - noneAnswered: no provider answered: a table prints nothing on stdout (no "No results." that
    ///     reads as an answer); the failures are on stderr already.
    static func print(
        _ result: SearchResult, next: String? = nil, format: OutputFormat, explain: Bool, context: CLIContext,
        includeQuery: Bool = true, noneAnswered: Bool = false
    ) {
        let document = SearchDocument(
            query: includeQuery ? result.query : nil, page: result.page, results: result.results, outcomes: result.outcomes,
            next: next)
        switch format {
        case .json:
            context.out(JSONText.pretty(document))
        case .ndjson:
            // The last line of a stream: the merged, ranked list (batch lines came before it).
            context.out(JSONText.compact(document.summary))
        case .csv:
            context.stdout.write(csv(result.results))
        case .table:
            if result.results.isEmpty {
                // With no provider answering, the failures on stderr are all there is to say.
                if !noneAnswered { context.out("No results.") }
            } else {
                context.out(table(result.results))
            }
            if let next {
                context.err("More: --cursor \(next)")
            }
        }
        if explain { context.err(explanation(result.results, ranking: result.ranking)) }
    }

    /// One ndjson line for a provider's answer, printed as soon as it arrives.
    static func batchLine(_ batch: ProviderBatch, weight: Double, ranking: RankingMethod) -> String {
        JSONText.compact(BatchDocument(batch: batch, weight: weight, ranking: ranking))
    }

    static func table(_ results: [MergedResult]) -> String {
        let idWidth = min(26, max(4, results.map { $0.item.id.description.count }.max() ?? 4))
        // Rows of the reader's own library (issue 49): an OWNED column, there only when some row is owned.
        let owned = results.contains { $0.item.owned != nil }
        var columns: [Table.Column] = [
            .init("TITLE", share: 3), .init("CREATORS", share: 2), .init("YEAR", width: 4),
            .init("PROVIDER", width: 11), .init("ID", width: idWidth),
        ]
        if owned { columns.insert(.init("OWNED", width: 10), at: 3) }
        var table = Table(columns)
        for result in results {
            let item = result.item
            let providers = result.sources.map(\.provider)
            let provider = providers.count > 1 ? "\(providers[0])+\(providers.count - 1)" : item.provider
            var cells = [
                item.subtitle.map { "\(item.title): \($0)" } ?? item.title,
                item.creators.joined(separator: ", "),
                item.year.map(String.init) ?? "",
                provider,
                item.id.description,
            ]
            if owned { cells.insert(item.owned.map { "✓ " + $0.formats.joined(separator: ",") } ?? "", at: 3) }
            table.add(cells)
        }
        return table.render()
    }

    /// RFC 4180: a header, every record ended by CRLF; fields with a comma, quote or line break are
    /// quoted, quotes doubled. The reader's own copy (issue 49) is last, so the earlier columns keep
    /// their places: its id and formats, empty for a row the library does not have.
    static func csv(_ results: [MergedResult]) -> String {
        var records = [[
            "id", "provider", "kind", "title", "subtitle", "creators", "year", "isbn13", "imageURL", "url", "score", "sources",
            "owned", "ownedFormats",
        ]]
        for result in results {
            let item = result.item
            records.append([
                item.id.description, item.provider, item.kind.rawValue, item.title, item.subtitle ?? "",
                item.creators.joined(separator: "; "), item.year.map(String.init) ?? "",
                item.identifiers.isbn13.joined(separator: " "), item.image(.large)?.address.text ?? "",
                item.address?.text ?? "", String(format: "%.4f", result.score),
                result.sources.map { $0.id.description }.joined(separator: " "),
                item.owned?.id.description ?? "", item.owned?.formats.joined(separator: "; ") ?? "",
            ])
        }
        return records.map { $0.map(csvField).joined(separator: ",") + "\r\n" }.joined()
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }

    /// `--explain`: the formula, then each result's sources with positions and the score's terms.
    static func explanation(_ results: [MergedResult], ranking: RankingMethod) -> String {
        var lines: [String] = []
        switch ranking {
        case .searxng: lines.append("ranking searxng: score = |P| × (Πw) × (Σ 1/p)")
        case .rrf: lines.append("ranking rrf: score = Σ w/(\(Int(RankingMethod.rrfConstant))+p)")
        }
        for (index, result) in results.enumerated() {
            let positions = result.sources.map { source in
                "\(source.provider)#\(source.rank)" + (source.joinedBy.map { " joined by \($0)" } ?? "")
            }.joined(separator: ", ")
            let number = String(format: "%3d", index + 1), score = String(format: "%.4f", result.score)
            // A row the reader's library joined is scored by its other sources (SeekCore's OwnedRows).
            let remote = result.sources.filter { $0.id != result.item.owned?.id }
            let scored = remote.isEmpty ? result.sources : remote
            lines.append("\(number). \(result.item.id)  score \(score) = \(ranking.terms(scored))  [\(positions)]")
        }
        return lines.joined(separator: "\n")
    }
}
