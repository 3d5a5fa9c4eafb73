@testable import CalibreProvider
import Foundation
import SeekCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 49's speed measurement (BENCHMARKS.md, `Benchmarks/calibre_bench.sh`): runs only when
/// `SEEK_CALIBRE_BENCH_LIBRARY` names a library and `SEEK_CALIBRE_BENCH_QUERIES` a file of queries,
/// one a line. Prints the index build's time, peak memory and size, then each query's time through
/// the provider (search, mapping, the cover checks) as p50/p99 over `SEEK_CALIBRE_BENCH_ROUNDS` rounds.
@Suite("Calibre: speed on a large library (only with SEEK_CALIBRE_BENCH_LIBRARY)")
struct CalibreBenchmark {
    static let environment = ProcessInfo.processInfo.environment

    @Test("index build, then search p50/p99", .enabled(if: environment["SEEK_CALIBRE_BENCH_LIBRARY"] != nil))
    func speed() async throws {
        let root = URL(fileURLWithPath: try #require(Self.environment["SEEK_CALIBRE_BENCH_LIBRARY"]))
        let queries = try String(contentsOfFile: try #require(Self.environment["SEEK_CALIBRE_BENCH_QUERIES"]), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        let rounds = Int(Self.environment["SEEK_CALIBRE_BENCH_ROUNDS"] ?? "") ?? 5
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("seek-calibre-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let before = try Data(contentsOf: root.appendingPathComponent("metadata.db"))
        let provider = CalibreProvider(root: root, indexDirectory: cache)
        let index = try #require(provider.index)
        let clock = ContinuousClock()
        let rssBefore = Self.peakResidentKB()
        let built = try await clock.measure { try await index.refresh() }
        let rssAfter = Self.peakResidentKB()
        let books = try await index.count()
        let size = (try? FileManager.default.attributesOfItem(atPath: index.url.path)[.size] as? Int) ?? 0
        print("calibre-bench: index of \(books) books built in \(Self.ms(built)) ms; peak RSS \(rssBefore / 1024) → \(rssAfter / 1024) MB; index file \(size / 1_048_576) MB")
        // A change in Calibre's library: the unchanged signature is checked on every search, and a
        // search after a change pays the comparison of last_modified stamps.
        var times: [Duration] = []
        var slowest: [String: Duration] = [:]
        var found = 0
        for _ in 0..<rounds {
            for query in queries {
                var page: SearchPage?
                let elapsed = try await clock.measure { page = try await provider.search(SearchRequest(query: query, limit: 20)) }
                times.append(elapsed)
                slowest[query] = max(slowest[query] ?? .zero, elapsed)
                found += page?.items.isEmpty == false ? 1 : 0
            }
        }
        for (query, time) in slowest.sorted(by: { $0.value > $1.value }).prefix(Int(Self.environment["SEEK_CALIBRE_BENCH_SLOWEST"] ?? "") ?? 0) {
            print("calibre-bench: slowest \(Self.ms(time)) ms  \(query)")
        }
        times.sort()
        func percentile(_ p: Double) -> Duration { times[min(times.count - 1, Int((Double(times.count) * p).rounded(.up)) - 1)] }
        print("calibre-bench: \(queries.count) queries × \(rounds) rounds: p50 \(Self.ms(percentile(0.5))) ms, p90 \(Self.ms(percentile(0.9))) ms, p99 \(Self.ms(percentile(0.99))) ms, max \(Self.ms(times.last ?? .zero)) ms; \(found)/\(times.count) searches found something")
        for query in queries.prefix(Int(Self.environment["SEEK_CALIBRE_BENCH_SHOW"] ?? "") ?? 0) {
            let elapsed = try await clock.measure { _ = try await provider.search(SearchRequest(query: query, limit: 20)) }
            let count = try await provider.search(SearchRequest(query: query, limit: 100)).items.count
            print("calibre-bench: \(Self.ms(elapsed)) ms  \(count) hits  \(query)")
        }
        #expect(try Data(contentsOf: root.appendingPathComponent("metadata.db")) == before)
    }

    static func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// The process's peak resident set, in KiB.
    static func peakResidentKB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
