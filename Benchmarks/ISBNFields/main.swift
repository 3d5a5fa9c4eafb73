// Timing harness for reading ISBNs out of a provider's fields (issue 30): `Identifiers(isbnsIn:)`
// over the `isbn` lists of real Open Library search answers (../shared/fixtures), the way
// OpenLibraryProvider maps each doc; and over the benchmark stand-ins' one field a book. Built and run
// by Benchmarks/isbn_fields.sh.
import Foundation

/// The `isbn` list of each doc of each recorded Open Library search answer given on the command line.
func recordedISBNLists(_ paths: [String]) -> [[String]] {
    var lists: [[String]] = []
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path),
              let body = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let docs = body["docs"] as? [[String: Any]]
        else { continue }
        for doc in docs { lists.append(doc["isbn"] as? [String] ?? []) }
    }
    return lists
}

/// Median nanoseconds of `body` over `rounds` rounds of `repeats` calls, per call.
func median(rounds: Int = 15, repeats: Int, _ body: () -> Int) -> (ns: Double, check: Int) {
    var samples: [Double] = []
    var check = 0
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<repeats { check &+= body() }
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(repeats))
    }
    samples.sort()
    return (samples[samples.count / 2], check)
}

let lists = recordedISBNLists(Array(CommandLine.arguments.dropFirst()))
let fields = lists.reduce(0) { $0 + $1.count }
if lists.isEmpty {
    print("no recorded Open Library search answers given: the recorded lists are skipped")
} else {
    let recorded = median(repeats: 20) { lists.reduce(0) { $0 + Identifiers(isbnsIn: $1).isbn13.count } }
    print(String(format: "recorded docs: %d docs, %d isbn fields: %.1f µs for all, %.0f ns a field (ISBN-13s found: %d)",
                 lists.count, fields, recorded.ns / 1000, recorded.ns / Double(max(fields, 1)), recorded.check / 300))
}
// The stand-ins' shapes (fanout_server.py): Open Library's one 12-digit `isbn` entry, Aladin's `isbn13`.
let standIn = (0..<20).map { ["978000000\(String(format: "%03d", $0))"] } + (0..<20).map { ["979110000\(String(format: "%04d", $0))"] }
let stand = median(repeats: 2000) { standIn.reduce(0) { $0 + Identifiers(isbnsIn: $1).isbn13.count } }
print(String(format: "stand-in fields: 40 fields: %.2f µs for all, %.0f ns a field", stand.ns / 1000, stand.ns / 40))
