import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import SeekCore
import SeekRuntime
import SeekSupport

/// `seek serve`: the JSON API and the web UI over one session that lives as long as the server, so connections to
/// the providers stay open and caches stay warm.
package struct SeekServer: Sendable {
    package let session: SeekSession
    package let host: String
    package let port: Int
    package let logger: Logger
    /// How long a request may take to start its answer (a 504 after that).
    package var requestDeadline: Duration = .seconds(60)
    /// When slow and idle connections are closed; `run` reads them from the settings.
    package var connectionTimeouts = ConnectionTimeouts()
    /// Personal (one owner) or public (visitors, each with their own lists; per-client limits).
    package var access: ServerAccess = .personal
    /// The path every route is served under (`--base-path`, `SEEK_BASE_PATH`); the root by default.
    package var basePath: BasePath = .root
    /// In demo mode, the searches the recordings answer, by provider id: the web UI's demo banner offers them.
    package var demoQueries: [(provider: String, query: String)]?
    /// What the log keeps of each request; nil: `minimal` on a public server, `full` on a personal one.
    /// `run` reads it from the settings (`SEEK_ACCESS_LOG`).
    package var accessLog: AccessLog?
    /// The server's open connections, and how long each has waited on its client (the longest go
    /// first when descriptors run short).
    package let connections = ConnectionRegistry()
    /// Runs the server's tasks on the event loops that serve its connections (issue 30).
    package let executors = EventLoopTaskExecutor(group: MultiThreadedEventLoopGroup.singleton)

    package init(session: SeekSession, host: String = "127.0.0.1", port: Int = 8080, logger: Logger) {
        self.session = session
        self.host = host
        self.port = port
        self.logger = logger
        // The process's metrics registry, swift-metrics' backend from the first server built on.
        _ = ServerMetrics.collectors
    }

    /// The router with every route and middleware, for `run` and for tests.
    package func router() -> Router<SeekRequestContext> {
        let router = Router(context: SeekRequestContext.self)
        router.add(middleware: LoopAffinityMiddleware(executors: executors))
        router.add(middleware: RequestMetricsMiddleware(accessLog: accessLog ?? (access.isPublic ? .minimal : .full)))
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: RequestLimitsMiddleware())
        if let cookies = access.cookies { router.add(middleware: VisitorMiddleware(cookies: cookies, access: access)) }
        router.add(middleware: SameOriginWritesMiddleware(access: access))
        let api = APIRoutes(session: session, mcp: MCPEndpoint(session: session), deadline: requestDeadline, access: access)
        let web = WebRoutes(api: api, demoQueries: demoQueries)
        router.add(middleware: WebErrorPagesMiddleware(web: web))
        if access.isPublic, let limit = access.clientLimit {
            router.add(middleware: ClientLimitMiddleware(
                access: access, limit: limit, session: session, page: { web.limitedPage(retryAfter: $0, query: $1, request: $2) }))
        }
        api.register(on: router)
        web.register(on: router)
        IntegrationRoutes(session: session, access: access, basePath: basePath.path, logger: logger).register(on: router)
        OpenSearchRoutes(session: session, access: access, basePath: basePath.path).register(on: router)
        MetricsEndpoint(host: host, settings: session.settings).register(on: router)
        return router
    }

    /// The application: `onListening` gets the address it listens on (`http://HOST:PORT`, with the
    /// port the system gave when `port` is 0).
    package func application(onListening: @escaping @Sendable (String) -> Void = { _ in }) -> some ApplicationProtocol {
        let (host, timeouts, logger) = (self.host, connectionTimeouts, logger)
        let registry = connections
        return Application(
            router: BasePathRouter(basePath: basePath, router: router()),
            server: .http1(configuration: .init(additionalChannelHandlers: [
                SlowClientHandler(timeouts: timeouts, logger: logger, connections: registry),
            ])),
            configuration: .init(address: .hostname(host, port: port), serverName: "seek/\(SeekVersion.current)"),
            onServerRunning: { channel in
                try? await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(DescriptorBackoffHandler(logger: logger, connections: registry), position: .first)
                }.get()
                let port = channel.localAddress?.port ?? 0
                let shown = host.contains(":") ? "[\(host)]" : host
                onListening("http://\(shown):\(port)")
            },
            // The loops the provider calls run on too (`AsyncHTTPTransport`), and `run`'s tasks.
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            logger: logger)
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully (open streams end) and returns.
    package func run(onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        var server = self
        server.connectionTimeouts = try ConnectionTimeouts(settings: session.settings)
        server.accessLog = try AccessLog.resolve(settings: session.settings, isPublic: access.isPublic)
        OpenFileLimit.raise(logger: logger)
        await session.prepareStores(longLived: true)
        try await server.onItsLoops { try await server.application(onListening: onListening).runService() }
    }

    /// Runs `service` (the application) with the server's tasks, and those Seek starts for them, on
    /// the event loops that serve its connections (`EventLoopTaskExecutor`).
    package func onItsLoops<T>(_ service: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(executors) {
            try await ServingExecutor.$current.withValue(executors) { try await service() }
        }
    }
}
