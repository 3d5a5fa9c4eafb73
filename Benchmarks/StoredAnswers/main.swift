// Timing harness for the response cache's stored answers (issue 29): encodes and decodes a realistic
// 20-item stored search answer and one detail. Built and run by Benchmarks/stored_answers.sh.
import Foundation

/// The stored form of a search page, as `CachedPage` in CachingMiddleware.swift.
struct CachedPage: Codable, Sendable {
    var items: [Item]
    var total: Int?
    var next: String?
}

func item(_ index: Int) -> Item {
    let work = "OL\(45_804 + index)W"
    let cover = 8_739_161 + index
    var images: [ImageSize: ImageReference] = [:]
    for (size, letter) in [(ImageSize.small, "S"), (.medium, "M"), (.large, "L")] {
        if let url = URL(string: "https://covers.openlibrary.org/b/id/\(cover)-\(letter).jpg") {
            images[size] = ImageReference(url: url, size: size)
        }
    }
    return Item(
        id: ItemID(provider: "openlibrary", value: work), kind: .book, title: "Fantastic Mr Fox, volume \(index)",
        subtitle: index.isMultiple(of: 3) ? "A tale of three farmers" : nil, creators: ["Roald Dahl", "Quentin Blake"],
        year: 1970 + index, identifiers: Identifiers(isbns: ["0140328726", "9780140328721", "9780307352149"], other: ["openlibraryWork": work]),
        images: images, url: URL(string: "https://openlibrary.org/works/\(work)"))
}

let page = CachedPage(items: (0..<20).map(item), total: 251, next: "20")
let detail = ItemDetail(
    item: item(0),
    description: String(repeating: "The three farmers, Boggis, Bunce and Bean, set out to catch Mr Fox. ", count: 8),
    contributors: [Contributor(name: "Roald Dahl", role: "author"), Contributor(name: "Quentin Blake", role: "illustrator")],
    subjects: ["Foxes", "Farmers", "Juvenile fiction", "Animals"], publishers: ["Puffin", "Knopf"], publishDate: "1970",
    pageCount: 96, attributes: ["language": "eng", "edition_count": "62"])

/// This thread's CPU time in nanoseconds: on a shared machine, less disturbed by other processes than wall time.
func cpuNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Median microseconds of CPU per call of `body`, over `rounds` rounds of `count` calls.
func time(_ label: String, rounds: Int = 15, count: Int = 400, _ body: () throws -> Int) rethrows {
    var samples: [Double] = []
    var sink = 0
    for _ in 0..<rounds {
        let start = cpuNanoseconds()
        for _ in 0..<count { sink &+= try body() }
        samples.append(Double(cpuNanoseconds() - start) / Double(count) / 1000)
    }
    samples.sort()
    let padded = label.padding(toLength: 40, withPad: " ", startingAt: 0)
    print(padded, String(format: "%8.1f µs  (min %.1f)", samples[samples.count / 2], samples[0]), sink == 42 ? "" : "")
}

// ENCODE_ONLY=N: only encodes the page N times, for a profiler (valgrind --tool=callgrind).
if let rounds = ProcessInfo.processInfo.environment["ENCODE_ONLY"].flatMap(Int.init) {
    var total = 0
    for _ in 0..<rounds { total &+= page.storedJSON.count }
    print("encoded \(rounds) pages, \(total) bytes")
    exit(0)
}

let pageBytes = page.storedJSON
let detailBytes = detail.storedJSON
print("page \(pageBytes.count) bytes, detail \(detailBytes.count) bytes")
try time("encode page (stored answer writer)") { page.storedJSON.count }
try time("encode page (JSONEncoder)") { try JSONEncoder().encode(page).count }
try time("decode page (JSONDecoder)") { try JSONDecoder().decode(CachedPage.self, from: pageBytes).items.count }
try time("encode detail (stored answer writer)") { detail.storedJSON.count }
try time("encode detail (JSONEncoder)") { try JSONEncoder().encode(detail).count }
try time("decode detail (JSONDecoder)") { try JSONDecoder().decode(ItemDetail.self, from: detailBytes).subjects.count }
