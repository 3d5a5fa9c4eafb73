import Foundation
import NIOCore
import NIOPosix
import SeekKit
import SeekLoopback
import SeekTesting
import Testing
import NIOHTTP1

// MARK: - A tiny HTTP/1.1 client on NIO, enough to observe what the fixture server does.

struct ClientResult: Sendable {
    var status: Int?
    var headers: [(String, String)] = []
    /// The first bytes of the body (up to the client's `keep` limit).
    var body: [UInt8] = []
    /// Every body byte received, kept or not.
    var bodyByteCount = 0
    /// The response ended properly (`.end` arrived).
    var complete = false
    /// The client gave up waiting and closed the connection.
    var timedOut = false
    /// The connection closed before the response ended.
    var closedEarly = false
    var error: String?

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

final class CollectingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: HTTPRequestHead
    private let promise: EventLoopPromise<ClientResult>
    private let timeout: TimeAmount
    private let keep: Int
    private var result = ClientResult()
    private var done = false
    private var timer: Scheduled<Void>?

    init(request: HTTPRequestHead, promise: EventLoopPromise<ClientResult>, timeout: TimeAmount, keep: Int) {
        self.request = request
        self.promise = promise
        self.timeout = timeout
        self.keep = keep
    }

    func channelActive(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.result.timedOut = true
            self.finish(context: context)
        }
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            result.status = Int(head.status.code)
            result.headers = head.headers.map { ($0.name, $0.value) }
        case .body(let buffer):
            result.bodyByteCount += buffer.readableBytes
            let room = keep - result.body.count
            if room > 0 {
                result.body += buffer.readableBytesView.prefix(room)
            }
        case .end:
            result.complete = true
            finish(context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if result.error == nil {
            result.error = String(describing: error)
        }
        finish(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done && !result.complete {
            result.closedEarly = true
        }
        finish(context: context)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if !done {
            done = true
            timer?.cancel()
            promise.succeed(result)
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        timer?.cancel()
        promise.succeed(result)
        context.close(promise: nil)
    }
}

/// Sends one request on a fresh connection and collects the answer.
func fetch(
    _ server: FixtureServer,
    _ uri: String,
    method: HTTPMethod = .GET,
    timeout: Duration = .seconds(10),
    keep: Int = 1 << 20
) async throws -> ClientResult {
    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
    let promise = eventLoop.makePromise(of: ClientResult.self)
    var headers = HTTPHeaders()
    headers.add(name: "Host", value: "127.0.0.1:\(server.port)")
    let head = HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)
    let timeAmount = TimeAmount(timeout)
    do {
        _ = try await ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        CollectingHandler(request: head, promise: promise, timeout: timeAmount, keep: keep)
                    )
                }
            }
            .connect(host: "127.0.0.1", port: server.port)
            .get()
    } catch {
        promise.fail(error)
        throw error
    }
    return try await promise.futureResult.get()
}

/// Runs `body` against a fresh server and always shuts it down.
func withServer(_ body: (FixtureServer) async throws -> Void) async throws {
    let server = try await FixtureServer.start()
    do {
        try await body(server)
    } catch {
        try await server.shutdown()
        throw error
    }
    try await server.shutdown()
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(within timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

// MARK: - Tests

@Suite struct FixtureServerTests {
    @Test func routedJSONResponseIsServedWithStatusAndBody() async throws {
        try await withServer { server in
            server.route("/search.json", .json(#"{"numFound":0,"docs":[]}"#, status: 201))
            let result = try await fetch(server, "/search.json?q=dune")
            #expect(result.status == 201)
            #expect(result.text == #"{"numFound":0,"docs":[]}"#)
            #expect(result.header("Content-Type") == "application/json")
            #expect(result.complete)
        }
    }

    @Test func unroutedPathAnswers404NotFoundJSON() async throws {
        try await withServer { server in
            let result = try await fetch(server, "/works/OL1W.json?x=1")
            #expect(result.status == 404)
            #expect(result.text == #"{"error":"notfound","key":"/works/OL1W.json"}"#)
        }
    }

    @Test func requestsAreCountedByPathWithoutQuery() async throws {
        try await withServer { server in
            server.route("/a", .json("{}"))
            _ = try await fetch(server, "/a")
            _ = try await fetch(server, "/a?page=2")
            _ = try await fetch(server, "/b")
            #expect(server.requestCount(path: "/a") == 2)
            #expect(server.requestCount(path: "/b") == 1)
            #expect(server.requestCount(path: "/c") == 0)
            #expect(server.totalRequestCount == 3)
            #expect(server.requests.map(\.uri) == ["/a", "/a?page=2", "/b"])
            #expect(server.requests.map(\.query) == [nil, "page=2", nil])
        }
    }

    @Test func prefixRouteMatchesPathsStartingWithIt() async throws {
        try await withServer { server in
            server.route("/works/*", .json(#"{"kind":"work"}"#))
            server.route("/works/OL1W.json", .json(#"{"kind":"exact"}"#))
            let byPrefix = try await fetch(server, "/works/OL9W.json")
            let exact = try await fetch(server, "/works/OL1W.json")
            #expect(byPrefix.text == #"{"kind":"work"}"#)
            #expect(exact.text == #"{"kind":"exact"}"#)
        }
    }

    @Test func handlerRouteAnswersByQueryParameter() async throws {
        try await withServer { server in
            server.route("/search.json") { request in
                .json(#"{"q":"\#(request.queryValue("q") ?? "")"}"#)
            }
            let result = try await fetch(server, "/search.json?q=the+lord")
            #expect(result.text == #"{"q":"the lord"}"#)
        }
    }

    @Test func statusFaultAnswersWithThatStatusAndBody() async throws {
        try await withServer { server in
            server.route("/gifs/search", fault: .status(429, body: #"{"message":"API rate limit exceeded"}"#, headers: [("Retry-After", "7")]))
            let result = try await fetch(server, "/gifs/search?q=cat")
            #expect(result.status == 429)
            #expect(result.header("Retry-After") == "7")
            #expect(result.header("Content-Type") == "application/json")
            #expect(result.text == #"{"message":"API rate limit exceeded"}"#)
        }
    }

    @Test func injectedFaultServesNTimesThenTheNormalRoute() async throws {
        try await withServer { server in
            server.route("/search.json", .json(#"{"ok":true}"#))
            server.inject(.status(503, body: "busy"), path: "/search.json", times: 3)
            var statuses: [Int?] = []
            for _ in 0..<4 {
                statuses.append(try await fetch(server, "/search.json?q=x").status)
            }
            #expect(statuses == [503, 503, 503, 200])
            #expect(server.requestCount(path: "/search.json") == 4)
        }
    }

    @Test func hangKeepsTheClientWaitingWithTheConnectionOpen() async throws {
        try await withServer { server in
            server.route("/slow", fault: .hang)
            let waiting = Task { try await fetch(server, "/slow", timeout: .milliseconds(700)) }
            #expect(await eventually { server.requestCount(path: "/slow") == 1 })
            #expect(server.openConnectionCount == 1)
            let result = try await waiting.value
            #expect(result.timedOut)
            #expect(result.status == nil)
            // The client closed its end; the server notices and forgets the connection.
            #expect(await eventually { server.openConnectionCount == 0 })
        }
    }

    @Test func hugeBodySendsThePromisedNumberOfBytes() async throws {
        try await withServer { server in
            let size = 8 * 1024 * 1024
            server.route("/huge", fault: .hugeBody(bytes: size))
            let result = try await fetch(server, "/huge", timeout: .seconds(60), keep: 16)
            #expect(result.status == 200)
            #expect(result.header("Content-Length") == String(size))
            #expect(result.complete)
            #expect(result.bodyByteCount == size)
            #expect(result.text.hasPrefix(#"{"filler":""#))
        }
    }

    @Test func truncatedClosesBeforeTheBodyPromisedEnds() async throws {
        try await withServer { server in
            server.route("/t", fault: .truncated)
            let result = try await fetch(server, "/t")
            let promised = try #require(result.header("Content-Length").flatMap { Int($0) })
            #expect(result.status == 200)
            #expect(!result.complete)
            #expect(result.closedEarly || result.error != nil)
            #expect(result.bodyByteCount > 0)
            #expect(result.bodyByteCount < promised)
        }
    }

    @Test func redirectLoopAnswers302ToItself() async throws {
        try await withServer { server in
            server.route("/loop", fault: .redirectLoop)
            let result = try await fetch(server, "/loop?q=1")
            #expect(result.status == 302)
            #expect(result.header("Location") == server.url("/loop?q=1").absoluteString)
            let again = try await fetch(server, "/loop?q=1")
            #expect(again.status == 302)
            #expect(server.requestCount(path: "/loop") == 2)
        }
    }

    @Test func shutdownWithAHungConnectionReturnsPromptly() async throws {
        let server = try await FixtureServer.start()
        server.route("/hang", fault: .hang)
        let waiting = Task { try await fetch(server, "/hang", timeout: .seconds(30)) }
        #expect(await eventually { server.requestCount(path: "/hang") == 1 })
        let clock = ContinuousClock()
        let elapsed = try await clock.measure { try await server.shutdown() }
        #expect(elapsed < .seconds(2))
        let result = try await waiting.value
        #expect(!result.timedOut)
        #expect(result.closedEarly)
        #expect(server.openConnectionCount == 0)
        try await server.shutdown()  // a second shutdown is harmless
    }

    @Test func delayServesTheNormalResponseAfterWaiting() async throws {
        try await withServer { server in
            server.route("/d", .json(#"{"late":true}"#))
            server.inject(.delay(.milliseconds(300)), path: "/d", times: 1)
            let clock = ContinuousClock()
            var result = ClientResult()
            let elapsed = try await clock.measure { result = try await fetch(server, "/d") }
            #expect(elapsed >= .milliseconds(300))
            #expect(result.status == 200)
            #expect(result.text == #"{"late":true}"#)
        }
    }

    @Test func delayRouteDelaysTheResponseRegisteredBeforeIt() async throws {
        try await withServer { server in
            server.route("/d", .json(#"{"late":true}"#))
            server.route("/d", fault: .delay(.milliseconds(50)))
            let result = try await fetch(server, "/d")
            #expect(result.text == #"{"late":true}"#)
        }
    }

    @Test func slowDripSendsAValidBodyByteByByte() async throws {
        try await withServer { server in
            server.route("/drip", fault: .slowDrip(interval: .milliseconds(2)))
            let result = try await fetch(server, "/drip")
            #expect(result.complete)
            #expect(try JSONSerialization.jsonObject(with: Data(result.body)) is [String: Any])
        }
    }

    @Test func malformedJSONIsNotValidJSON() async throws {
        try await withServer { server in
            server.route("/m", fault: .malformedJSON)
            let result = try await fetch(server, "/m")
            #expect(result.status == 200)
            #expect(result.header("Content-Type") == "application/json")
            #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(result.body)) }
        }
    }

    @Test func htmlFaultServesAnHTMLPage() async throws {
        try await withServer { server in
            server.route("/h", fault: .html)
            let result = try await fetch(server, "/h")
            #expect(result.status == 200)
            #expect(result.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(result.text.contains("<html>"))
        }
    }

    @Test func emptyFaultServesAnEmptyBody() async throws {
        try await withServer { server in
            server.route("/e", fault: .empty)
            let result = try await fetch(server, "/e")
            #expect(result.status == 200)
            #expect(result.complete)
            #expect(result.bodyByteCount == 0)
        }
    }

    @Test func closeConnectionClosesWithoutAnswering() async throws {
        try await withServer { server in
            server.route("/c", fault: .closeConnection)
            let result = try await fetch(server, "/c")
            #expect(result.status == nil)
            #expect(result.closedEarly)
        }
    }

    @Test func removeAllRoutesBringsBack404() async throws {
        try await withServer { server in
            server.route("/r", .json("{}"))
            server.removeAllRoutes()
            let result = try await fetch(server, "/r")
            #expect(result.status == 404)
        }
    }

    @Test func fileResponseServesTheFileContents() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("fixture-\(UUID().uuidString).json").path
        try Data(#"{"from":"file"}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withServer { server in
            server.route("/f", try .file(path))
            let result = try await fetch(server, "/f")
            #expect(result.text == #"{"from":"file"}"#)
        }
    }

    @Test func urlAppendsPathAndQueryToBaseURL() async throws {
        try await withServer { server in
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
            #expect(server.url("/search.json?q=a").absoluteString == "http://127.0.0.1:\(server.port)/search.json?q=a")
        }
    }

    @Test func sharedFixturesFindsFilesOrAnswersNil() throws {
        #expect(SharedFixtures.url("no-such-provider", "no-such-file.json") == nil)
        if let directory = SharedFixtures.directory {
            #expect(directory.lastPathComponent == "fixtures")
        }
    }
}
