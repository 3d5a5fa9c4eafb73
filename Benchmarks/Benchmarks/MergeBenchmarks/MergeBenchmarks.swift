import Benchmark
import Foundation
import SeekCore
import SeekIdentity

/// Merge + rank of one search's answers: 3 providers × 100 items (target: under 1 ms).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 5_000
    )

    let lists = MergeFixture.lists()

    Benchmark("merge+rank 3x100 searxng") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ResultMerger.merge(lists, weights: MergeFixture.weights, ranking: .searxng))
        }
    }

    Benchmark("merge+rank 3x100 rrf") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(ResultMerger.merge(lists, weights: MergeFixture.weights, ranking: .rrf))
        }
    }
}

/// A realistic mix: Open Library works with several ISBNs (a fifth with none, merged by title),
/// Aladin books of which 30 share an ISBN with Open Library, and 100 GIFs that never merge.
enum MergeFixture {
    static let weights = ["openlibrary": 1.0, "aladin": 1.2, "giphy": 0.8]

    static func lists() -> [(provider: String, items: [Item])] {
        let openLibrary = (0..<100).map { index -> Item in
            let isbns = index % 5 == 4 ? [] : (0..<4).map { isbn13(index * 10 + $0) }
            return Item(
                id: ItemID(provider: "openlibrary", value: "OL\(index)W"), kind: .book, title: "The Book Number \(index)",
                creators: ["Author \(index % 37)"], year: 1950 + index % 70,
                identifiers: Identifiers(isbns: isbns, other: ["openlibraryWork": "OL\(index)W"]))
        }
        let aladin = (0..<100).map { index -> Item in
            // Every third of the first 90 is an Open Library book again (by its second ISBN); the rest are new.
            let isbn = index % 3 == 0 && index < 90 && index % 5 != 4 ? isbn13(index * 10 + 1) : isbn13(5_000 + index)
            return Item(
                id: ItemID(provider: "aladin", value: isbn), kind: .book, title: "도서 \(index)",
                creators: ["저자 \(index)"], year: 2000 + index % 20, identifiers: Identifiers(isbns: [isbn]))
        }
        let giphy = (0..<100).map { index in
            Item(id: ItemID(provider: "giphy", value: "gif\(index)"), kind: .gif, title: "Funny cat \(index)",
                 identifiers: Identifiers(other: ["giphy": "gif\(index)"]))
        }
        return [("openlibrary", openLibrary), ("aladin", aladin), ("giphy", giphy)]
    }

    /// A valid ISBN-13: `978` + nine digits of `number` + its check digit.
    static func isbn13(_ number: Int) -> String {
        let stem = "978" + String(format: "%09d", number % 1_000_000_000)
        let digits = stem.compactMap(\.wholeNumberValue)
        let sum = digits.enumerated().reduce(0) { $0 + ($1.offset % 2 == 0 ? $1.element : $1.element * 3) }
        return stem + String((10 - sum % 10) % 10)
    }
}
