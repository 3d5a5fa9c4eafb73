import Benchmark
import Foundation
import SeekCore
import SeekImageCache
import SeekKit
import Synchronization

/// The shared image cache: memory-hit latency and throughput, disk-hit latency for a 100 KB image
/// against reading the same bytes straight from a file, and coalescing (100 concurrent requests
/// for one URL make exactly 1 upstream request, against a counting fake transport).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 20_000
    )

    let fixture = ImageCacheFixture()

    // Memory tier: a hit never leaves the lock-protected LRU.
    let memoryOnly = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: CountingTransport(body: fixture.image))
    Benchmark(
        "image cache: memory hit",
        closure: { benchmark async in
            for _ in benchmark.scaledIterations {
                blackHole(try? await memoryOnly.image(at: fixture.url, provider: "bench"))
            }
        },
        setup: { _ = try await memoryOnly.image(at: fixture.url, provider: "bench") })

    // Disk tier through the whole cache (memory tier off): coalescing table, read, SHA-256 check, touch.
    let diskOnly = fixture.diskOnlyCache()
    Benchmark(
        "image cache: disk hit 100 KB",
        closure: { benchmark async in
            for _ in benchmark.scaledIterations {
                blackHole(try? await diskOnly.image(at: fixture.url, provider: "bench"))
            }
        },
        setup: { _ = try await diskOnly.image(at: fixture.url, provider: "bench") })

    // The disk tier alone, and the baseline: the same 100 KB read straight from a plain file.
    let disk = DiskImageCache(directory: fixture.folder.appendingPathComponent("images"))
    Benchmark("image cache: DiskImageCache.data 100 KB") { benchmark in
        for _ in benchmark.scaledIterations {
            guard let data = disk.data(for: fixture.url.absoluteString) else {
                benchmark.error("the disk entry is missing: this would measure a miss")
                return
            }
            blackHole(data)
        }
    }
    Benchmark("image cache: direct file read 100 KB (baseline)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(FileManager.default.contents(atPath: fixture.rawFile.path))
        }
    }

    // The ratio, measured side by side in one run (median of 500 of each), ×100 as an integer metric.
    let ratioMetric = BenchmarkMetric.custom("disk hit / direct read (x100)")
    Benchmark(
        "image cache: disk hit vs direct read ratio",
        configuration: .init(metrics: [ratioMetric], warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 5),
        closure: { benchmark async in
            let ratio = await fixture.diskToDirectRatio(cache: diskOnly, samples: 500)
            benchmark.measurement(ratioMetric, Int((ratio * 100).rounded()))
            FileHandle.standardError.write(Data("disk hit / direct read ratio: \(String(format: "%.2f", ratio))x\n".utf8))
        })

    // Coalescing: 100 callers at once, one URL, a fresh cache each time; the upstream answers after 1 ms.
    let upstreamMetric = BenchmarkMetric.custom("upstream requests per 100 callers")
    Benchmark(
        "image cache: 100 concurrent requests, 1 URL",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, upstreamMetric], maxIterations: 2_000),
        closure: { benchmark async in
            let transport = CountingTransport(body: fixture.image, delay: .milliseconds(1))
            let cache = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: transport)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    group.addTask { blackHole(try? await cache.image(at: fixture.url, provider: "bench")) }
                }
            }
            benchmark.measurement(upstreamMetric, transport.requests)
            if transport.requests != 1 {
                benchmark.error("100 concurrent requests made \(transport.requests) upstream requests, expected 1")
            }
        })
}

/// A 100 KB JPEG-signed image, a temporary folder holding it as a cache entry and as a plain file.
struct ImageCacheFixture: Sendable {
    let image: Data
    let url: URL
    let folder: URL
    let rawFile: URL

    init() {
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xF4, 0x01, 0x4D, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        image = Data(header + (0..<(100 * 1024 - header.count)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        url = URL(string: "https://covers.openlibrary.org/b/id/6498519-L.jpg?default=false") ?? URL(fileURLWithPath: "/cover.jpg")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-image-bench-\(ProcessInfo.processInfo.processIdentifier)")
        rawFile = folder.appendingPathComponent("raw-100k.jpg")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? image.write(to: rawFile)
        // Every disk benchmark reads this entry, whatever order the benchmarks run in.
        try? DiskImageCache(directory: folder.appendingPathComponent("images")).store(image, for: url.absoluteString)
    }

    /// A cache whose memory tier is off, so every hit comes from disk.
    func diskOnlyCache() -> ImageCache {
        var configuration = ImageCacheConfiguration(directory: folder.appendingPathComponent("images"))
        configuration.memoryLimitBytes = 0
        return ImageCache(configuration: configuration, transport: CountingTransport(body: image))
    }

    /// Median disk-hit time through `cache` divided by the median direct read of the plain file.
    func diskToDirectRatio(cache: ImageCache, samples: Int) async -> Double {
        let clock = ContinuousClock()
        var cached: [Duration] = [], direct: [Duration] = []
        _ = try? await cache.image(at: url, provider: "bench")
        for _ in 0..<samples {
            let start = clock.now
            blackHole(try? await cache.image(at: url, provider: "bench"))
            cached.append(clock.now - start)
            let second = clock.now
            blackHole(FileManager.default.contents(atPath: rawFile.path))
            direct.append(clock.now - second)
        }
        func median(_ values: [Duration]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : Self.seconds(sorted[sorted.count / 2])
        }
        let baseline = median(direct)
        return baseline > 0 ? median(cached) / baseline : 0
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// An `HTTPTransport` that answers every request with the same image after `delay`, and counts.
final class CountingTransport: HTTPTransport {
    private let count = Mutex(0)
    let body: Data
    let delay: Duration

    init(body: Data, delay: Duration = .zero) {
        self.body = body
        self.delay = delay
    }

    var requests: Int { count.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        count.withLock { $0 += 1 }
        if delay > .zero { try await Task.sleep(for: delay) }
        return HTTPResponse(status: 200, headers: ["Content-Type": "image/jpeg"], body: body)
    }
}
