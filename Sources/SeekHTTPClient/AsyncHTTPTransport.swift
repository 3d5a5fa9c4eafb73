import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SeekCore
import SeekKit

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
        // A server makes many calls to one provider at once; AsyncHTTPClient's default of 8
        // connections per host would queue the rest.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        self.client = HTTPClient(eventLoopGroup: Self.eventLoopGroup, configuration: configuration)
        self.userAgent = userAgent
    }

    /// The event loop every transport's connections run on, for the life of the process: outgoing
    /// calls are a handful of small exchanges, which one thread serves without contention.
    static let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Closes every connection; call once, when the session that owns the transport closes.
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
            let headDeadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(request.timeout))
            return try await Deadline.race(request.timeout + .milliseconds(250)) {
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

    /// A request's timeout in nanoseconds for NIO, clamped to 0…a day (timeouts are validated far below).
    static func nanoseconds(_ timeout: Duration) -> Int64 {
        let (seconds, attoseconds) = Duration.seconds(clamping: timeout.seconds, maximum: 86_400).components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
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
