import Foundation
import SeekKit
import SeekImageCache
import SeekLoopback
import Testing

@Suite("disk tier")
struct DiskImageCacheTests {
    @Test("an entry stored by one instance is read back, verified, by another (a second process)")
    func roundTripAcrossInstances() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let image = SampleImages.jpeg()
        try DiskImageCache(directory: folder.images).store(image, for: sampleURL.absoluteString)
        #expect(DiskImageCache(directory: folder.images).lookup(sampleURL.absoluteString) == .hit(image))
    }

    @Test("the file is named by the SHA-256 of the URL and holds a header with length and checksum")
    func fileLayout() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = DiskImageCache(directory: folder.images)
        let key = "abc"                                     // SHA-256 test vector from FIPS 180-2
        try cache.store(SampleImages.jpeg(), for: key)
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(cache.fileURL(for: key).lastPathComponent == expected)
        let file = try Data(contentsOf: cache.fileURL(for: key))
        #expect(file.prefix(8) == Data("SEEKIMG1".utf8))
        #expect(file.count == DiskImageCache.headerSize + SampleImages.jpeg().count)
    }

    @Test("a truncated file is detected, removed, and reads as a miss")
    func truncatedFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = DiskImageCache(directory: folder.images)
        try cache.store(SampleImages.jpeg(), for: "k")
        let path = cache.fileURL(for: "k")
        let file = try Data(contentsOf: path)
        try file.prefix(file.count / 2).write(to: path)
        #expect(cache.lookup("k") == .corrupt)
        #expect(!FileManager.default.fileExists(atPath: path.path))
        #expect(cache.lookup("k") == .miss)
    }

    @Test("a flipped byte, a zero-length file or a foreign file is detected as damaged")
    func damagedFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = DiskImageCache(directory: folder.images)
        try cache.store(SampleImages.jpeg(), for: "k")
        let path = cache.fileURL(for: "k")
        var file = try Data(contentsOf: path)
        file[file.count - 10] ^= 0xFF
        try file.write(to: path)
        #expect(cache.lookup("k") == .corrupt)

        try Data().write(to: path)
        #expect(cache.lookup("k") == .corrupt)

        try SampleImages.jpeg().write(to: path)            // bare image bytes, no header
        #expect(cache.lookup("k") == .corrupt)
    }

    @Test("an entry expires after its time to live and is removed")
    func timeToLive() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = DiskImageCache(directory: folder.images, timeToLive: 3600, now: clock.now)
        try cache.store(SampleImages.jpeg(), for: "k")
        clock.advance(by: 3599)
        #expect(cache.data(for: "k") != nil)
        clock.advance(by: 2)
        #expect(cache.lookup("k") == .expired)
        #expect(!FileManager.default.fileExists(atPath: cache.fileURL(for: "k").path))
    }

    @Test("the size limit evicts the least recently used entries, reads counting as use")
    func sweepByLastAccess() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let body = Data(repeating: 7, count: 1000)
        let entrySize = DiskImageCache.headerSize + body.count
        let cache = DiskImageCache(directory: folder.images, sizeLimit: 3 * entrySize + 100, trimRatio: 1, now: clock.now)
        for key in ["a", "b", "c"] {
            try cache.store(body, for: key)
            clock.advance(by: 10)
        }
        #expect(cache.data(for: "a") != nil)                // a is now the most recently used
        clock.advance(by: 10)
        try cache.store(body, for: "d")
        #expect(cache.data(for: "b") == nil)
        #expect(cache.data(for: "a") != nil && cache.data(for: "c") != nil && cache.data(for: "d") != nil)
        #expect(cache.usage().entries == 3)
    }

    @Test("a read moves the file's modification date to now")
    func readTouchesModificationDate() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = DiskImageCache(directory: folder.images, now: clock.now)
        try cache.store(SampleImages.jpeg(), for: "k")
        clock.advance(by: 5000)
        _ = cache.data(for: "k")
        let attributes = try FileManager.default.attributesOfItem(atPath: cache.fileURL(for: "k").path)
        let modified = try #require(attributes[.modificationDate] as? Date)
        #expect(abs(modified.timeIntervalSince(clock.now())) < 1)
    }

    @Test("a sweep trims to a fraction of the limit so it does not run at every write")
    func sweepTrimsBelowLimit() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let body = Data(repeating: 7, count: 944)          // 1000 bytes per entry file
        let cache = DiskImageCache(directory: folder.images, sizeLimit: 10_000, trimRatio: 0.5, now: clock.now)
        for index in 0..<11 {
            try cache.store(body, for: "k\(index)")
            clock.advance(by: 1)
        }
        #expect(cache.usage().bytes <= 5000)
        #expect(cache.data(for: "k10") != nil)
        #expect(cache.data(for: "k0") == nil)
    }

    @Test("a writer killed before its rename leaves only a temporary file, never served, removed by prune")
    func interruptedWrite() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock(Date())
        let cache = DiskImageCache(directory: folder.images, now: clock.now)
        try FileManager.default.createDirectory(at: folder.images, withIntermediateDirectories: true)
        let leftover = folder.images.appendingPathComponent(".tmp-crashed-writer")
        try Data("SEEKIMG1 half an entry".utf8).write(to: leftover)
        #expect(cache.lookup("k") == .miss)
        #expect(cache.usage().entries == 0)
        #expect(cache.prune().temporary == 0)              // might still be a live writer
        clock.advance(by: 3600)
        #expect(cache.prune().temporary == 1)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    @Test("prune removes expired and damaged entries and reports what is left")
    func prune() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = DiskImageCache(directory: folder.images, timeToLive: 100, now: clock.now)
        try cache.store(SampleImages.jpeg(), for: "old")
        clock.advance(by: 200)
        try cache.store(SampleImages.jpeg(), for: "fresh")
        try cache.store(SampleImages.jpeg(), for: "broken")
        try Data("garbage".utf8).write(to: cache.fileURL(for: "broken"))
        let report = cache.prune()
        #expect(report.expired == 1 && report.corrupt == 1 && report.remainingEntries == 1)
        #expect(cache.data(for: "fresh") != nil)
    }

    @Test("two caches writing the same entry at once (as two processes do) never leave a corrupt file")
    func concurrentWritersNeverCorrupt() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = DiskImageCache(directory: folder.images)
        let second = DiskImageCache(directory: folder.images)
        let payloads = (0..<4).map { SampleImages.jpeg(filler: 20_000 + $0 * 7919, seed: UInt8($0)) }
        let outcomes = await withTaskGroup(of: [DiskImageCache.Lookup].self) { group in
            for worker in 0..<4 {
                let cache = worker % 2 == 0 ? first : second
                group.addTask {
                    var seen: [DiskImageCache.Lookup] = []
                    for round in 0..<60 {
                        try? cache.store(payloads[(worker + round) % payloads.count], for: "shared")
                        seen.append(cache.lookup("shared"))
                    }
                    return seen
                }
            }
            var all: [DiskImageCache.Lookup] = []
            for await seen in group { all += seen }
            return all
        }
        #expect(!outcomes.contains(.corrupt))
        for outcome in outcomes {
            if case .hit(let data) = outcome { #expect(payloads.contains(data)) }
        }
        #expect(first.lookup("shared") != .corrupt)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.images.path).filter { $0.hasPrefix(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test("clearing removes every entry")
    func removeAll() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = DiskImageCache(directory: folder.images)
        try cache.store(SampleImages.jpeg(), for: "a")
        try cache.store(SampleImages.jpeg(), for: "b")
        #expect(cache.removeAll().evicted == 2)
        #expect(cache.usage().entries == 0)
    }

    @Test("an entry larger than the whole limit is not stored")
    func oversizedEntry() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = DiskImageCache(directory: folder.images, sizeLimit: 500)
        try cache.store(SampleImages.jpeg(filler: 1000), for: "big")
        #expect(cache.lookup("big") == .miss)
    }
}
