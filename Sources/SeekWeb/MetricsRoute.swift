import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import SeekKit
import SeekCore
import SeekResilience
import SeekStore
import SeekSupport

/// The process's metrics, in Prometheus' text format at `GET /metrics` (DESIGN, "Several instances").
///
/// Every metric is Seek's, named `seek_…`:
/// - `seek_http_requests_total{route,status}` and `seek_http_request_duration_seconds{route,status}`
///   (here, `RequestMetricsMiddleware`);
/// - `seek_provider_calls_total{provider,status}`, `seek_provider_call_duration_seconds{provider,status}`
///   and `seek_breaker_open{provider}` (SeekResilience's `ProviderMetrics`);
/// - `seek_cache_lookups_total{result}` and `seek_store_reachable` (SeekStore's `StoreMetrics`).
enum ServerMetrics {
    static let requests = "seek_http_requests_total"
    static let requestDuration = "seek_http_request_duration_seconds"
    /// The route label of a request that no route matched.
    static let unmatchedRoute = "other"

    /// The registry every metric of the process goes to. `MetricsSystem.bootstrap` may be called only
    /// once in a process, so it is called here, the first time this is read: when a `SeekServer` is
    /// built (the CLI, which builds none, keeps swift-metrics' no-op backend; tests build many servers
    /// in one process, all on this one registry).
    static let collectors: PrometheusCollectorRegistry = {
        let collectors = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: collectors))
        return collectors
    }()

    /// Records one request answered by `route` with `status` after `elapsed`.
    static func request(route: String, status: Int, elapsed: Duration) {
        let dimensions = [("route", route), ("status", String(status))]
        Counter(label: requests, dimensions: dimensions).increment()
        Timer(label: requestDuration, dimensions: dimensions).record(duration: elapsed)
    }

    /// Each family's `# HELP` text. swift-metrics' factory registers every family without one (and
    /// the registry refuses a second, different text for a family), so `exposition` adds them.
    static let help: [String: String] = [
        requests: "HTTP requests answered, by route template and status code.",
        requestDuration: "Seconds from a request's arrival to its response's last byte, by route template and status code.",
        ProviderMetrics.calls: "Provider calls, counted when each ends, by provider and outcome status.",
        ProviderMetrics.duration: "Seconds a provider call took, by provider and outcome status.",
        ProviderMetrics.breakerOpen: "1 while calls to the provider are refused (its breaker or a shared cool-down), else 0.",
        StoreMetrics.cacheLookups: "Response-cache look-ups, by what answered: hit, miss or stale.",
        StoreMetrics.storeReachable: "1 while the shared store (PostgreSQL) answers, else 0.",
    ]

    /// Every metric, in Prometheus' text format, each family with its `# HELP` line.
    static func exposition() -> ByteBuffer {
        var bytes: [UInt8] = []
        collectors.emit(into: &bytes)
        return ByteBuffer(string: withHelp(String(decoding: bytes, as: UTF8.self)))
    }

    /// `text` (Prometheus' format) with a `# HELP` line before each `# TYPE` line that has none: the
    /// family's text from `help`, or one naming the family for a family not listed there.
    static func withHelp(_ text: String) -> String {
        var lines: [Substring] = []
        var described: Set<Substring> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let fields = line.split(separator: " ", maxSplits: 3)
            if fields.count >= 3, fields[0] == "#", fields[1] == "HELP" { described.insert(fields[2]) }
            if fields.count >= 3, fields[0] == "#", fields[1] == "TYPE", !described.contains(fields[2]) {
                let name = fields[2]
                let text = help[String(name)] ?? "Seek's \(name) metric."
                lines.append("# HELP \(name) \(text)")
                described.insert(name)
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// Counts every request in `seek_http_requests_total{route,status}` and times it in
/// `seek_http_request_duration_seconds{route,status}`, until its body is written (a stream's whole
/// life), and writes its access line (`AccessLog`). `route` is the template of the route that
/// answered (`/api/v1/items/{id}`, `/items/{id}`), never the path asked for, so the series stay few
/// and no search text is in them; a request that no route matched is `other`. `status` is the status
/// code sent. The outermost middleware but for the loop's, so it sees the status of every answer,
/// errors included.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    var accessLog = AccessLog.off

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            var response = try await next(request, context)
            let body = response.body
            let length = body.contentLength
            let record = RequestRecord(
                route: Self.route(context.endpointPath), status: response.status.code, method: request.method, path: request.uri.description,
                start: start, accessLog: accessLog, logger: context.logger)
            response.body = ResponseBody(contentLength: length) { writer in
                // Only a body of unknown length (a stream) is counted as it goes.
                guard length == nil, accessLog != .off else {
                    do { try await body.write(writer) } catch {
                        record.finish(bytes: nil)
                        throw error
                    }
                    record.finish(bytes: length ?? 0)
                    return
                }
                let tally = NIOLockedValueBox(0)
                do {
                    try await body.write(writer.map { buffer in
                        tally.withLockedValue { $0 += buffer.readableBytes }
                        return buffer
                    })
                } catch {
                    record.finish(bytes: nil)
                    throw error
                }
                record.finish(bytes: tally.withLockedValue { $0 })
            }
            return response
        } catch {
            let fallback = isAbortedBody(error) ? HTTPResponse.Status.badRequest : .internalServerError
            let status = (error as? any HTTPResponseError)?.status.code ?? fallback.code
            RequestRecord(
                route: Self.route(context.endpointPath), status: status, method: request.method, path: request.uri.description, start: start,
                accessLog: accessLog, logger: context.logger
            ).finish(bytes: nil)
            throw error
        }
    }

    /// The route label of a request whose matched route is `endpointPath` (Hummingbird's: the route as
    /// registered, `{id}` for a capture; `NotFound` or nil when no route matched).
    static func route(_ endpointPath: String?) -> String {
        guard let path = endpointPath, path.hasPrefix("/") else { return ServerMetrics.unmatchedRoute }
        return path
    }
}

/// One request's metrics and access line, recorded once: when its body has been written (or failed
/// to be), or, when the body is never written at all (the connection closed before the response's
/// head went out), when the response is let go.
final class RequestRecord: Sendable {
    let route: String
    let status: Int
    let method: HTTPRequest.Method
    /// The target with its query, kept only for a `full` access log.
    let path: String?
    let start: ContinuousClock.Instant
    let accessLog: AccessLog
    let logger: Logger
    private let recorded = NIOLockedValueBox(false)

    init(
        route: String, status: Int, method: HTTPRequest.Method, path: @autoclosure () -> String, start: ContinuousClock.Instant,
        accessLog: AccessLog, logger: Logger
    ) {
        self.route = route
        self.status = status
        self.method = method
        self.path = accessLog == .full ? path() : nil
        self.start = start
        self.accessLog = accessLog
        self.logger = logger
    }

    deinit { finish(bytes: nil) }

    /// Records the request with `bytes` of body sent (nil: not sent whole); only the first call counts.
    func finish(bytes: Int?) {
        guard recorded.withLockedValue({ done in
            defer { done = true }
            return !done
        }) else { return }
        let elapsed = ContinuousClock.now - start
        ServerMetrics.request(route: route, status: status, elapsed: elapsed)
        accessLog.record(logger, method: method, route: route, path: path ?? "", status: status, elapsed: elapsed, bytes: bytes)
    }
}

/// `GET /metrics`: open when the server is bound to a loopback address; on any other bind it needs
/// `Authorization: Bearer $SEEK_METRICS_TOKEN`, and is not there (the API's 404) while no token is set.
struct MetricsEndpoint: Sendable {
    static let tokenVariable = "SEEK_METRICS_TOKEN"

    /// Whether the server is bound to a loopback address (127.0.0.0/8, ::1, localhost).
    let loopback: Bool
    /// The token a request must carry when the bind is not loopback; nil when none is set.
    let token: String?

    init(host: String, token: String?) {
        loopback = Self.isLoopback(host)
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The endpoint of a server bound to `host`, with the token of `settings` (`SEEK_METRICS_TOKEN`).
    init(host: String, settings: Settings) {
        self.init(host: host, token: settings.string(Self.tokenVariable))
    }

    func register(on router: Router<SeekRequestContext>) {
        router.get("/metrics") { request, _ in try respond(to: request) }
    }

    func respond(to request: Request) throws -> Response {
        if !loopback {
            guard let token else { throw APIError(.notFound, code: "not_found", message: "not found") }
            guard let presented = Self.bearerToken(request.headers[.authorization]), Self.constantTimeEqual(presented, token) else {
                var response = APIResponse.json(
                    ErrorDocument(code: "unauthorized", message: "/metrics needs Authorization: Bearer with the server's \(Self.tokenVariable)"),
                    status: .unauthorized)
                response.headers[.wwwAuthenticate] = "Bearer"
                return response
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ServerMetrics.exposition()))
    }

    /// The token of an `Authorization: Bearer TOKEN` header (the scheme in any case).
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.trimmed().split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmed()
        return token.isEmpty ? nil : token
    }

    /// Whether `a` and `b` are equal, in a time that depends on their lengths only, never on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        var difference: UInt8 = x.count == y.count ? 0 : 1
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }

    /// Whether binding to `host` listens on loopback only: `localhost`, an IPv4 address in 127.0.0.0/8,
    /// `::1` (bracketed or not) or an IPv4-mapped 127.x address. Anything else — a wildcard, another
    /// address, a host name — is not.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.trimmed().lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" { return true }
        if let v4 = InternetAddress.ipv4Bytes(name) { return v4.first == 127 }
        guard let bytes = InternetAddress.ipv6Bytes(name) else { return false }
        let zeros = [UInt8](repeating: 0, count: 10)
        if bytes == zeros + [0, 0, 0, 0, 0, 1] { return true }
        return Array(bytes.prefix(12)) == zeros + [0xff, 0xff] && bytes[12] == 127
    }
}

extension HTTPFields {
    /// Asks a proxy in front (nginx: `X-Accel-Buffering: no`) to pass the answer on as it is written
    /// instead of buffering it: for the ndjson stream, whose first lines must not wait for the last.
    mutating func disableProxyBuffering() {
        if let name = HTTPField.Name("X-Accel-Buffering") { self[name] = "no" }
    }
}
