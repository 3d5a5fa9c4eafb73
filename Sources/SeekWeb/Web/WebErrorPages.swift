import Hummingbird

/// An unknown path, or a method no page takes, is a page for a reader (HTML in their language, with
/// the search box and the way back), not the API's JSON. Under `/api/` and on the machine routes
/// (`/mcp`, `/metrics`, `/healthz`, `/openapi.yaml`, the integrations) errors stay JSON.
struct WebErrorPagesMiddleware: RouterMiddleware {
    typealias Context = SeekRequestContext
    let web: WebRoutes

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            guard Self.isPage(request.uri.path) else { throw error }
            return web.notFoundPage(request, status: error.status)
        }
    }

    /// Whether `path` is one a reader's browser asks for (not the API's nor a machine's).
    static func isPage(_ path: String) -> Bool {
        let machine = ["/api/", "/mcp", "/metrics", "/healthz", "/openapi.yaml", "/integrations/", "/opensearch.xml", "/suggest.json"]
        return !machine.contains { path.hasPrefix($0) || path.contains("/api/v1/") }
    }
}
