import Foundation
import SeekKit
import SeekHTTPClient
import SeekCore
import SeekImageCache
import SeekLoopback
import SeekTesting
import Testing

@Suite("image cache: tiers, coalescing, content checks")
struct ImageCacheTests {
    static let coverPath = "/covers/b/id/6498519-L.jpg"

    func makeCache(_ folder: TemporaryFolder, transport: any HTTPTransport) -> ImageCache {
        ImageCache(configuration: ImageCacheConfiguration(directory: folder.images), transport: transport)
    }

    // MARK: Tiers over real HTTP

    @Test("a second process is served from disk with no upstream request")
    func secondProcessServedFromDisk() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let folder = try TemporaryFolder()
        server.route(Self.coverPath, FixtureResponse(headers: [("Content-Type", "image/jpeg")], body: Array(SampleImages.jpeg())))
        let first = try await makeCache(folder, transport: transport).image(at: server.url(Self.coverPath), provider: "openlibrary")
        // A new cache on the same folder is what the next `seek` process builds.
        let second = try await makeCache(folder, transport: transport).image(at: server.url(Self.coverPath), provider: "openlibrary")
        let requests = server.requestCount(path: Self.coverPath)
        try await transport.shutdown()
        try await server.shutdown()
        folder.remove()
        #expect(first.origin == .network && second.origin == .disk)
        #expect(second.data == SampleImages.jpeg())
        #expect(requests == 1)
    }

    @Test("12 concurrent identical requests make 1 upstream request")
    func twelveConcurrentRequestsOneDownload() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let folder = try TemporaryFolder()
        server.route(Self.coverPath, FixtureResponse(headers: [("Content-Type", "image/jpeg")], body: Array(SampleImages.jpeg())))
        server.route(Self.coverPath, fault: .delay(.milliseconds(300)))
        let cache = makeCache(folder, transport: transport)
        let address = server.url(Self.coverPath)
        let images = try await withThrowingTaskGroup(of: CachedImage.self) { group in
            for _ in 0..<12 { group.addTask { try await cache.image(at: address, provider: "openlibrary") } }
            var images: [CachedImage] = []
            for try await image in group { images.append(image) }
            return images
        }
        let requests = server.requestCount(path: Self.coverPath)
        try await transport.shutdown()
        try await server.shutdown()
        folder.remove()
        #expect(images.count == 12)
        #expect(images.allSatisfy { $0.data == SampleImages.jpeg() })
        #expect(requests == 1)
    }

    @Test("a truncated cache file is detected and replaced by a fresh download")
    func truncatedFileReplaced() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let folder = try TemporaryFolder()
        server.route(Self.coverPath, FixtureResponse(headers: [("Content-Type", "image/jpeg")], body: Array(SampleImages.jpeg())))
        let address = server.url(Self.coverPath)
        _ = try await makeCache(folder, transport: transport).image(at: address, provider: "openlibrary")
        let file = DiskImageCache(directory: folder.images).fileURL(for: address.absoluteString)
        let bytes = try Data(contentsOf: file)
        try bytes.prefix(bytes.count - 100).write(to: file)

        let cache = makeCache(folder, transport: transport)
        let again = try await cache.image(at: address, provider: "openlibrary")
        let requests = server.requestCount(path: Self.coverPath)
        let statistics = cache.statistics()
        let repaired = DiskImageCache(directory: folder.images).lookup(address.absoluteString)
        try await transport.shutdown()
        try await server.shutdown()
        folder.remove()
        #expect(again.origin == .network && again.data == SampleImages.jpeg())
        #expect(requests == 2)
        #expect(statistics.corrupt == 1)
        #expect(repaired == .hit(SampleImages.jpeg()))
    }

    @Test("an HTML page or a 404 is not cached and is reported as no image, naming the provider", arguments: ["html", "404", "placeholder", "empty"])
    func notAnImageIsNotCached(reply: String) async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let folder = try TemporaryFolder()
        switch reply {
        case "html": server.route(Self.coverPath, fault: .html)
        case "404": server.route(Self.coverPath, fault: .status(404, body: "Not Found"))
        case "placeholder": server.route(Self.coverPath, FixtureResponse(headers: [("Content-Type", "image/gif")], body: Array(SampleImages.gif(width: 1, height: 1))))
        default: server.route(Self.coverPath, fault: .empty)
        }
        let cache = makeCache(folder, transport: transport)
        let address = server.url(Self.coverPath)
        var errors: [SeekError] = []
        for _ in 0..<2 {
            do {
                _ = try await cache.image(at: address, provider: "openlibrary")
            } catch let error as SeekError {
                errors.append(error)
            }
        }
        let requests = server.requestCount(path: Self.coverPath)
        let statistics = cache.statistics()
        try await transport.shutdown()
        try await server.shutdown()
        folder.remove()
        #expect(errors.count == 2)
        #expect(errors.first?.kind == .notFound)
        #expect(errors.first?.description.hasPrefix("openlibrary: ") == true)
        #expect(errors.first?.description.contains("no image") == true)
        #expect(requests == 2, "a refused reply must not be served from a cache")
        #expect(statistics.disk.entries == 0 && statistics.memory.entries == 0)
        #expect(statistics.rejected == 2)
    }

    @Test("a server error is a typed HTTP error, not cached")
    func serverErrorIsTyped() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let folder = try TemporaryFolder()
        server.route(Self.coverPath, fault: .status(503, body: "busy"))
        let cache = makeCache(folder, transport: transport)
        await #expect(throws: SeekError.self) { _ = try await cache.image(at: server.url(Self.coverPath), provider: "giphy") }
        do {
            _ = try await cache.image(at: server.url(Self.coverPath), provider: "giphy")
        } catch let error as SeekError {
            #expect(error.kind == .httpStatus(503) && error.provider == "giphy")
        }
        try await transport.shutdown()
        try await server.shutdown()
        folder.remove()
    }

    @Test("GIPHY and OpenLibrary images share the one cache")
    func providersShareOneCache() async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let folder = try TemporaryFolder()
        let gif = SampleImages.gif(width: 200, height: 150)
        server.route(Self.coverPath, FixtureResponse(headers: [("Content-Type", "image/jpeg")], body: Array(SampleImages.jpeg())))
        server.route("/media/xT9IgG50Fb7Mi0prBC/200.gif", FixtureResponse(headers: [("Content-Type", "image/gif")], body: Array(gif)))
        let cache = makeCache(folder, transport: transport)
        let cover = try await cache.image(at: server.url(Self.coverPath), provider: "openlibrary")
        let animation = try await cache.image(at: server.url("/media/xT9IgG50Fb7Mi0prBC/200.gif"), provider: "giphy")
        let again = try await cache.image(at: server.url("/media/xT9IgG50Fb7Mi0prBC/200.gif"), provider: "giphy")
        let statistics = cache.statistics()
        try await transport.shutdown()
        try await server.shutdown()
        folder.remove()
        #expect(cover.format == .jpeg && animation.format == .gif && again.origin == .memory)
        #expect(statistics.disk.entries == 2 && statistics.memory.entries == 2)
        #expect(statistics.downloads == 2)
    }

    // MARK: Coalescing with a counting transport

    @Test("100 concurrent requests for one URL make exactly 1 upstream request")
    func hundredConcurrentRequests() async throws {
        let transport = CountingTransport(delay: .milliseconds(100))
        let cache = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: transport)
        let results = try await withThrowingTaskGroup(of: ImageOrigin.self) { group in
            for _ in 0..<100 { group.addTask { try await cache.image(at: sampleURL, provider: "openlibrary").origin } }
            var origins: [ImageOrigin] = []
            for try await origin in group { origins.append(origin) }
            return origins
        }
        #expect(results.count == 100)
        #expect(transport.requests == 1)
        #expect(cache.downloadCount == 1)
    }

    @Test("cancelling one waiter does not cancel the others or the download", .timeLimit(.minutes(1)))
    func cancellingOneWaiter() async throws {
        let transport = CountingTransport(gated: true)
        let cache = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: transport)
        let leaver = Task { try await cache.image(at: sampleURL, provider: "openlibrary") }
        let stayer = Task { try await cache.image(at: sampleURL, provider: "openlibrary") }
        try await eventually { transport.requests == 1 }
        try await Task.sleep(for: .milliseconds(50))
        leaver.cancel()
        // The cancelled waiter leaves while the download is still held at the gate.
        await #expect(throws: CancellationError.self) { _ = try await leaver.value }
        transport.release()
        let image = try await stayer.value
        #expect(image.data == SampleImages.jpeg())
        #expect(transport.requests == 1 && transport.cancellations == 0)
    }

    @Test("the download is cancelled only when every waiter has gone", .timeLimit(.minutes(1)))
    func cancellingEveryWaiter() async throws {
        let transport = CountingTransport(gated: true)
        let cache = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: transport)
        let first = Task { try await cache.image(at: sampleURL, provider: "openlibrary") }
        let second = Task { try await cache.image(at: sampleURL, provider: "openlibrary") }
        try await eventually { transport.requests == 1 }
        try await Task.sleep(for: .milliseconds(50))
        first.cancel()
        _ = await first.result
        try await Task.sleep(for: .milliseconds(100))
        #expect(transport.cancellations == 0)
        second.cancel()
        _ = await second.result
        try await eventually { transport.cancellations == 1 }
        #expect(transport.cancellations == 1)
    }

    @Test("after a cancelled download, the next request downloads again", .timeLimit(.minutes(1)))
    func retryAfterCancellation() async throws {
        let transport = CountingTransport(gated: true)
        let cache = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: transport)
        let abandoned = Task { try await cache.image(at: sampleURL, provider: "openlibrary") }
        try await eventually { transport.requests == 1 }
        abandoned.cancel()
        _ = await abandoned.result
        try await eventually { transport.cancellations == 1 }
        transport.release()
        let image = try await cache.image(at: sampleURL, provider: "openlibrary")
        #expect(image.origin == .network)
        #expect(transport.requests == 2)
    }

    @Test("a caller already cancelled gets CancellationError without a download")
    func alreadyCancelled() async throws {
        let transport = CountingTransport()
        let cache = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: transport)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await cache.image(at: sampleURL, provider: "openlibrary")
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(transport.requests == 0)
    }

    @Test("different URLs download separately and concurrently")
    func differentURLs() async throws {
        let transport = CountingTransport(delay: .milliseconds(50))
        let cache = ImageCache(configuration: ImageCacheConfiguration(directory: nil), transport: transport)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                group.addTask { _ = try await cache.image(at: url("https://media.giphy.com/media/\(index)/200.gif"), provider: "giphy") }
            }
            try await group.waitForAll()
        }
        #expect(transport.requests == 10)
    }

    // MARK: Statistics, clear, prune, TTL

    @Test("hits and misses per tier are counted and survive into the next process")
    func statisticsPersist() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let transport = CountingTransport()
        let first = makeCache(folder, transport: transport)
        _ = try await first.image(at: sampleURL, provider: "openlibrary")   // memory miss, disk miss, download
        _ = try await first.image(at: sampleURL, provider: "openlibrary")   // memory hit
        first.flushStatistics()
        let second = makeCache(folder, transport: transport)
        _ = try await second.image(at: sampleURL, provider: "openlibrary")  // memory miss, disk hit
        let statistics = second.statistics()
        #expect(statistics.memory.hits == 1 && statistics.memory.misses == 2)
        #expect(statistics.disk.hits == 1 && statistics.disk.misses == 1)
        #expect(statistics.disk.entries == 1 && statistics.disk.bytes == SampleImages.jpeg().count + DiskImageCache.headerSize)
        #expect(statistics.disk.limitBytes == ImageCacheConfiguration.defaultDiskLimitMB * 1024 * 1024)
        #expect(statistics.memory.limitBytes == ImageCacheConfiguration.defaultMemoryLimitMB * 1024 * 1024)
        #expect(statistics.downloads == 1 && transport.requests == 1)
    }

    @Test("clear empties both tiers and resets the counters")
    func clear() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let transport = CountingTransport()
        let cache = makeCache(folder, transport: transport)
        _ = try await cache.image(at: sampleURL, provider: "openlibrary")
        let report = try cache.removeAll()
        let statistics = cache.statistics()
        #expect(report.evicted == 1)
        #expect(statistics.disk.entries == 0 && statistics.memory.entries == 0 && statistics.downloads == 0)
        _ = try await cache.image(at: sampleURL, provider: "openlibrary")
        #expect(transport.requests == 2)
    }

    @Test("an entry past its time to live is fetched again")
    func expiredEntryRefetched() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let transport = CountingTransport()
        var configuration = ImageCacheConfiguration(directory: folder.images)
        configuration.timeToLive = 60
        _ = try await ImageCache(configuration: configuration, transport: transport, now: clock.now).image(at: sampleURL, provider: "openlibrary")
        clock.advance(by: 61)
        let image = try await ImageCache(configuration: configuration, transport: transport, now: clock.now).image(at: sampleURL, provider: "openlibrary")
        #expect(image.origin == .network && transport.requests == 2)
    }

    // MARK: Configuration

    @Test("limits and TTL come from the config file, SEEK_IMAGE_CACHE_TTL wins over ttlDays")
    func configurationFromSettings() throws {
        let file = JSONValue.object(["imageCache": .object(["ttlDays": .number(2), "diskLimitMB": .number(10), "memoryLimitMB": .number(3)])])
        let fromFile = try ImageCacheConfiguration(settings: Settings(environment: ["SEEK_CACHE_DIR": "/tmp/seek-x"], file: file))
        #expect(fromFile.timeToLive == 2 * 86_400)
        #expect(fromFile.diskLimitBytes == 10 * 1024 * 1024 && fromFile.memoryLimitBytes == 3 * 1024 * 1024)
        #expect(fromFile.directory?.path == "/tmp/seek-x/images")
        let fromEnvironment = try ImageCacheConfiguration(settings: Settings(environment: ["SEEK_IMAGE_CACHE_TTL": "90"], file: file))
        #expect(fromEnvironment.timeToLive == 90)
        let defaults = try ImageCacheConfiguration(settings: Settings(environment: ["HOME": "/home/x"]))
        #expect(defaults.timeToLive == 7 * 86_400)
        #expect(defaults.directory?.path == "/home/x/.cache/seek/images")
    }

    @Test("a bad TTL or limit is a configuration error naming the setting")
    func badConfiguration() {
        #expect(throws: SeekError.self) { try ImageCacheConfiguration(settings: Settings(environment: ["SEEK_IMAGE_CACHE_TTL": "soon"])) }
        do {
            _ = try ImageCacheConfiguration(settings: Settings(file: .object(["imageCache": .object(["diskLimitMB": .number(-1)])])))
            Issue.record("a negative limit was accepted")
        } catch let error as SeekError {
            #expect(error.kind == .configuration && error.detail.contains("imageCache.diskLimitMB"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
