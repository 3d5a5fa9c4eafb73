import Foundation
import SeekCLI
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

/// GIPHY and cover samples of the project's own for the image cache's CLI tests.
enum ImageCacheSamples {
    static let coverPath = "/covers/b/id/6498519-L.jpg"
    static let gifID = "xT9IgG50Fb7Mi0prBC"
    static let gifPath = "/media/\(gifID)/giphy.gif"
    /// A GIF89a header (200×150) and filler.
    static let gifBytes: [UInt8] = Array("GIF89a".utf8) + [200, 0, 150, 0, 0xF7, 0, 0] + Array(repeating: 0x2A, count: 500)

    /// A GIPHY detail body whose only rendition is served by the fixture server.
    static func gifDetail(mediaURL: URL) -> String {
        """
        {"data": {"type": "gif", "id": "\(gifID)", "url": "https://giphy.com/gifs/cat-\(gifID)", "title": "Cat GIF",
                  "rating": "g", "import_datetime": "2021-05-06 07:08:09",
                  "images": {"original": {"url": "\(mediaURL.absoluteString)", "width": "200", "height": "150"}}},
         "meta": {"status": 200, "msg": "OK", "response_id": "r1"}}
        """
    }

    /// A work with no cover at all.
    static let workWithoutCover = """
    {"title": "A Book Without a Cover", "key": "/works/OL1W", "type": {"key": "/type/work"}}
    """
}

extension CLIHarness {
    /// Serves Open Library (with Mr Fox's cover), a GIPHY GIF and a work with no cover.
    func serveImages() {
        serveOpenLibrary()
        server.route("/ol/works/OL1W.json", .json(ImageCacheSamples.workWithoutCover))
        server.route("/giphy/v1/gifs/\(ImageCacheSamples.gifID)", .json(ImageCacheSamples.gifDetail(mediaURL: server.url(ImageCacheSamples.gifPath))))
        server.route(ImageCacheSamples.gifPath, FixtureResponse(headers: [("Content-Type", "image/gif")], body: ImageCacheSamples.gifBytes))
    }

    var giphyKey: [String: String] { ["SEEK_GIPHY_API_KEY": "giphy-test-key-123"] }
    var coverRequests: Int { server.requestCount(path: ImageCacheSamples.coverPath) }
}

@Suite("seek image and seek cache: one shared image cache")
struct ImageCacheCLITests {
    @Test("a second run (a second process) is served from the disk cache with no upstream request")
    func secondRunServedFromDisk() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let first = harness.home.appendingPathComponent("one.jpg")
        let second = harness.home.appendingPathComponent("two.jpg")
        let run1 = await harness.run(["image", "openlibrary:OL45804W", "-o", first.path])
        let run2 = await harness.run(["image", "openlibrary:OL45804W", "-o", second.path])
        let requests = harness.coverRequests
        let bytes = FileManager.default.contents(atPath: second.path)
        try await harness.stop()
        #expect(run1.code == 0 && run2.code == 0, "stderr: \(run1.stderr) \(run2.stderr)")
        #expect(requests == 1)
        #expect(bytes == Data(OpenLibrarySamples.coverBytes))
        #expect(run2.stderr.contains("from the disk cache"))
    }

    @Test("the built seek binary, run twice, downloads the cover once", .enabled(if: SeekBinary.url != nil))
    func secondBinaryProcessServedFromDisk() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let environment = harness.environment
        let home = harness.home
        let results = try await offThePool {
            try (1...2).map { index in
                try SeekBinary.run(["image", "openlibrary:OL45804W", "-o", home.appendingPathComponent("p\(index).jpg").path], environment: environment)
            }
        }
        let requests = harness.coverRequests
        try await harness.stop()
        #expect(results.allSatisfy { $0.code == 0 }, "stderr: \(results.map(\.stderr))")
        #expect(requests == 1)
    }

    @Test("several seek processes storing the same image at once never leave a corrupt cache file", .enabled(if: SeekBinary.url != nil))
    func concurrentProcessesNeverCorrupt() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        harness.server.route(ImageCacheSamples.coverPath, fault: .delay(.milliseconds(200)))
        let environment = harness.environment
        let home = harness.home
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for index in 0..<4 {
                group.addTask {
                    try await offThePool {
                        try SeekBinary.run(["image", "openlibrary:OL45804W", "-o", home.appendingPathComponent("c\(index).jpg").path], environment: environment)
                    }
                }
            }
            var results: [RunResult] = []
            for try await result in group { results.append(result) }
            return results
        }
        let prune = await harness.run(["cache", "prune"])
        let stats = await harness.run(["cache", "stats", "--format", "json"])
        let before = harness.coverRequests
        let again = await harness.run(["image", "openlibrary:OL45804W", "-o", home.appendingPathComponent("after.jpg").path])
        let after = harness.coverRequests
        try await harness.stop()
        #expect(results.allSatisfy { $0.code == 0 }, "stderr: \(results.map(\.stderr))")
        #expect(prune.stdout.contains("0 damaged"), "prune: \(prune.stdout)")
        let disk = stats.json?["disk"] as? [String: Any]
        #expect(disk?["entries"] as? Int == 1)
        #expect(again.code == 0 && after == before, "the stored entry verifies and is served from disk")
    }

    @Test("several ids are fetched at once into -d DIR, named after the id with the real format's extension")
    func severalIDsIntoDirectory() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let folder = harness.home.appendingPathComponent("out")
        let result = await harness.run(["image", "openlibrary:OL45804W", "giphy:\(ImageCacheSamples.gifID)", "-d", folder.path], environment: harness.giphyKey)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted()
        let gif = FileManager.default.contents(atPath: folder.appendingPathComponent("giphy-\(ImageCacheSamples.gifID).gif").path)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(names == ["giphy-\(ImageCacheSamples.gifID).gif", "openlibrary-OL45804W.jpg"])
        #expect(gif == Data(ImageCacheSamples.gifBytes))
    }

    @Test("GIPHY and OpenLibrary images share the one cache")
    func providersShareTheCache() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let folder = harness.home.appendingPathComponent("out")
        _ = await harness.run(["image", "openlibrary:OL45804W", "-d", folder.path], environment: harness.giphyKey)
        _ = await harness.run(["image", "giphy:\(ImageCacheSamples.gifID)", "-d", folder.path], environment: harness.giphyKey)
        let stats = await harness.run(["cache", "stats", "--format", "json"], environment: harness.giphyKey)
        let again = await harness.run(["image", "openlibrary:OL45804W", "giphy:\(ImageCacheSamples.gifID)", "-d", folder.path], environment: harness.giphyKey)
        let gifRequests = harness.server.requestCount(path: ImageCacheSamples.gifPath)
        let coverRequests = harness.coverRequests
        try await harness.stop()
        let json = try #require(stats.json)
        let disk = try #require(json["disk"] as? [String: Any])
        #expect(disk["entries"] as? Int == 2)
        #expect(json["downloads"] as? Int == 2)
        #expect(again.code == 0)
        #expect(gifRequests == 1 && coverRequests == 1)
    }

    @Test("a work with no cover gets the cover Seek draws from its record, and stderr says the source has none")
    func workWithoutCover() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let file = harness.home.appendingPathComponent("none.svg")
        let result = await harness.run(["image", "openlibrary:OL1W", "-o", file.path])
        let written = (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) }
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("a cover drawn by Seek: the source has no image"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("seek: openlibrary:"), "no failure to name: \(result.stderr)")
        #expect(written?.hasPrefix("<svg") == true)
        #expect(written?.contains("A Book Without a Cover") == true)
    }

    @Test("when some images fail, the others are still written and the exit code is 3")
    func someFailed() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        harness.server.route("/ol/works/OL404W.json", fault: .status(404, body: "gone"))
        let folder = harness.home.appendingPathComponent("out")
        let result = await harness.run(["image", "openlibrary:OL45804W", "openlibrary:OL1W", "openlibrary:OL404W", "-d", folder.path])
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        try await harness.stop()
        #expect(result.code == 3)
        // A cover of its own, a drawn one for the work without; nothing for the work that cannot be had.
        #expect(names.sorted() == ["openlibrary-OL1W.svg", "openlibrary-OL45804W.jpg"])
        #expect(result.stderr.contains("seek: openlibrary: not found"), "stderr: \(result.stderr)")
    }

    @Test("an HTML reply is not cached: the next run asks upstream again, says why and writes the drawn cover, never the page")
    func htmlNotCached() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        harness.server.route(ImageCacheSamples.coverPath, fault: .html)
        let file = harness.home.appendingPathComponent("page.svg")
        let first = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let second = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let requests = harness.coverRequests
        let written = (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) }
        try await harness.stop()
        #expect(first.code == 0 && second.code == 0, "stderr: \(first.stderr) \(second.stderr)")
        #expect(second.stderr.hasPrefix("seek: openlibrary: not found: no image"), "stderr: \(second.stderr)")
        #expect(requests == 2)
        #expect(written?.hasPrefix("<svg") == true)
        #expect(written?.lowercased().contains("<html") == false)
    }

    @Test("an image URL of a configured provider is fetched through the cache")
    func imageURL() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let file = harness.home.appendingPathComponent("by-url.jpg")
        let address = harness.server.url(ImageCacheSamples.coverPath).absoluteString
        let result = await harness.run(["image", address, "-o", file.path])
        let bytes = FileManager.default.contents(atPath: file.path)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(bytes == Data(OpenLibrarySamples.coverBytes))
    }

    @Test("a URL on a host no provider uses is refused as a usage error")
    func foreignURL() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["image", "http://images.example.net/cat.jpg", "-o", harness.home.appendingPathComponent("x.jpg").path])
        let requests = harness.server.totalRequestCount
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("not an image URL of a configured provider"))
        #expect(requests == 0)
    }

    @Test("-o takes one image; several need -d", arguments: [["-o", "x.jpg"], []])
    func severalNeedDirectory(extra: [String]) async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["image", "openlibrary:OL45804W", "openlibrary:OL1W"] + extra)
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("-d DIR"))
    }

    @Test("on a terminal a progress line counts the images; off a terminal there is none")
    func progressLine() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let folder = harness.home.appendingPathComponent("out")
        let stdout = CapturedText(), stderr = CapturedText()
        let context = CLIContext(environment: harness.environment.merging(harness.giphyKey) { $1 }, stdout: stdout, stderr: stderr, isTerminal: true)
        let code = await SeekMain.run(arguments: ["image", "openlibrary:OL45804W", "giphy:\(ImageCacheSamples.gifID)", "-d", folder.path], context: context)
        let plain = await harness.run(["image", "openlibrary:OL45804W", "-d", folder.path])
        try await harness.stop()
        #expect(code == 0)
        #expect(stderr.text.contains("images 2/2"))
        #expect(!plain.stderr.contains("images 1/1"))
    }

    @Test("cache stats as JSON gives entries, bytes, limitBytes, hits and misses per tier")
    func statsJSON() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let file = harness.home.appendingPathComponent("fox.jpg")
        _ = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        _ = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let result = await harness.run(["cache", "stats", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let json = try #require(result.json)
        for tier in ["memory", "disk"] {
            let block = try #require(json[tier] as? [String: Any], "no \(tier) block")
            for key in ["entries", "bytes", "limitBytes", "hits", "misses"] {
                #expect(block[key] is Int, "\(tier).\(key) missing")
            }
        }
        let disk = try #require(json["disk"] as? [String: Any])
        #expect(disk["entries"] as? Int == 1)
        #expect(disk["hits"] as? Int == 1 && disk["misses"] as? Int == 1)
        #expect(disk["limitBytes"] as? Int == 256 * 1024 * 1024)
        #expect(json["ttlSeconds"] as? Int == 7 * 86_400)
    }

    @Test("cache stats as a table names both tiers; limits come from the config file")
    func statsTableWithConfig() async throws {
        let harness = try await CLIHarness.start()
        let config = harness.home.appendingPathComponent("config/seek/config.json")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"imageCache": {"ttlDays": 2, "diskLimitMB": 10, "memoryLimitMB": 8}}"#.utf8).write(to: config)
        let table = await harness.run(["cache", "stats"])
        let json = await harness.run(["cache", "stats", "--format", "json"])
        try await harness.stop()
        #expect(table.code == 0, "stderr: \(table.stderr)")
        #expect(table.stdout.contains("memory") && table.stdout.contains("disk") && table.stdout.contains("2 days"))
        #expect((json.json?["disk"] as? [String: Any])?["limitBytes"] as? Int == 10 * 1024 * 1024)
        #expect((json.json?["memory"] as? [String: Any])?["limitBytes"] as? Int == 8 * 1024 * 1024)
    }

    @Test("cache clear empties the cache, so the next image is downloaded again")
    func clear() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let file = harness.home.appendingPathComponent("fox.jpg")
        _ = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let clear = await harness.run(["cache", "clear"])
        let stats = await harness.run(["cache", "stats", "--format", "json"])
        _ = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let requests = harness.coverRequests
        try await harness.stop()
        #expect(clear.code == 0 && clear.stdout.contains("Removed 1 image"))
        #expect((stats.json?["disk"] as? [String: Any])?["entries"] as? Int == 0)
        #expect(requests == 2)
    }

    @Test("cache prune removes a damaged entry, which is then fetched again")
    func prune() async throws {
        let harness = try await CLIHarness.start()
        harness.serveImages()
        let file = harness.home.appendingPathComponent("fox.jpg")
        _ = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let images = harness.home.appendingPathComponent("cache/images")
        let entries = try FileManager.default.contentsOfDirectory(atPath: images.path).filter { !$0.hasPrefix(".") }
        #expect(entries.count == 1)
        for entry in entries {
            let path = images.appendingPathComponent(entry)
            let bytes = try Data(contentsOf: path)
            try bytes.prefix(bytes.count / 2).write(to: path)
        }
        let prune = await harness.run(["cache", "prune"])
        _ = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let requests = harness.coverRequests
        try await harness.stop()
        #expect(prune.code == 0)
        #expect(prune.stdout.contains("1 damaged"), "prune: \(prune.stdout)")
        #expect(requests == 2)
    }

    @Test("a bad SEEK_IMAGE_CACHE_TTL is a configuration error (exit 64)")
    func badTTL() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["cache", "stats"], environment: ["SEEK_IMAGE_CACHE_TTL": "forever"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("SEEK_IMAGE_CACHE_TTL"))
    }
}
