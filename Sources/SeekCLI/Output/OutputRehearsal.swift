import Foundation
import SeekCore

/// Merges two sample items and prints them in the chosen format, into a buffer nobody reads.
///
/// The Swift runtime resolves each generic type and protocol conformance on first use, by a scan
/// of the binary's ~9,400 conformance records: a process's first merge and first document cost
/// about a millisecond more than the next ones. A search runs this rehearsal on the idle core while
/// the providers answer, so the real merge and output after the last answer run warm.
enum OutputRehearsal {
    static func run(
        format: OutputFormat, ranking: RankingMethod,
        into context: CLIContext = CLIContext(environment: [:], stdout: CapturedText(), stderr: CapturedText())
    ) {
        let cover = URL(string: "https://covers.example/1-L.jpg").map { [ImageSize.large: ImageReference(url: $0, size: .large)] }
        func book(_ provider: String, _ value: String) -> Item {
            Item(
                id: ItemID(provider: provider, value: value), kind: .book, title: "Rehearsal", creators: ["Seek"],
                year: 2000, identifiers: Identifiers(isbns: ["0306406152"]), images: cover ?? [:],
                url: URL(string: "https://example.org/\(value)"))
        }
        let lists = [("first", [book("first", "1")]), ("second", [book("second", "2")])]
        let results = ResultMerger.merge(lists, weights: ["first": 1, "second": 1], ranking: ranking)
        var next = SearchCursor(positions: ["first": "1", "second": "1"], page: 2)
        next.remember(lists.flatMap(\.1))
        let outcomes = lists.map { ProviderOutcome(provider: $0.0, status: .ok, count: 1) }
        let result = SearchResult(
            query: "rehearsal", page: 1, results: results, outcomes: outcomes, next: next, ranking: ranking)
        SearchOutput.print(result, format: format, explain: false, context: context)
    }
}
