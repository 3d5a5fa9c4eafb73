import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SeekCore
import SeekKit
import SeekStore
import SeekSupport

/// Every failure becomes the API's JSON error: `APIError`s as they are, a provider's `SeekError` by
/// its kind, Hummingbird's own (no such route, wrong method) by their status, anything else a 500
/// that names nothing internal (it is logged instead). A request body cut off (`isAbortedBody`) is
/// a debug line, passed on for Hummingbird to close the connection.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as SeekError {
            throw APIError.from(error)
        } catch let error as StoreError {
            // Nothing was kept: never a 2xx for a write that did not land.
            context.logger.warning("user data store failed", metadata: ["error": "\(error)"])
            throw APIError(
                .serviceUnavailable, code: "store_unavailable", message: "could not \(error.operation): \(error.reason)")
        } catch let error as HTTPError {
            let code = switch error.status {
            case .notFound: "not_found"
            case .methodNotAllowed: "method_not_allowed"
            case .contentTooLarge: "too_large"
            default: "http_\(error.status.code)"
            }
            throw APIError(error.status, code: code, message: error.status.reasonPhrase.lowercased())
        } catch where isAbortedBody(error) {
            // Passed on as it is: Hummingbird answers a parse error with 400 and closes the connection.
            context.logger.debug("request body aborted: the client went away, or sent it too slowly")
            throw error
        } catch {
            context.logger.error("internal error", metadata: ["error": "\(type(of: error))"])
            throw APIError(.internalServerError, code: "internal", message: "internal error")
        }
    }
}

/// Refuses what no route reads: request bodies (none of the routes takes one) and over-long URIs.
struct RequestLimitsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The longest request target accepted (a cursor is a short token, a query at most a few hundred bytes).
    static var maxURILength: Int { 8 * 1024 }
    /// The largest body accepted; routes never read one.
    static var maxBodyBytes: Int { 64 * 1024 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.string.utf8.count <= Self.maxURILength else {
            throw APIError(.uriTooLong, code: "uri_too_long", message: "the request target is longer than \(Self.maxURILength) bytes")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maxBodyBytes {
            throw APIError(.contentTooLarge, code: "too_large", message: "request bodies are limited to \(Self.maxBodyBytes) bytes")
        }
        return try await next(request, context)
    }
}

/// The headers every answer carries, pages and errors alike: a strict Content-Security-Policy (no
/// inline script or style, nothing from elsewhere, no framing) and no MIME sniffing.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}

/// Keeps a request, and the tasks it starts, on the event loop its connection is served on.
struct LoopAffinityMiddleware: RouterMiddleware {
    typealias Context = SeekRequestContext
    let executors: EventLoopTaskExecutor

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let loop = context.eventLoop, let executor = executors.executor(for: loop) else {
            return try await next(request, context)
        }
        return try await withTaskExecutorPreference(executor) {
            try await ServingExecutor.$current.withValue(executor) { try await next(request, context) }
        }
    }
}

/// What the server's log keeps of each request (`SEEK_ACCESS_LOG`): one `request` line at `info`
/// with the method, the route's template, the status, the duration and the bytes of the body sent
/// (`minimal`), those and the path with its query (`full`), or nothing (`off`). A public server
/// logs `minimal` unless told otherwise: its visitors' searches, cookies and ids stay out of its
/// log. A personal server logs `full`.
package enum AccessLog: String, Sendable, CaseIterable {
    case off, minimal, full

    package static let variable = "SEEK_ACCESS_LOG"

    /// The mode `settings` sets, else `minimal` on a public server and `full` on a personal one; any
    /// other value is a configuration error naming the variable.
    package static func resolve(settings: Settings, isPublic: Bool) throws -> AccessLog {
        guard let text = settings.string(variable)?.trimmed(), !text.isEmpty else { return isPublic ? .minimal : .full }
        guard let mode = AccessLog(rawValue: text.lowercased()) else {
            throw SeekError(.configuration, detail: "\(variable) must be off, minimal or full, got \(text.prefix(40))")
        }
        return mode
    }

    /// Writes the access line of one request (nothing when `off`). `path` (the target with its query)
    /// is written in `full` mode only; `bytes` is nil when the body was not sent whole.
    func record(
        _ logger: Logger, method: HTTPRequest.Method, route: String, path: @autoclosure () -> String, status: Int, elapsed: Duration,
        bytes: Int?
    ) {
        guard self != .off else { return }
        var metadata: Logger.Metadata = [
            "method": .string(method.rawValue), "route": .string(route), "status": .stringConvertible(status),
            "duration_ms": .string(Self.milliseconds(elapsed)), "bytes": bytes.map { .stringConvertible($0) } ?? "aborted",
        ]
        if self == .full { metadata["path"] = .string(path()) }
        logger.info("request", metadata: metadata)
    }

    /// `elapsed` in milliseconds with three decimals (`12.305`), without Foundation's formatter.
    static func milliseconds(_ elapsed: Duration) -> String {
        let (seconds, attoseconds) = elapsed.components
        let micros = max(0, seconds) * 1_000_000 + max(0, attoseconds) / 1_000_000_000_000
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
