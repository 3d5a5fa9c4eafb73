import Foundation
import Hummingbird
import Logging
import SeekCore
import SeekImageCache
import SeekKit
import SeekRuntime
import SeekStore
import ServiceLifecycle

/// The JSON API under `/api/v1`, `/openapi.yaml` and `/healthz`: every route of DESIGN's table,
/// each document the same as the CLI's `--format json` one.
struct APIRoutes: Sendable {
    let session: SeekSession
    /// Seek's MCP server on this session, for `POST /mcp`.
    let mcp: MCPEndpoint
    /// How long a request may take to start its answer.
    let deadline: Duration
    /// Personal or public, and what public mode needs.
    let access: ServerAccess

    /// Every route the server answers, as OpenAPI writes them: the router is built from this list,
    /// and a test checks it against the paths of `/openapi.yaml`.
    static let table: [(method: HTTPRequest.Method, path: String)] = [
        (.get, "/api/v1/search"),
        (.get, "/api/v1/search/stream"),
        (.get, "/api/v1/items/{id}"),
        (.get, "/api/v1/items/{id}/image"),
        (.get, "/api/v1/trending"),
        (.get, "/api/v1/suggest"),
        (.get, "/api/v1/providers"),
        (.get, "/api/v1/stats"),
        (.get, "/api/v1/favorites"),
        (.put, "/api/v1/favorites/{id}"),
        (.delete, "/api/v1/favorites/{id}"),
        (.get, "/api/v1/history"),
        (.delete, "/api/v1/history"),
        (.post, "/mcp"),
        (.get, "/openapi.yaml"),
        (.get, "/healthz"),
        // Registered by `MetricsEndpoint`, which needs the server's bind address and token.
        (.get, "/metrics"),
    ]

    typealias Handler = @Sendable (Request, SeekRequestContext) async throws -> Response

    /// The handler of each route in `table`.
    func handler(_ method: HTTPRequest.Method, _ path: String) -> Handler? {
        switch (method, path) {
        case (.get, "/api/v1/search"): search
        case (.get, "/api/v1/search/stream"): stream
        case (.get, "/api/v1/items/{id}"): detail
        case (.get, "/api/v1/items/{id}/image"): image
        case (.get, "/api/v1/trending"): trending
        case (.get, "/api/v1/suggest"): suggest
        case (.get, "/api/v1/providers"): providers
        case (.get, "/api/v1/stats"): stats
        case (.get, "/api/v1/favorites"): favorites
        case (.put, "/api/v1/favorites/{id}"): addFavorite
        case (.delete, "/api/v1/favorites/{id}"): removeFavorite
        case (.get, "/api/v1/history"): history
        case (.delete, "/api/v1/history"): clearHistory
        case (.post, "/mcp"): mcpHandler
        case (.get, "/openapi.yaml"): openAPI
        case (.get, "/healthz"): health
        default: nil
        }
    }

    /// Adds every route of `table` to `router`, each under the request deadline.
    func register(on router: Router<SeekRequestContext>) {
        for (method, path) in Self.table {
            guard let handler = handler(method, path) else { continue }
            let deadline = self.deadline
            router.on(RouterPath(Self.routerPath(path)), method: method) { request, context in
                do {
                    return try await Deadline.race(deadline) { try await handler(request, context) }
                } catch let error as SeekError where error.provider == nil && error.kind == .timeout(seconds: deadline.seconds) {
                    throw APIError(.gatewayTimeout, code: "deadline", message: "no answer within \(SeekError.secondsInWords(deadline.seconds))")
                } catch let error as RequestError {
                    throw APIError(error)
                }
            }
        }
    }

    /// `/api/v1/items/{id}` as Hummingbird writes it: `/api/v1/items/:id`.
    static func routerPath(_ path: String) -> String {
        path.replacingOccurrences(of: "{id}", with: ":id")
    }

    // MARK: Search

    /// The search a request asks for, checked by the session; recorded in the history of the
    /// request's owner (none for a visitor without a valid cookie).
    func checkedSearch(_ request: Request, _ context: SeekRequestContext) async throws -> CheckedSearch {
        try await session.check(try Parameters(request).searchQuery(owner: context.owner))
    }

    /// The search document, with `next` as a short token.
    func document(_ result: SearchResult) async -> SearchDocument {
        SearchDocument(
            query: result.query, page: result.page, results: result.results, outcomes: result.outcomes,
            next: await session.token(for: result.next), explain: result.explain)
    }

    var search: Handler {
        { request, context in
            // The document (its cursor kept, its JSON written) is written while the history records the search.
            try await session.search(try Parameters(request).searchQuery(owner: context.owner)) { answer in
                APIResponse.json(await document(answer.result))
            }
        }
    }

    /// NDJSON: a `batch` line as each provider answers, then the merged `summary`. A client that goes
    /// away cancels the provider calls; a graceful shutdown ends the stream.
    var stream: Handler {
        { request, context in
            let checked = try await checkedSearch(request, context)
            let options = checked.options
            let session = session
            let weights = session.providerWeights
            let body = ResponseBody { writer in
                let (lines, sink) = AsyncStream.makeStream(of: String.self)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        defer { sink.finish() }
                        let result = try await cancelWhenGracefulShutdown {
                            try await session.search(checked) { batch in
                                let weight = weights[batch.outcome.provider] ?? 1
                                sink.yield(JSONText.compact(BatchDocument(batch: batch, weight: weight, ranking: options.ranking)))
                            }.result
                        }
                        sink.yield(JSONText.compact(await document(result).summary))
                    }
                    for await line in lines {
                        try await writer.write(ByteBuffer(string: line + "\n"))
                    }
                    try await group.waitForAll()
                }
                try await writer.finish(nil)
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/x-ndjson; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers.disableProxyBuffering()
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    // MARK: Items

    var detail: Handler {
        { request, context in
            let (id, answer) = try await session.detail(try Parameters(request).itemQuery(context.parameters.get("id")))
            if case .failure(let error) = answer.result { throw APIError.from(error) }
            return APIResponse.json(DetailDocument(id: id, answer: answer))
        }
    }

    /// The image bytes through the shared cache, from the URL the provider gives for the item (never
    /// a URL from the caller); an ETag of the bytes answers If-None-Match with 304.
    var image: Handler {
        { request, context in
            let parameters = Parameters(request)
            let (id, options) = try session.checked(try parameters.itemQuery(context.parameters.get("id")))
            let size = try parameters.choice("size", ImageSize.allCases.map(\.rawValue)).flatMap(ImageSize.init(rawValue:)) ?? .medium
            let image = try await session.image(of: id, size: size, options: options)
            let tag = ImageTag.of(image.data)
            var headers = HTTPFields()
            headers[.eTag] = tag
            // A drawn cover stands in for an image that may come later: it is kept an hour, not a day.
            headers[.cacheControl] = image.origin == .generated ? "public, max-age=3600" : "public, max-age=86400"
            if let asked = request.headers[.ifNoneMatch], asked.fields(separatedBy: ",").contains(where: { $0.trimmed() == tag || $0.trimmed() == "*" }) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = image.format.mimeType
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: image.data)))
        }
    }

    // MARK: Trending, suggest

    var trending: Handler {
        { request, _ in
            let result = try await session.trending(try Parameters(request).fanOutQuery()).result
            return APIResponse.json(SearchDocument(query: nil, page: 1, results: result.results, outcomes: result.outcomes, next: nil))
        }
    }

    var suggest: Handler {
        { request, _ in
            let (answer, _) = try await session.suggest(try Parameters(request).fanOutQuery())
            return APIResponse.json(SuggestDocument(prefix: answer.prefix, suggestions: answer.suggestions, outcomes: answer.outcomes))
        }
    }

    // MARK: Providers, stats

    var providers: Handler {
        { _, _ in APIResponse.json(ProvidersDocument(providers: await session.providerDocuments())) }
    }

    var stats: Handler {
        { _, _ in APIResponse.json(await session.statsDocument()) }
    }

    // MARK: Favourites, history

    var favorites: Handler {
        { _, context in try await favoritesDocument(context.owner) }
    }

    /// `owner`'s favourites (none for a visitor without a valid cookie).
    func favoritesDocument(_ owner: StateOwner?) async throws -> Response {
        let entries = try await session.favorites(of: owner)
        return APIResponse.json(EntriesDocument(entries: entries.map(FavoriteDocument.init)))
    }

    /// Adds a favourite with a snapshot of its detail (so the list works when the provider is down).
    var addFavorite: Handler {
        { request, context in
            _ = try await session.addFavorite(try Parameters(request).itemQuery(context.parameters.get("id")), owner: context.writer)
            return try await favoritesDocument(context.writer)
        }
    }

    var removeFavorite: Handler {
        { _, context in
            _ = try await session.removeFavorite(pathID(context.parameters.get("id")), owner: context.writer)
            return try await favoritesDocument(context.writer)
        }
    }

    var history: Handler {
        { _, context in
            let entries = try await session.history(of: context.owner)
            return APIResponse.json(EntriesDocument(entries: entries.map(HistoryDocument.init)))
        }
    }

    var clearHistory: Handler {
        { _, context in
            try await session.clearHistory(owner: context.writer)
            return APIResponse.json(EntriesDocument<HistoryDocument>(entries: []))
        }
    }

    // MARK: Service

    /// Streamable HTTP for MCP clients: the same tools and resources as `seek mcp`.
    /// On a public server it needs `Authorization: Bearer $SEEK_MCP_TOKEN`, and is not there (404)
    /// while no token is set.
    var mcpHandler: Handler {
        { [access] request, _ in
            if access.isPublic {
                guard let token = access.mcpToken else { throw APIError(.notFound, code: "not_found", message: "not found") }
                guard let given = MetricsEndpoint.bearerToken(request.headers[.authorization]),
                      MetricsEndpoint.constantTimeEqual(given, token)
                else {
                    throw APIError(.unauthorized, code: "unauthorized", message: "POST /mcp needs Authorization: Bearer with the instance's MCP token")
                }
            }
            return try await mcp.respond(to: request)
        }
    }

    var openAPI: Handler {
        { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/yaml; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml)))
        }
    }

    var health: Handler {
        { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            let store = session.storeHealth
            let text = "{\"status\": \"ok\", \"store\": {\"kind\": \"\(store.kind)\", \"reachable\": \(store.reachable)}}\n"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
    }
}

/// A strong validator for image bytes: FNV-1a (64-bit) of the bytes, and their length.
enum ImageTag {
    static func of(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "\"\(String(hash, radix: 16))-\(String(data.count, radix: 16))\""
    }
}

/// The routes the server answers, as `METHOD path` pairs in OpenAPI's notation (for tests and tools).
package enum SeekServerRoutes {
    package static var all: [(method: String, path: String)] {
        APIRoutes.table.map { ($0.method.rawValue, $0.path) }
    }
}
