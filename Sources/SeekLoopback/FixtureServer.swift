import Foundation
import SeekCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// A misbehaviour the fixture server can act out instead of (or before) a route's normal response.
public enum FixtureFault: Sendable {
    /// Answer with any status and body. Without a `Content-Type` header, one is chosen from the body
    /// (JSON when it starts with `{` or `[`, plain text otherwise).
    case status(Int, body: String = "", headers: [(String, String)] = [])
    /// Wait this long, then serve the route's normal response.
    case delay(Duration)
    /// Accept the request and never answer (until the client gives up or the server shuts down).
    case hang
    /// 200, `Content-Type: application/json`, a body that is not valid JSON.
    case malformedJSON
    /// 200, `Content-Length` promises more than is sent; the connection then closes.
    case truncated
    /// 200 with a `text/html` error page (what a captive portal or a proxy answers).
    case html
    /// 200, streams `bytes` bytes of JSON-looking filler in 64 KiB chunks, one chunk in flight at a time.
    case hugeBody(bytes: Int)
    /// 200, a valid-looking JSON body sent one byte every `interval`.
    case slowDrip(interval: Duration)
    /// 200 with an empty body.
    case empty
    /// 302 whose `Location` is the request's own URL, forever.
    case redirectLoop
    /// Close the connection without answering.
    case closeConnection
}

/// A canned HTTP response.
public struct FixtureResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(
        status: Int = 200,
        headers: [(String, String)] = [("Content-Type", "application/json")],
        body: [UInt8]
    ) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response with the given text as its body.
    public static func json(_ text: String, status: Int = 200) -> FixtureResponse {
        FixtureResponse(status: status, body: Array(text.utf8))
    }

    /// A 200 response whose body is the contents of the file at `path`.
    public static func file(_ path: String, contentType: String = "application/json") throws -> FixtureResponse {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return FixtureResponse(headers: [("Content-Type", contentType)], body: Array(data))
    }
}

/// One request as the fixture server saw it.
public struct RecordedRequest: Sendable {
    public let method: String
    /// The path without the query.
    public let path: String
    /// The part after `?`, if there was one (not percent-decoded).
    public let query: String?
    public let headers: [(String, String)]
    /// The request target exactly as sent (path and query).
    public let uri: String

    public init(method: String, uri: String, headers: [(String, String)]) {
        self.method = method
        self.uri = uri
        self.headers = headers
        if let mark = uri.firstIndex(of: "?") {
            self.path = String(uri[..<mark])
            self.query = String(uri[uri.index(after: mark)...])
        } else {
            self.path = uri
            self.query = nil
        }
    }

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }

    /// The first value of a query parameter (percent-decoded, `+` read as a space).
    public func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        for pair in query.fields(separatedBy: "&") {
            let parts = pair.fields(separatedBy: "=", maxSplits: 1, keepingEmpty: true)
            guard let rawKey = parts.first else { continue }
            let key = Self.decode(rawKey)
            if key == name {
                return parts.count > 1 ? Self.decode(parts[1]) : ""
            }
        }
        return nil
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// An HTTP server on 127.0.0.1 that serves canned responses and faults, and records what it was asked.
///
/// Every instance has its own port, routes and counters, so tests running in parallel do not interfere.
public final class FixtureServer: Sendable {
    /// The port the server listens on (chosen by the OS).
    public let port: Int
    /// `http://127.0.0.1:PORT`
    public let baseURL: URL

    private let shared: FixtureServerShared
    private let serverChannel: any Channel

    private init(port: Int, baseURL: URL, shared: FixtureServerShared, serverChannel: any Channel) {
        self.port = port
        self.baseURL = baseURL
        self.shared = shared
        self.serverChannel = serverChannel
    }

    deinit {
        // Not shut down explicitly: close what is still open so nothing outlives the server.
        // `close(promise:)` does not block; it runs on the channels' event loops.
        for channel in shared.beginShutdown() {
            channel.close(promise: nil)
        }
        serverChannel.close(promise: nil)
    }

    /// Starts on 127.0.0.1 with an OS-chosen port.
    public static func start() async throws -> FixtureServer {
        let shared = FixtureServerShared()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                guard shared.register(channel) else {
                    // The server is shutting down: refuse the connection.
                    return channel.close()
                }
                channel.closeFuture.whenComplete { _ in
                    shared.unregister(channel)
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FixtureServerHandler(shared: shared))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port,
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            try? await channel.close()
            throw FixtureServerError.noLocalAddress
        }
        return FixtureServer(port: port, baseURL: baseURL, shared: shared, serverChannel: channel)
    }

    /// `baseURL` + `path`; the path may include a query (`/search.json?q=dune`).
    public func url(_ path: String) -> URL {
        let rooted = path.hasPrefix("/") ? path : "/" + path
        let text = baseURL.absoluteString + rooted
        if let url = URL(string: text) {
            return url
        }
        // Characters a URL may not hold (spaces, say): percent-encode them and try again.
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "?&=/")
        if let encoded = rooted.addingPercentEncoding(withAllowedCharacters: allowed),
            let url = URL(string: baseURL.absoluteString + encoded)
        {
            return url
        }
        return baseURL
    }

    /// Serves `response` for `path`.
    ///
    /// Routes match the request path (without query) exactly; a pattern ending in `*` matches any path
    /// starting with the text before the `*` (the longest such prefix wins; an exact route beats any
    /// prefix). A later registration replaces an earlier one for the same pattern.
    public func route(_ path: String, _ response: FixtureResponse) {
        shared.setRoute(pattern: path, base: .response(response))
    }

    /// Acts out `fault` for every request to `path`.
    ///
    /// This replaces the pattern's response with the fault, except that `.delay` delays the response
    /// registered before it for the same pattern (404 if there was none).
    public func route(_ path: String, fault: FixtureFault) {
        shared.setRoute(pattern: path, fault: fault)
    }

    /// A response computed per request (e.g. to answer by query parameter). The handler runs on an
    /// event loop: keep it quick and never block in it.
    public func route(_ path: String, handler: @escaping @Sendable (RecordedRequest) -> FixtureResponse) {
        shared.setRoute(pattern: path, base: .handler(handler))
    }

    /// Applies `fault` to the next `times` requests of `path` (matched exactly, without query); then
    /// the route serves again. Injections queue up: injecting twice applies the first ones first.
    public func inject(_ fault: FixtureFault, path: String, times: Int) {
        shared.inject(fault, path: RecordedRequest(method: "GET", uri: path, headers: []).path, times: times)
    }

    /// Forgets every route and every injected fault. Recorded requests and counts are kept.
    public func removeAllRoutes() {
        shared.removeAllRoutes()
    }

    /// How many requests arrived for `path` (compared without query), faulted ones included.
    public func requestCount(path: String) -> Int {
        shared.requestCount(path: RecordedRequest(method: "GET", uri: path, headers: []).path)
    }

    /// How many requests arrived in all.
    public var totalRequestCount: Int {
        shared.totalRequestCount
    }

    /// Every request so far, oldest first.
    public var requests: [RecordedRequest] {
        shared.requests
    }

    /// Number of currently open client connections (so tests can check that a client closed a hung
    /// connection). A connection counts until the server has seen it close.
    public var openConnectionCount: Int {
        shared.openConnectionCount
    }

    /// Stops listening and closes every open connection, hung ones included. Calling it again does nothing.
    public func shutdown() async throws {
        let connections = shared.beginShutdown()
        if connections.isEmpty, !serverChannel.isActive {
            return
        }
        try? await serverChannel.close()
        for connection in connections {
            connection.close(promise: nil)
        }
        for connection in connections {
            try? await connection.closeFuture.get()
        }
    }
}

/// Why the fixture server could not start.
public enum FixtureServerError: Error, Sendable {
    /// The listening socket reported no local port.
    case noLocalAddress
}
