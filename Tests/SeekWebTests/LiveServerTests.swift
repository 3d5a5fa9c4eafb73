import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SeekCore
import SeekLoopback
import SeekWeb
import SeekRuntime
import SeekTesting
import Testing

/// A real server on a loopback port, run until `stop()`.
struct LiveServer {
    let url: String
    let task: Task<Void, any Error>

    static func start(_ harness: ServerHarness) async throws -> LiveServer {
        let (addresses, sink) = AsyncStream.makeStream(of: String.self)
        let (server, application) = (harness.server, harness.server.application { address in sink.yield(address) })
        let task = Task { try await server.onItsLoops { try await application.run() } }
        var iterator = addresses.makeAsyncIterator()
        guard let url = await iterator.next() else { throw SeekError(.network, detail: "the server did not start") }
        return LiveServer(url: url, task: task)
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// One GET with AsyncHTTPClient, timing when each line of the body arrives.
func timedLines(_ url: String, client: HTTPClient) async throws -> (status: Int, lines: [(at: Duration, text: String)]) {
    let clock = ContinuousClock()
    let start = clock.now
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
    var lines: [(Duration, String)] = []
    var pending = ""
    for try await chunk in response.body {
        pending += String(buffer: chunk)
        while let newline = pending.firstIndex(of: "\n") {
            lines.append((clock.now - start, String(pending[..<newline])))
            pending = String(pending[pending.index(after: newline)...])
        }
    }
    return (Int(response.status.code), lines)
}

func jsonObject(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

@Suite("seek serve on a real socket", .serialized)
struct LiveServerTests {
    @Test("a hung provider times out while the others' results are answered")
    func hungProviderTimesOut() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("seek-config-\(UUID().uuidString).json")
        try Data(#"{"providers": {"giphy": {"timeout": 1}}}"#.utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let harness = try await ServerHarness.start(environment: ["SEEK_CONFIG": config.path])
        harness.serveBooks()
        harness.fixtures.route(ProviderSamples.giphyPath, fault: .hang)
        let server = try await LiveServer.start(harness)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let clock = ContinuousClock()
        let started = clock.now
        let answer = try await timedLines("\(server.url)/api/v1/search?q=harbor&providers=openlibrary,giphy", client: client)
        let took = clock.now - started
        try await client.shutdown()
        await server.stop()
        try await harness.stop()
        let json = try #require(answer.lines.first.flatMap { jsonObject($0.text) ?? nil } ?? jsonObject(answer.lines.map(\.text).joined()))
        #expect(answer.status == 200)
        #expect(outcomes(json)["giphy"]?["status"] as? String == "timeout")
        #expect(outcomes(json)["openlibrary"]?["status"] as? String == "ok")
        #expect((json["items"] as? [Any])?.isEmpty == false)
        #expect(took < .seconds(15))
    }

    @Test("the stream's first batch arrives before a slow provider answers")
    func streamFirstBatchEarly() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        harness.fixtures.route("/ol/search.json", fault: .delay(.milliseconds(1500)))
        let server = try await LiveServer.start(harness)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let answer = try await timedLines("\(server.url)/api/v1/search/stream?q=harbor&providers=openlibrary,aladin", client: client)
        try await client.shutdown()
        await server.stop()
        try await harness.stop()
        #expect(answer.lines.count == 3)
        let first = try #require(answer.lines.first)
        let last = try #require(answer.lines.last)
        #expect(jsonObject(first.text)?["provider"] as? String == "aladin")
        #expect(first.at < .milliseconds(1000))
        #expect(last.at >= .milliseconds(1400))
        #expect(jsonObject(last.text)?["type"] as? String == "summary")
    }

    @Test("two requests at once with different providers and ratings each get their own")
    func concurrentOptions() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        harness.fixtures.route(ProviderSamples.giphyPath) { request in
            .json(ProviderSamples.giphy(["rated-\(request.queryValue("rating") ?? "none")"]))
        }
        harness.fixtures.route(ProviderSamples.giphyPath, fault: .delay(.milliseconds(200)))
        let server = try await LiveServer.start(harness)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        async let strict = timedLines("\(server.url)/api/v1/search?q=cats&providers=giphy&rating=g", client: client)
        async let mixed = timedLines("\(server.url)/api/v1/search?q=cats&providers=giphy,openlibrary&rating=r", client: client)
        let (g, r) = try await (strict, mixed)
        try await client.shutdown()
        await server.stop()
        try await harness.stop()
        func ids(_ answer: (status: Int, lines: [(at: Duration, text: String)])) -> [String] {
            let json = jsonObject(answer.lines.map(\.text).joined(separator: "\n"))
            return (json?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        #expect(ids(g) == ["giphy:rated-g"])
        #expect(ids(r).contains("giphy:rated-r"))
        #expect(ids(r).contains("openlibrary:OL1W"))
        #expect(!ids(r).contains("giphy:rated-g"))
    }

    @Test("400 searches, 32 at a time, are all answered")
    func manyConcurrentSearches() async throws {
        let harness = try await ServerHarness.start()
        harness.serveBooks()
        let server = try await LiveServer.start(harness)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let url = server.url
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            var statuses: [Int] = []
            var started = 0
            func add() {
                let query = "harbor \(started % 50)"
                    .addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "harbor"
                group.addTask {
                    let response = try await client.execute(HTTPClientRequest(url: "\(url)/api/v1/search?q=\(query)"), timeout: .seconds(30))
                    _ = try await response.body.collect(upTo: 1 << 22)
                    return Int(response.status.code)
                }
                started += 1
            }
            while started < 32 { add() }
            while let status = try await group.next() {
                statuses.append(status)
                if started < 400 { add() }
            }
            return statuses
        }
        try await client.shutdown()
        await server.stop()
        try await harness.stop()
        #expect(statuses.count == 400)
        #expect(statuses.allSatisfy { $0 == 200 })
    }
}
