import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One outgoing HTTP request.
public struct HTTPRequest: Sendable {
    public var url: URL
    public var method: String
    public var headers: [(String, String)]
    /// The whole exchange, body included, must finish within this time.
    public var timeout: Duration
    /// A body larger than this is refused without being held in memory.
    public var maxBodyBytes: Int

    public init(
        url: URL, method: String = "GET", headers: [(String, String)] = [],
        timeout: Duration = .seconds(30), maxBodyBytes: Int = HTTPRequest.defaultMaxBodyBytes
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// 16 MiB.
    public static let defaultMaxBodyBytes = 16 * 1024 * 1024
}

/// A received HTTP response, any status.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names lowercased; repeated headers joined with ", ".
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// `Retry-After` in seconds from now: delta-seconds or an HTTP date.
    public func retryAfter(now: Date = Date()) -> Double? {
        guard let value = header("retry-after")?.trimmed() else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// A short, printable, secret-free start of the body, for error messages.
    public func snippet(redacting secrets: [String] = [], maxLength: Int = 120) -> String {
        let text = String(decoding: body.prefix(maxLength * 4), as: UTF8.self)
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmed()
        let redacted = Redaction.redact(oneLine, secrets: secrets)
        return redacted.count > maxLength ? String(redacted.prefix(maxLength)) + "…" : redacted
    }
}

/// The role that moves bytes over HTTP. The default is `AsyncHTTPTransport`.
public protocol HTTPTransport: Sendable {
    /// Sends the request and returns the response, whatever its status.
    /// Throws `SeekError` for timeouts, oversize bodies, network and redirect failures.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// `HTTPTransport` on AsyncHTTPClient: one shared client, streamed bodies with a size cap,
/// real timeouts and cancellation, redirects followed up to a limit.
public final class AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient
    public let userAgent: String

    public init(userAgent: String = "seek/\(SeekVersion.current)", maxRedirects: Int = 5, connectTimeout: Duration = .seconds(10)) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: maxRedirects, allowCycles: false),
            timeout: .init(connect: .nanoseconds(Int64(connectTimeout.components.seconds) * 1_000_000_000))
        )
        // A refused connection fails at once instead of being retried until the deadline: the
        // retry policy (with backoff and the search deadline in mind) belongs to RetryingTransport.
        configuration.connectionPool.retryConnectionEstablishment = false
        self.client = HTTPClient(eventLoopGroup: Self.eventLoopGroup, configuration: configuration)
        self.userAgent = userAgent
    }

    /// The event loop every transport's connections run on, for the life of the process. One thread:
    /// a search keeps a handful of connections busy for a few milliseconds in all, and one loop means
    /// the warm-up (TransportWarmUp.swift) has already paid the loop's first use when the requests go.
    static let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Starts the shared event loop thread now rather than at the first transport, so a process can
    /// have it ready while it does other start-up work (`seek` calls this before parsing arguments).
    public static func startEventLoops() {
        _ = eventLoopGroup.next()
    }

    /// Closes every connection; call once at exit.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        outgoing.headers.add(name: "User-Agent", value: userAgent)
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        let client = self.client
        let prepared = outgoing
        let limit = request.maxBodyBytes
        // For error messages only: redacting parses the whole URL, which the way out should not pay.
        var printable: String { Redaction.redact(url: request.url) }
        do {
            // AsyncHTTPClient's deadline covers connecting and the response head (and reports why a
            // connection failed); the outer deadline, a little later, also bounds the body.
            let headDeadline = NIODeadline.now() + .nanoseconds(Int64(request.timeout.seconds * 1e9))
            return try await withDeadline(request.timeout + .milliseconds(250)) {
                let response = try await client.execute(prepared, deadline: headDeadline)
                if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > limit {
                    throw SeekError(.bodyTooLarge(limitBytes: limit), detail: printable)
                }
                let buffer = try await response.body.collect(upTo: limit)
                var headers: [String: String] = [:]
                for (name, value) in response.headers {
                    let key = name.lowercased()
                    headers[key] = headers[key].map { "\($0), \(value)" } ?? value
                }
                return HTTPResponse(status: Int(response.status.code), headers: headers, body: Data(buffer.readableBytesView))
            }
        } catch let error as SeekError {
            if case .timeout = error.kind { throw SeekError(.timeout(seconds: request.timeout.seconds), detail: printable) }
            throw error
        } catch is NIOTooManyBytesError {
            throw SeekError(.bodyTooLarge(limitBytes: limit), detail: printable)
        } catch let error as HTTPClientError {
            throw Self.map(error, url: printable, timeout: request.timeout)
        } catch is CancellationError {
            throw SeekError(.cancelled, detail: printable)
        } catch {
            throw SeekError(.network, detail: "\(Self.describe(error)) (\(printable))")
        }
    }

    static func map(_ error: HTTPClientError, url: String, timeout: Duration) -> SeekError {
        switch error {
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout:
            return SeekError(.timeout(seconds: timeout.seconds), detail: url)
        case .redirectLimitReached, .redirectCycleDetected:
            return SeekError(.network, detail: "too many redirects (\(url))")
        case .cancelled:
            return SeekError(.cancelled, detail: url)
        case .remoteConnectionClosed:
            return SeekError(.network, detail: "connection closed by the server (\(url))")
        default:
            return SeekError(.network, detail: "\(describe(error)) (\(url))")
        }
    }

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connection refused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("UnknownHost") {
            // "DNS error: SocketAddressError.UnknownHost: … for host example.org, port 443"
            let host = text.range(of: "for host ").map { text[$0.upperBound...].prefix { $0 != "," } } ?? ""
            return host.isEmpty ? "cannot resolve the host name" : "cannot resolve host \(host)"
        }
        return text.count > 160 ? String(text.prefix(160)) + "…" : text
    }
}

/// Runs `operation`, cancelling it and throwing `.timeout` when `limit` passes first.
public func withDeadline<T: Sendable>(
    _ limit: Duration, operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw SeekError(.cancelled) }
        guard let value = first else { throw SeekError(.timeout(seconds: limit.seconds)) }
        return value
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Parses HTTP dates (RFC 9110 IMF-fixdate, plus the obsolete RFC 850 and asctime forms).
public enum HTTPDate {
    public static func parse(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    public static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

/// The version `seek` reports and sends in its User-Agent.
public enum SeekVersion {
    public static let current = "0.1.0"
}
