#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Hummingbird
import NIOCore
import SeekKit
import SeekCore
@testable import SeekWeb
import Testing

/// A live server with `timeouts`, run until `body` returns.
func withDeadlineServer<T: Sendable>(
    _ timeouts: ConnectionTimeouts, books: Bool = false, _ body: @Sendable (String) async throws -> T
) async throws -> T {
    try await withDeadlineServer(timeouts, books: books) { url, _ in try await body(url) }
}

/// A live server with `timeouts`, run until `body` returns; `body` gets its address and its connections.
func withDeadlineServer<T: Sendable>(
    _ timeouts: ConnectionTimeouts, books: Bool = false, _ body: @Sendable (String, ConnectionRegistry) async throws -> T
) async throws -> T {
    let harness = try await ServerHarness.start()
    if books { harness.serveBooks() }
    var server = harness.server
    server.connectionTimeouts = timeouts
    let (addresses, sink) = AsyncStream.makeStream(of: String.self)
    let application = server.application { sink.yield($0) }
    let task = Task { try await server.onItsLoops { try await application.run() } }
    var iterator = addresses.makeAsyncIterator()
    guard let url = await iterator.next() else { throw SeekError(.network, detail: "the server did not start") }
    let result: Result<T, any Error>
    do { result = .success(try await body(url, server.connections)) } catch { result = .failure(error) }
    task.cancel()
    _ = await task.result
    try await harness.stop()
    return try result.get()
}

/// A TCP client with a small receive buffer that reads as slowly as it is told to, and tells a
/// close by the server (EOF, or a reset seen as a socket error) from a pause.
final class SlowReader: @unchecked Sendable {
    // Unchecked: one test task uses a reader at a time.
    private let descriptor: Int32
    private(set) var received: [UInt8] = []

    init(_ url: String, receiveBuffer: Int32? = nil) throws {
        guard let port = url.split(separator: ":").last.flatMap({ UInt16($0) }) else {
            throw SeekError(.invalidInput, detail: "no port in \(url)")
        }
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SeekError(.network, detail: "socket: errno \(errno)") }
        if var size = receiveBuffer {
            // Before connecting, so the window the server is offered is small from the start.
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw SeekError(.network, detail: "connect: errno \(errno)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(descriptor) }

    var text: String { String(decoding: received, as: UTF8.self) }

    /// Writes `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            #if canImport(Glibc)
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
            let count = bytes[sent...].withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress, $0.count, 0) }
            #endif
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Whether the server reset the connection (a pending socket error), without reading.
    var wasReset: Bool {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error != 0
    }

    /// Reads at most `limit` bytes of what is there; true when the server closed or reset the connection.
    func read(upTo limit: Int = 1 << 20) -> Bool {
        var buffer = [UInt8](repeating: 0, count: min(limit, 65_536))
        var left = limit
        while left > 0 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, min($0.count, left), 0) }
            if count > 0 {
                received += buffer[..<count]
                left -= count
            } else if count == 0 {
                return true
            } else {
                return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            }
        }
        return wasReset
    }

    /// Reads everything until the server closes the connection, up to `limit`; how long that took, or nil.
    func readToClose(within limit: Duration) async throws -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            if read() { return clock.now - start }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Reads until `text` has come (true), the server closes, or `limit` passes.
    func read(until text: String, within limit: Duration) async throws -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            let closed = read()
            if self.text.contains(text) { return true }
            if closed { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// The number of whole HTTP/1.1 responses with a `Content-Length` received so far.
    var completeResponses: Int {
        var count = 0
        var rest = Substring(text)
        while let end = rest.range(of: "\r\n\r\n") {
            let head = rest[..<end.lowerBound].lowercased()
            guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                  let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            else { break }
            let body = rest[end.upperBound...]
            guard body.utf8.count >= length else { break }
            rest = body.dropFirst(length)
            count += 1
        }
        return count
    }
}

@Suite("every connection has a deadline: bodies, slow readers, HTTP/1.0", .serialized)
struct ConnectionDeadlineTests {
    static let healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    static func timeouts(body: Duration = .seconds(10), send: Duration = .seconds(30)) -> ConnectionTimeouts {
        ConnectionTimeouts(header: .seconds(10), idle: .seconds(30), body: body, send: send)
    }

    // MARK: Bodies

    @Test("a body that trickles a byte every 200 ms is closed once the body timeout passes")
    func tricklingBodyIsClosed() async throws {
        let closedAfter = try await withDeadlineServer(Self.timeouts(body: .seconds(1))) { url -> Duration? in
            let connection = try RawConnection(url)
            let clock = ContinuousClock()
            let start = clock.now
            connection.send("POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n")
            for _ in 0..<40 {
                if try await connection.closedWithin(.milliseconds(200)) != nil { return clock.now - start }
                guard connection.send("x") else { return clock.now - start }
            }
            return nil
        }
        let after = try #require(closedAfter, "still open after 8 s of a trickling body")
        #expect(after >= .milliseconds(800))
        #expect(after < .seconds(3))
    }

    @Test("a body that stops after its head is closed once the body timeout passes")
    func stalledBodyIsClosed() async throws {
        let closedAfter = try await withDeadlineServer(Self.timeouts(body: .milliseconds(600))) { url in
            let connection = try RawConnection(url)
            connection.send("PUT /api/v1/favorites/openlibrary:OL1W HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n")
            return try await connection.closedWithin(.seconds(10))
        }
        let after = try #require(closedAfter, "still open 10 s into a stalled body")
        #expect(after >= .milliseconds(450))
        #expect(after < .seconds(3))
    }

    @Test("a body sent at 1,250 bytes a second outlasts the body timeout (500 bytes earn a second) and the connection is kept")
    func bodyAtTheMinimumRateIsServed() async throws {
        let (closedEarly, status) = try await withDeadlineServer(Self.timeouts(body: .seconds(1))) { url in
            let connection = try RawConnection(url)
            connection.send("POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3000\r\n\r\n")
            var closedEarly = false
            for _ in 0..<6 {
                if try await connection.closedWithin(.milliseconds(400)) != nil { closedEarly = true }
                if !connection.send(String(repeating: "y", count: 500)) { closedEarly = true }
            }
            // The whole body is in, 2.4 s after its head: the same connection answers a next request.
            _ = try await connection.response(within: .seconds(5))
            connection.send(Self.healthz)
            return (closedEarly, try await connection.response(within: .seconds(5)))
        }
        #expect(!closedEarly)
        #expect(status == "HTTP/1.1 200 OK")
    }

    @Test("ConnectionTimeouts.bodyDeadline: the body timeout, a second more per 500 bytes, at most six times the timeout")
    func bodyDeadlineArithmetic() {
        let timeouts = Self.timeouts(body: .seconds(10))
        #expect(timeouts.bodyAllowance(bytes: 0) == .seconds(10))
        #expect(timeouts.bodyAllowance(bytes: 499) == .seconds(10))
        #expect(timeouts.bodyAllowance(bytes: 5_000) == .seconds(20))
        #expect(timeouts.bodyAllowance(bytes: 10_000_000) == .seconds(60))
        #expect(Self.timeouts(body: .milliseconds(500)).bodyAllowance(bytes: 1_000) == .milliseconds(2500))
        #expect(Self.timeouts(body: .milliseconds(500)).bodyAllowance(bytes: 100_000) == .seconds(3))
    }

    // MARK: Slow readers

    @Test("a client that reads a byte a second is reset once the send timeout passes")
    func byteASecondReaderIsReset() async throws {
        let closedAfter = try await withDeadlineServer(Self.timeouts(send: .seconds(1))) { url -> Duration? in
            let reader = try SlowReader(url, receiveBuffer: 2048)
            reader.send(String(repeating: "GET /openapi.yaml HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: 100))
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<15 {
                if reader.wasReset || reader.read(upTo: 1) { return clock.now - start }
                try await Task.sleep(for: .seconds(1))
            }
            return nil
        }
        let after = try #require(closedAfter, "still open after 15 s of reading a byte a second")
        #expect(after >= .milliseconds(800))
        #expect(after < .seconds(8))
    }

    @Test("a client that reads what it is sent keeps its connection, however small the send timeout: 60 pipelined documents")
    func keepingUpReaderIsServed() async throws {
        let (count, closed) = try await withDeadlineServer(Self.timeouts(send: .milliseconds(300))) { url in
            let reader = try SlowReader(url)
            reader.send(String(repeating: "GET /openapi.yaml HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", count: 60))
            var closed = false
            let clock = ContinuousClock()
            let start = clock.now
            while reader.completeResponses < 60, clock.now - start < .seconds(20), !closed {
                closed = reader.read()
                try await Task.sleep(for: .milliseconds(2))
            }
            return (reader.completeResponses, closed)
        }
        #expect(count == 60)
        #expect(!closed)
    }

    @Test("a stream read as it comes ends whole with a send timeout of 200 ms")
    func streamForAKeepingUpReader() async throws {
        let (ended, text) = try await withDeadlineServer(Self.timeouts(send: .milliseconds(200)), books: true) { url in
            let reader = try SlowReader(url)
            reader.send("GET /api/v1/search/stream?q=harbor HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return (try await reader.read(until: "\r\n0\r\n\r\n", within: .seconds(20)), reader.text)
        }
        #expect(ended, "the stream did not end: \(text.prefix(300))")
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(text.contains("\"summary\"") || text.contains("summary"))
    }

    // MARK: Descriptors running short

    @Test("shedding closes the connections that have waited longest on their clients first, never one that just came or one being answered")
    func sheddingTakesTheLongestWaiting() async throws {
        let outcome = try await withDeadlineServer(Self.timeouts()) { url, connections -> [String: Bool] in
            let oldest = try RawConnection(url)
            oldest.send("GET /healthz HTTP/1.1\r\n")
            try await Task.sleep(for: .milliseconds(400))
            let older = try RawConnection(url)
            older.send("POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n")
            try await Task.sleep(for: .milliseconds(400))
            let kept = try RawConnection(url)
            var closed: [String: Bool] = [:]
            try await Task.sleep(for: .milliseconds(100))
            let count = connections.count
            // One at a time: the oldest first.
            connections.shed(atMost: 1)
            closed["oldest after one"] = try await oldest.closedWithin(.seconds(2)) != nil
            closed["older after one"] = try await older.closedWithin(.milliseconds(300)) != nil
            connections.shed(atMost: 1)
            closed["older after two"] = try await older.closedWithin(.seconds(2)) != nil
            // A keep-alive connection just answered, and one that just came, have waited too little.
            kept.send(Self.healthz)
            _ = try await kept.response(within: .seconds(5))
            let fresh = try RawConnection(url)
            try await Task.sleep(for: .milliseconds(50))
            connections.shed(atMost: 10)
            closed["kept"] = try await kept.closedWithin(.milliseconds(300)) != nil
            closed["fresh"] = try await fresh.closedWithin(.milliseconds(300)) != nil
            closed["three open"] = count == 3
            return closed
        }
        #expect(outcome == [
            "oldest after one": true, "older after one": false, "older after two": true, "kept": false, "fresh": false, "three open": true,
        ])
    }

    // MARK: HTTP/1.0 and Connection: close

    @Test("HTTP/1.0 without keep-alive: answered in HTTP/1.0 with Connection: close, and closed within a second")
    func http10IsClosed() async throws {
        let (closedAfter, text) = try await withDeadlineServer(Self.timeouts()) { url in
            let reader = try SlowReader(url)
            reader.send("GET /healthz HTTP/1.0\r\n\r\n")
            return (try await reader.readToClose(within: .seconds(5)), reader.text)
        }
        let after = try #require(closedAfter, "HTTP/1.0 connection still open 5 s after its request: \(text.prefix(200))")
        #expect(after < .seconds(1))
        #expect(text.hasPrefix("HTTP/1.0 200 OK\r\n"))
        #expect(text.lowercased().contains("connection: close\r\n"))
        #expect(text.contains("\"status\": \"ok\""))
    }

    @Test("HTTP/1.0 without a length (the NDJSON stream): no chunks, the body ends with the connection")
    func http10StreamIsNotChunked() async throws {
        let (closedAfter, text) = try await withDeadlineServer(Self.timeouts(), books: true) { url in
            let reader = try SlowReader(url)
            reader.send("GET /api/v1/search/stream?q=harbor HTTP/1.0\r\n\r\n")
            return (try await reader.readToClose(within: .seconds(20)), reader.text)
        }
        #expect(closedAfter != nil, "still open: \(text.prefix(200))")
        #expect(text.hasPrefix("HTTP/1.0 200 OK\r\n"))
        #expect(!text.lowercased().contains("transfer-encoding"))
        let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        #expect(body.hasPrefix("{"), "body: \(body.prefix(100))")
    }

    @Test("HTTP/1.0 with Connection: keep-alive keeps its connection for a next request")
    func http10KeepAliveIsKept() async throws {
        let (first, second, text) = try await withDeadlineServer(Self.timeouts()) { url in
            let connection = try RawConnection(url)
            connection.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try await connection.response(within: .seconds(5))
            let head = connection.received
            connection.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            return (first, try await connection.response(within: .seconds(5)), head)
        }
        #expect(first == "HTTP/1.0 200 OK")
        #expect(second == "HTTP/1.0 200 OK", "after: \(text.prefix(200))")
    }

    @Test("HTTP/1.1 with Connection: close (any case) is answered with Connection: close and closed within a second")
    func http11ConnectionCloseIsClosed() async throws {
        let (closedAfter, text) = try await withDeadlineServer(Self.timeouts()) { url in
            let reader = try SlowReader(url)
            reader.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Close\r\n\r\n")
            return (try await reader.readToClose(within: .seconds(5)), reader.text)
        }
        let after = try #require(closedAfter, "still open 5 s after its request")
        #expect(after < .seconds(1))
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.lowercased().contains("connection: close\r\n"))
    }

    @Test("HTTP/1.1 without Connection: close keeps its connection")
    func http11IsKept() async throws {
        let closed = try await withDeadlineServer(Self.timeouts()) { url in
            let connection = try RawConnection(url)
            connection.send(Self.healthz)
            _ = try await connection.response(within: .seconds(5))
            return try await connection.closedWithin(.milliseconds(700))
        }
        #expect(closed == nil)
    }

    // MARK: Settings

    @Test("SEEK_BODY_TIMEOUT and SEEK_SEND_TIMEOUT: 10 and 30 seconds unset, fractions allowed")
    func deadlineSettings() throws {
        let defaults = try ConnectionTimeouts(settings: Settings())
        #expect(defaults.body == .seconds(10))
        #expect(defaults.send == .seconds(30))
        let set = try ConnectionTimeouts(settings: Settings(environment: ["SEEK_BODY_TIMEOUT": "2.5", "SEEK_SEND_TIMEOUT": " 120 "]))
        #expect(set.body == .milliseconds(2500))
        #expect(set.send == .seconds(120))
    }

    @Test(
        "a bad SEEK_BODY_TIMEOUT or SEEK_SEND_TIMEOUT is a configuration error naming the variable",
        arguments: ["SEEK_BODY_TIMEOUT", "SEEK_SEND_TIMEOUT"], ["abc", "0", "-1", "nan", "inf", "86401", "10s"])
    func badDeadlineSettings(variable: String, value: String) throws {
        let error = try #require(throws: SeekError.self) {
            try ConnectionTimeouts(settings: Settings(environment: [variable: value]))
        }
        #expect(error.kind == .configuration)
        #expect(error.description.contains(variable))
    }
}
