import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import SeekCore
import SeekKit

/// `HTTPTransport` on AsyncHTTPClient: one shared client, bodies gathered up to a size cap,
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
        // A provider that asks for gzip (`Accept-Encoding: gzip`, Crossref) gets its body inflated here;
        // the ratio bounds what a small compressed body may grow to (the body cap still applies after).
        configuration.decompression = .enabled(limit: .ratio(100))
        self.client = HTTPClient(eventLoopGroup: Self.eventLoopGroup, configuration: configuration)
        self.userAgent = userAgent
    }

    /// The process's shared event loops, the ones `seek serve` serves its connections on: a call made
    /// on one of them prefers a connection on the same loop, and its answer completes there (issue 30).
    static var eventLoopGroup: MultiThreadedEventLoopGroup { .singleton }

    /// Closes every connection; call once, when the session that owns the transport closes.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let limit = request.maxBodyBytes
        // For error messages only: redacting parses the whole URL, which the way out should not pay.
        var printable: String { Redaction.redact(url: request.url) }
        do {
            var headers = HTTPHeaders()
            headers.add(name: "User-Agent", value: userAgent)
            for (name, value) in request.headers { headers.replaceOrAdd(name: name, value: value) }
            let outgoing = try HTTPClient.Request(url: request.url, method: HTTPMethod(rawValue: request.method), headers: headers)
            let client = self.client
            // AsyncHTTPClient's deadline covers connecting, the head and the body (and reports why a
            // connection failed); the outer deadline, a little later, also bounds the wait itself.
            let deadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(request.timeout))
            return try await Deadline.race(request.timeout + .milliseconds(250)) {
                // Called on one of the client's event loops (a request of `seek serve`, which shares
                // them), the exchange prefers that loop and a connection on it, and its answer completes
                // there: read where the request waits, without waking another thread (issue 30).
                // A loop-bound connection (`.delegateAndChannel`) would be closed once idle.
                let accumulator = ResponseAccumulator(request: outgoing, maxBodySize: Self.bodyCap(limit))
                let exchange = client.execute(request: outgoing, delegate: accumulator, eventLoop: .indifferent, deadline: deadline)
                let response = try await withTaskCancellationHandler {
                    try await exchange.get()
                } onCancel: {
                    exchange.cancel()
                }
                var headers: [String: String] = [:]
                for (name, value) in response.headers {
                    let key = name.lowercased()
                    headers[key] = headers[key].map { "\($0), \(value)" } ?? value
                }
                let body = response.body.map { Data($0.readableBytesView) } ?? Data()
                return HTTPResponse(status: Int(response.status.code), headers: headers, body: body)
            }
        } catch let error as SeekError {
            if case .timeout = error.kind { throw SeekError(.timeout(seconds: request.timeout.seconds), detail: printable) }
            throw error
        } catch is ResponseAccumulator.ResponseTooBigError {
            throw SeekError(.bodyTooLarge(limitBytes: limit), detail: printable)
        } catch let error as HTTPClientError {
            throw Self.map(error, url: printable, timeout: request.timeout)
        } catch is CancellationError {
            throw SeekError(.cancelled, detail: printable)
        } catch {
            throw SeekError(.network, detail: "\(Self.describe(error)) (\(printable))")
        }
    }

    /// A body limit AsyncHTTPClient accepts: 0 up to what one `ByteBuffer` holds (4 GiB).
    static func bodyCap(_ limit: Int) -> Int {
        min(max(0, limit), Int(UInt32.max))
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
