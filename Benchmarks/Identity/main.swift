import Foundation

// Issue 48's identity benchmark: precision, recall and F1 of the merger's joins on the labelled set
// (labelled.json, built by make_set.py from the recorded responses), for both groupings, and the
// merge's time for 8 sources × 100 items. Compiled with SeekCore's and SeekIdentity's files by ../identity.sh.

struct Record {
    let key: String
    let source: String
    let item: Item
}

func records(from path: String) throws -> (records: [String: Record], pairs: [[String: Any]]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          let list = root["records"] as? [[String: Any]], let pairs = root["pairs"] as? [[String: Any]]
    else { throw CocoaError(.fileReadCorruptFile) }
    var records: [String: Record] = [:]
    for entry in list {
        guard let key = entry["key"] as? String, let source = entry["source"] as? String, let id = entry["id"] as? String,
              let title = entry["title"] as? String
        else { continue }
        var other = entry["identifiers"] as? [String: String] ?? [:]
        if let type = entry["type"] as? String { other["type"] = type }
        if let language = entry["language"] as? String, other["language"] == nil { other["language"] = language }
        other["containerISBN"] = nil
        // Native UTF-8 strings, as a provider's decoder gives them (Foundation's JSONSerialization may
        // hand out bridged ones, every byte of which is read through a slower path).
        func native(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        let item = Item(
            id: ItemID(provider: source, value: native(id)), kind: .book, title: native(title),
            subtitle: (entry["subtitle"] as? String).map(native),
            creators: (entry["creators"] as? [String] ?? []).map(native), year: entry["year"] as? Int,
            identifiers: Identifiers(isbns: (entry["isbns"] as? [String] ?? []).map(native),
                                     other: Dictionary(uniqueKeysWithValues: other.map { (native($0.key), native($0.value)) })))
        records[key] = Record(key: key, source: source, item: item)
    }
    return (records, pairs)
}

func joined(_ a: Record, _ b: Record, grouping: ResultGrouping) -> Bool {
    // Each record as its own source's list (a pair of one source's records is read as two sources').
    let second = a.source == b.source ? b.source + "-2" : b.source
    return ResultMerger.merge([(a.source, [a.item]), (second, [b.item])], grouping: grouping).count == 1
}

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "Benchmarks/Identity/labelled.json"
let verbose = ProcessInfo.processInfo.environment["VERBOSE"] != nil
let (set, pairs) = try records(from: path)
print("labelled set: \(pairs.count) pairs, \(set.count) records, \(Set(set.values.map(\.source)).count) sources")
for grouping in ResultGrouping.allCases where ProcessInfo.processInfo.environment["SKIP_PAIRS"] == nil {
    var truePositive = 0, falsePositive = 0, falseNegative = 0, trueNegative = 0
    for pair in pairs {
        guard let a = (pair["a"] as? String).flatMap({ set[$0] }), let b = (pair["b"] as? String).flatMap({ set[$0] }),
              let label = pair[grouping.rawValue] as? String
        else { continue }
        let same = label == "same", predicted = joined(a, b, grouping: grouping)
        switch (same, predicted) {
        case (true, true): truePositive += 1
        case (false, true): falsePositive += 1
        case (true, false): falseNegative += 1
        case (false, false): trueNegative += 1
        }
        if ProcessInfo.processInfo.environment["DEBUG"] != nil, same != predicted {
            print(BookIdentity(a.item), BookIdentity(b.item), BookIdentity(a.item).titleJoin(BookIdentity(b.item), grouping: grouping) as Any)
        }
        if verbose, same != predicted {
            print("  \(grouping) \(predicted ? "FALSE JOIN" : "MISSED"): \(pair["reason"] ?? "")\n    \(a.item.title) / \(a.item.creators) / \(a.item.year.map(String.init) ?? "-")\n    \(b.item.title) / \(b.item.creators) / \(b.item.year.map(String.init) ?? "-")")
        }
    }
    let precision = Double(truePositive) / Double(max(1, truePositive + falsePositive))
    let recall = Double(truePositive) / Double(max(1, truePositive + falseNegative))
    let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
    print(String(format: "group=%@: precision %.3f, recall %.3f, F1 %.3f (tp %d, fp %d, fn %d, tn %d)",
                 grouping.rawValue, precision, recall, f1, truePositive, falsePositive, falseNegative, trueNegative))
}

// Merge time: 8 sources × 100 items, as a search over every book source answers: each source's list
// its own records in the set, filled up to 100 with others' (no record twice in one list; ids made
// unique), the eighth (a library) a mix; sources share books through the set's variants and fill-ups.
let bySource = Dictionary(grouping: set.values.sorted { $0.key < $1.key }, by: \.source)
let pool = set.values.sorted { $0.key < $1.key }.map(\.item)
var lists: [(provider: String, items: [Item])] = []
var cursor = 0
for source in ["openlibrary", "googlebooks", "aladin", "kakao", "naver", "crossref", "gutendex", "calibre"] {
    var items = Array((bySource[source]?.map(\.item) ?? []).prefix(100))
    var taken = Set(items.map(\.id))
    // OWN=1: each source's own records only (cycled, as a source's many editions of few books), the
    // library a mix; books meet across sources only where the set's variants put them.
    if ProcessInfo.processInfo.environment["OWN"] != nil, !items.isEmpty {
        let own = items
        while items.count < 100 { items.append(own[items.count % own.count]) }
    }
    while items.count < 100 {
        let candidate = pool[cursor % pool.count]
        cursor += 1
        if taken.insert(candidate.id).inserted { items.append(candidate) }
    }
    for index in items.indices { items[index].id = ItemID(provider: source, value: "\(index)") }
    lists.append((source, items))
}
let clock = ContinuousClock()
for grouping in ResultGrouping.allCases {
    var samples: [Duration] = []
    var rows = 0
    let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 400
    for _ in 0..<runs {
        let start = clock.now
        rows = ResultMerger.merge(lists, grouping: grouping).count
        samples.append(clock.now - start)
    }
    samples.sort()
    guard !samples.isEmpty else { continue }
    func ms(_ duration: Duration) -> String { String(format: "%.3f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000) }
    print("merge 8 sources × 100 items, group=\(grouping.rawValue): p50 \(ms(samples[samples.count / 2])), p90 \(ms(samples[samples.count * 9 / 10])) (\(rows) rows, \(runs) runs)")
}

if ProcessInfo.processInfo.environment["PARTS"] != nil {
    let all = lists.flatMap(\.items)
    var start = clock.now
    var count = 0
    for _ in 0..<50 { for item in all { count += BookIdentity(item).keys.count } }
    print("identities: \((clock.now - start) / 50) per merge (\(count))")
    start = clock.now
    for _ in 0..<50 { for item in all { count += TitleWords.words(of: item.title).count } }
    print("title words: \((clock.now - start) / 50) per merge")
    start = clock.now
    for _ in 0..<50 { for item in all { count += CreatorKey.keys(item.creators).count } }
    print("creators: \((clock.now - start) / 50) per merge")
    start = clock.now
    for _ in 0..<50 { for item in all { count += item.identifiers.isbn13.count } }
    print("isbn count \(count)")
    start = clock.now
    for _ in 0..<50 { for item in all { count += BookIdentity.bracketsRemoved(item.title).text.count + BookIdentity.split(item.title).main.count } }
    print("split: \((clock.now - start) / 50) per merge")
}

// CHECK_BYTES=1: the reading by bytes and the reading by words agree on every record's title.
if ProcessInfo.processInfo.environment["CHECK_BYTES"] != nil {
    var byBytes = 0, differ = 0
    for record in set.values {
        var words = BookIdentity(), bytes = BookIdentity()
        words.readTitleWords(record.item.title, subtitle: record.item.subtitle)
        guard bytes.readTitleBytes(record.item.title, subtitle: record.item.subtitle) else { continue }
        byBytes += 1
        let same = words.title == bytes.title && words.volumes == bytes.volumes && words.mainSeries == bytes.mainSeries
            && words.restSeries == bytes.restSeries && words.subtitle == bytes.subtitle && words.boxSet == bytes.boxSet
            && words.generic == bytes.generic && words.titleWordEnds == bytes.titleWordEnds
        if !same {
            differ += 1
            print("differ: \(record.item.title) | \(record.item.subtitle ?? "-")\n  words: \(words.title) \(words.volumes) \(words.mainSeries) \(words.restSeries) \(words.subtitle) \(words.boxSet) \(words.generic)\n  bytes: \(bytes.title) \(bytes.volumes) \(bytes.mainSeries) \(bytes.restSeries) \(bytes.subtitle) \(bytes.boxSet) \(bytes.generic)")
        }
    }
    print("read by bytes: \(byBytes) of \(set.count) titles; \(differ) differ")
}

// CHECK_BYTES=1 also: every creator's key read by bytes and by words agree.
if ProcessInfo.processInfo.environment["CHECK_BYTES"] != nil {
    var byBytes = 0, differ = 0, names = 0
    for record in set.values {
        for name in record.item.creators {
            names += 1
            let words = CreatorKey(words: name)
            guard let bytes = CreatorKey.readByBytes(name) else { continue }
            byBytes += 1
            if bytes?.family != words?.family || bytes?.initial != words?.initial || bytes?.words != words?.words {
                differ += 1
                print("creator differs: \(name) words \(String(describing: words)) bytes \(String(describing: bytes))")
            }
        }
    }
    print("creators read by bytes: \(byBytes) of \(names); \(differ) differ")
}
