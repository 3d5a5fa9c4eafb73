#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Hummingbird
import SeekKit
import SeekCore
import SeekWeb
import Testing

/// A plain TCP connection to a live server, written and read byte by byte as a slow client would:
/// nothing in it completes a request head for the test.
final class RawConnection: @unchecked Sendable {
    // Unchecked: one test task uses a connection at a time.
    private let descriptor: Int32
    private(set) var received = ""

    /// Connects to `url` (`http://127.0.0.1:PORT`).
    init(_ url: String) throws {
        guard let port = url.split(separator: ":").last.flatMap({ UInt16($0) }) else {
            throw SeekError(.invalidInput, detail: "no port in \(url)")
        }
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SeekError(.network, detail: "socket: errno \(errno)") }
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

    /// Writes `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        #if canImport(Glibc)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        #else
        return bytes.withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress, $0.count, 0) } == bytes.count
        #endif
    }

    /// Reads what is there; true when the server has closed the connection (EOF or a reset).
    private func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += String(decoding: buffer[..<count], as: UTF8.self)
            } else if count == 0 {
                return true
            } else {
                return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            }
        }
    }

    /// Waits up to `limit` for the server to close the connection; how long that took, or nil.
    func closedWithin(_ limit: Duration) async throws -> Duration? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            if drain() { return clock.now - start }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Waits up to `limit` for a whole response (head and `Content-Length` body); its status line, or nil.
    func response(within limit: Duration) async throws -> String? {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < limit {
            let closed = drain()
            if let end = received.range(of: "\r\n\r\n") {
                let head = received[..<end.lowerBound]
                let length = head.split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received[end.upperBound...].utf8.count >= length {
                    let status = String(head[..<(head.range(of: "\r\n")?.lowerBound ?? head.endIndex)])
                    received = String(received[end.upperBound...].dropFirst(length))
                    return status
                }
            }
            if closed { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// A live server with the given timeouts, run until `body` returns.
func withTimedServer<T: Sendable>(
    header: Duration, idle: Duration, _ body: @Sendable (String) async throws -> T
) async throws -> T {
    let harness = try await ServerHarness.start()
    var server = harness.server
    server.connectionTimeouts = ConnectionTimeouts(header: header, idle: idle)
    let (addresses, sink) = AsyncStream.makeStream(of: String.self)
    let application = server.application { sink.yield($0) }
    let task = Task { try await application.run() }
    var iterator = addresses.makeAsyncIterator()
    guard let url = await iterator.next() else { throw SeekError(.network, detail: "the server did not start") }
    do {
        let result = try await body(url)
        task.cancel()
        _ = await task.result
        try await harness.stop()
        return result
    } catch {
        task.cancel()
        _ = await task.result
        try await harness.stop()
        throw error
    }
}

@Suite("slow and idle clients are closed", .serialized)
struct SlowClientTests {
    static let healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test("a connection that sends part of a request head and stalls is closed after the header timeout")
    func stalledHeadIsClosed() async throws {
        let (closedAfter, received) = try await withTimedServer(header: .milliseconds(500), idle: .seconds(30)) { url in
            let connection = try RawConnection(url)
            connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            return (try await connection.closedWithin(.seconds(10)), connection.received)
        }
        let after = try #require(closedAfter, "still open after 10 s")
        #expect(after >= .milliseconds(400))
        #expect(after < .seconds(3))
        #expect(received.isEmpty, "answered: \(received)")
    }

    @Test("a connection that sends nothing is closed after the header timeout")
    func silentConnectionIsClosed() async throws {
        let closedAfter = try await withTimedServer(header: .milliseconds(400), idle: .seconds(30)) { url in
            try await RawConnection(url).closedWithin(.seconds(10))
        }
        let after = try #require(closedAfter, "still open after 10 s")
        #expect(after < .seconds(3))
    }

    @Test("a header line every 150 ms does not keep a connection past the header timeout")
    func dribbledHeadIsClosed() async throws {
        let closedAfter = try await withTimedServer(header: .milliseconds(600), idle: .seconds(30)) { url -> Duration? in
            let connection = try RawConnection(url)
            let clock = ContinuousClock()
            let start = clock.now
            connection.send("GET /healthz HTTP/1.1\r\n")
            for line in 0..<40 {
                if try await connection.closedWithin(.milliseconds(150)) != nil { return clock.now - start }
                guard connection.send("X-Slow-\(line): 1\r\n") else { return clock.now - start }
            }
            return nil
        }
        let after = try #require(closedAfter, "still open after 6 s of header lines")
        #expect(after >= .milliseconds(450))
        #expect(after < .seconds(3))
    }

    @Test("a slow client that finishes its head within the header timeout is served")
    func slowButTimelyHeadIsServed() async throws {
        let status = try await withTimedServer(header: .seconds(2), idle: .seconds(30)) { url in
            let connection = try RawConnection(url)
            for part in ["GET /healthz HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", "Accept: */*\r\n", "X-Slow: 1\r\n", "\r\n"] {
                connection.send(part)
                try await Task.sleep(for: .milliseconds(150))
            }
            return try await connection.response(within: .seconds(10))
        }
        #expect(status == "HTTP/1.1 200 OK")
    }

    @Test("a connection idle after a response is closed after the idle timeout")
    func idleConnectionIsClosed() async throws {
        let (status, closedAfter) = try await withTimedServer(header: .seconds(30), idle: .milliseconds(500)) { url in
            let connection = try RawConnection(url)
            connection.send(Self.healthz)
            let status = try await connection.response(within: .seconds(10))
            return (status, try await connection.closedWithin(.seconds(10)))
        }
        #expect(status == "HTTP/1.1 200 OK")
        let after = try #require(closedAfter, "still open 10 s after its response")
        #expect(after >= .milliseconds(350))
        #expect(after < .seconds(3))
    }

    @Test("between requests the idle timeout applies, not the header timeout: a keep-alive pause longer than it is served")
    func keepAlivePauseIsServed() async throws {
        let statuses = try await withTimedServer(header: .milliseconds(300), idle: .seconds(5)) { url in
            let connection = try RawConnection(url)
            connection.send(Self.healthz)
            let first = try await connection.response(within: .seconds(10))
            try await Task.sleep(for: .milliseconds(900))
            connection.send(Self.healthz)
            return [first, try await connection.response(within: .seconds(10))]
        }
        #expect(statuses == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"])
    }

    @Test("a next request's head that stalls is closed after the header timeout, not the idle one")
    func stalledNextHeadIsClosed() async throws {
        let (status, closedAfter) = try await withTimedServer(header: .milliseconds(500), idle: .seconds(20)) { url in
            let connection = try RawConnection(url)
            connection.send(Self.healthz)
            let status = try await connection.response(within: .seconds(10))
            try await Task.sleep(for: .milliseconds(200))
            connection.send("GET /healthz HTTP/1.1\r\n")
            return (status, try await connection.closedWithin(.seconds(10)))
        }
        #expect(status == "HTTP/1.1 200 OK")
        let after = try #require(closedAfter, "still open 10 s into a stalled head")
        #expect(after >= .milliseconds(350))
        #expect(after < .seconds(3))
    }

    @Test("SEEK_HEADER_TIMEOUT and SEEK_IDLE_TIMEOUT: seconds above 0 and at most a day, fractions allowed, 10 and 60 unset")
    func timeoutSettings() throws {
        #expect(try ConnectionTimeouts(settings: Settings()) == ConnectionTimeouts(header: .seconds(10), idle: .seconds(60)))
        let set = try ConnectionTimeouts(settings: Settings(environment: ["SEEK_HEADER_TIMEOUT": "0.5", "SEEK_IDLE_TIMEOUT": " 86400 "]))
        #expect(set == ConnectionTimeouts(header: .milliseconds(500), idle: .seconds(86_400)))
        #expect(try ConnectionTimeouts(settings: Settings(environment: ["SEEK_HEADER_TIMEOUT": ""])).header == .seconds(10))
    }

    @Test(
        "a bad SEEK_HEADER_TIMEOUT or SEEK_IDLE_TIMEOUT is a configuration error naming the variable",
        arguments: ["SEEK_HEADER_TIMEOUT", "SEEK_IDLE_TIMEOUT"],
        ["abc", "0", "-0", "-1", "-0.5", "nan", "NaN", "inf", "-inf", "infinity", "1e300", "86400.5", "1e-400", " ", "10s", "1,5", "0x"])
    func badTimeoutSettings(variable: String, value: String) throws {
        let error = try #require(throws: SeekError.self) {
            try ConnectionTimeouts(settings: Settings(environment: [variable: value]))
        }
        #expect(error.kind == .configuration)
        #expect(error.description.contains(variable))
    }

    @Test("run refuses a bad SEEK_HEADER_TIMEOUT before it listens")
    func runRefusesBadTimeout() async throws {
        let harness = try await ServerHarness.start(environment: ["SEEK_HEADER_TIMEOUT": "forever"])
        let server = SeekServer(session: harness.session, port: 0, logger: harness.server.logger)
        let outcome = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask {
                do { try await server.run() } catch { return .failure(error) }
                return .success(())
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        try await harness.stop()
        let result = try #require(outcome, "run still serving after 10 s")
        guard case .failure(let error) = result else {
            Issue.record("run returned without an error")
            return
        }
        let seekError = try #require(error as? SeekError)
        #expect(seekError.kind == .configuration)
        #expect(seekError.description.contains("SEEK_HEADER_TIMEOUT"))
    }
}
