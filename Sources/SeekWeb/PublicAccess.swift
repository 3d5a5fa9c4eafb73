import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SeekAccess
import SeekKit
import SeekCore
import SeekResilience
import SeekRuntime
import SeekStore

/// What the server knows of a request beyond its bytes: the address it came from, and whose
/// favourites and history it reads and writes.
package struct SeekRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The connecting address (nil in the router tests, which have no socket).
    package let remoteAddress: IPAddress?
    /// The event loop the request's connection is served on (`LoopAffinityMiddleware`).
    package let eventLoop: (any EventLoop)?
    /// Whose lists the request reads and whose history it records: the owner on a personal server;
    /// on a public one the visitor its cookie names, or nil without a valid cookie (empty lists, no history).
    package var owner: StateOwner? = .instanceOwner
    /// Whose lists a write changes: `owner`, or the visitor the answer's new cookie names.
    package var writer: StateOwner = .instanceOwner

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        eventLoop = source.channel.eventLoop
    }
}

/// Who may use the server and how: `personal` (one owner, whose lists are the CLI's) or `public`
/// (visitors who do not know each other; DESIGN's "A public instance").
package struct ServerAccess: Sendable {
    /// Signs the visitor cookie; nil on a personal server.
    package let cookies: VisitorCookies?
    /// The proxies whose X-Forwarded-* headers are believed.
    package let trustedProxies: TrustedProxies
    /// Each client's search budget on a public server (nil: no limit).
    package let clientLimit: RateLimit?
    /// The bearer token `POST /mcp` needs on a public server (nil: the route is closed there).
    package let mcpToken: String?

    /// A personal server: everything is the owner's, nothing limited per client.
    package static let personal = ServerAccess(cookies: nil, trustedProxies: .none, clientLimit: nil, mcpToken: nil)

    package var isPublic: Bool { cookies != nil }

    init(cookies: VisitorCookies?, trustedProxies: TrustedProxies, clientLimit: RateLimit?, mcpToken: String?) {
        self.cookies = cookies
        self.trustedProxies = trustedProxies
        self.clientLimit = clientLimit
        self.mcpToken = mcpToken
    }

    /// The default per-client budget: 60 searches a minute, bursts of 20.
    package static let defaultClientLimit = RateLimit(requests: 60, per: .seconds(60), burst: 20)

    /// The access `seek serve` runs with: `--public` / `SEEK_PUBLIC=1`, or `--personal`, for a server
    /// bound to `host`. Refuses (a configuration error naming the fix) a personal server on an address
    /// other than loopback unless `--personal` says so, and a public one without a `SEEK_SECRET` of 32
    /// characters or more.
    package static func resolve(host: String, publicFlag: Bool, personalFlag: Bool, settings: Settings) throws -> ServerAccess {
        let fromEnvironment: Bool
        switch settings.string("SEEK_PUBLIC")?.lowercased() {
        case nil, "", "0", "off", "false", "no": fromEnvironment = false
        case "1", "on", "true", "yes": fromEnvironment = true
        case let other?: throw SeekError(.configuration, detail: "SEEK_PUBLIC must be 1 or 0, not \(other.prefix(40))")
        }
        if publicFlag, personalFlag {
            throw SeekError(.configuration, detail: "--public and --personal cannot both be given")
        }
        let isPublic = publicFlag || (fromEnvironment && !personalFlag)
        guard isPublic else {
            guard personalFlag || MetricsEndpoint.isLoopback(host) else {
                throw SeekError(
                    .configuration,
                    detail: "a personal server serves one owner's favourites and history to whoever reaches it: on \(host) use --public "
                        + "(visitors each get their own, with SEEK_SECRET set), or --personal if only you can reach that address")
            }
            return .personal
        }
        guard let secret = settings.string("SEEK_SECRET"), !secret.isEmpty else {
            throw SeekError(.configuration, detail: "--public needs SEEK_SECRET (32 characters or more): it signs the visitor cookie")
        }
        let cookies = try VisitorCookies(secret: secret)
        let proxies = try settings.string("SEEK_TRUSTED_PROXIES").map(TrustedProxies.init(parsing:)) ?? .none
        var limit: RateLimit? = defaultClientLimit
        if let text = settings.string("SEEK_CLIENT_RATE_LIMIT") {
            guard let parsed = RateLimit.parse(text) else {
                throw SeekError(.configuration, detail: "SEEK_CLIENT_RATE_LIMIT is not a rate such as 60/min,burst=20 or off: \(text.prefix(40))")
            }
            limit = parsed
        }
        let token = settings.string("SEEK_MCP_TOKEN").flatMap { $0.isEmpty ? nil : $0 }
        return ServerAccess(cookies: cookies, trustedProxies: proxies, clientLimit: limit, mcpToken: token)
    }

    /// The client a request counts against: the connecting address, or behind a trusted proxy the
    /// address it forwarded for.
    func client(of request: Request, context: SeekRequestContext) -> String {
        trustedProxies.client(connectingFrom: context.remoteAddress, forwardedFor: request.headers[values: .xForwardedFor])
    }

    /// Whether the request came over HTTPS, as a trusted proxy says.
    func isHTTPS(_ request: Request, context: SeekRequestContext) -> Bool {
        trustedProxies.saysHTTPS(connectingFrom: context.remoteAddress, forwardedProto: request.headers[values: .xForwardedProto])
    }

    /// The instance's own origin as this request reaches it.
    func ownOrigin(of request: Request, context: SeekRequestContext) -> String {
        let scheme = isHTTPS(request, context: context) ? "https" : (request.uri.scheme?.rawValue ?? "http")
        let host = trustedProxies.forwardedHost(connectingFrom: context.remoteAddress, forwardedHost: request.headers[values: .xForwardedHost])
            ?? request.head.authority ?? ""
        return SameOrigin.origin(scheme: scheme, host: host)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For") ?? .via
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto") ?? .via
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host") ?? .via
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site") ?? .via
}

/// Public mode: reads the visitor from the `seek_visitor` cookie; a request without a valid one gets a
/// new visitor in the answer's cookie (and no lists, no history). Answers carrying a visitor's data
/// are `Cache-Control: private, no-store`.
struct VisitorMiddleware: RouterMiddleware {
    typealias Context = SeekRequestContext
    let cookies: VisitorCookies
    let access: ServerAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let now = Date()
        let known = cookies.visitor(fromCookieHeaders: request.headers[values: .cookie], now: now)
        let visitor = known ?? cookies.newVisitor(now: now)
        context.owner = known.map { .visitor($0.id) }
        context.writer = .visitor(visitor.id)
        var response = try await Self.answer(request, context, next)
        if known == nil || now.timeIntervalSince(visitor.issued) > VisitorCookies.refreshAfter {
            let renewed = known == nil ? visitor : cookies.renewed(visitor, now: now)
            response.headers.append(HTTPField(name: .setCookie, value: cookies.setCookie(for: renewed, secure: access.isHTTPS(request, context: context))))
        }
        let type = response.headers[.contentType] ?? ""
        if type.hasPrefix("application/json") || type.hasPrefix("text/html") || type.hasPrefix("application/x-ndjson") {
            response.headers[.cacheControl] = "private, no-store"
        }
        return response
    }

    /// `next`'s answer, an error as the response it stands for (so it too gets the cookie).
    static func answer(_ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        }
    }
}

/// A request that changes state (PUT, DELETE, POST, PATCH) from another site is refused with 403,
/// changing nothing: `Sec-Fetch-Site` other than same-origin/none, or else an `Origin` other than the
/// instance's own. Requests with neither header (curl, scripts) pass.
struct SameOriginWritesMiddleware: RouterMiddleware {
    typealias Context = SeekRequestContext
    let access: ServerAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard [.put, .delete, .post, .patch].contains(request.method) else { return try await next(request, context) }
        let allowed = SameOrigin.allows(
            secFetchSite: request.headers[.secFetchSite], origin: request.headers[.origin],
            ownOrigin: access.ownOrigin(of: request, context: context))
        guard allowed else {
            throw APIError(.forbidden, code: "forbidden", message: "a change from another site is refused (Sec-Fetch-Site / Origin)")
        }
        return try await next(request, context)
    }
}

/// Public mode: each client's searches (API, stream or page, cache hit or not) come out of its budget,
/// shared by a fleet through the database when there is one. Past it: 429 with `Retry-After` in whole
/// seconds and `rate_limited`.
struct ClientLimitMiddleware: RouterMiddleware {
    typealias Context = SeekRequestContext
    let access: ServerAccess
    let limit: RateLimit
    let session: SeekSession
    /// The page a limited visitor of the web UI sees instead of the results, by the wait in seconds, the
    /// query and the request (whose language the page is written in).
    let page: @Sendable (Int, String, Request) -> Response

    static let searchPaths: Set<String> = ["/api/v1/search", "/api/v1/search/stream", "/search"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get, Self.searchPaths.contains(request.uri.path) else { return try await next(request, context) }
        // The script's results page is an empty shell whose stream then searches (and counts).
        let parameters = request.uri.queryParameters
        if request.uri.path == "/search", parameters["stream"] == "1", parameters["cursor"] == nil { return try await next(request, context) }
        let client = access.client(of: request, context: context)
        if let wait = await session.reserveClientSearch(client, limit: limit) {
            let seconds = Self.seconds(wait)
            guard request.uri.path != "/search" else {
                var response = page(seconds, parameters["q"].map(String.init) ?? "", request)
                response.headers[.retryAfter] = String(seconds)
                return response
            }
            throw ClientLimited(retryAfter: seconds)
        }
        return try await next(request, context)
    }

    /// A wait as whole seconds for `Retry-After`: at least 1, at most a day, whatever the arithmetic gave.
    static func seconds(_ wait: Double) -> Int {
        guard wait.isFinite else { return 86_400 }
        return Int(min(86_400, max(1, wait.rounded(.up))))
    }
}

/// A client past its budget: 429, `Retry-After`, `rate_limited`.
struct ClientLimited: HTTPResponseError {
    let retryAfter: Int

    var status: HTTPResponse.Status { .tooManyRequests }

    var message: String { "too many searches from your address: try again in \(retryAfter) s" }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = APIResponse.json(ErrorDocument(code: "rate_limited", message: message), status: status)
        response.headers[.retryAfter] = String(retryAfter)
        return response
    }
}
