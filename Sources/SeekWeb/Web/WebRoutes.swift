import Foundation
import Hummingbird
import Logging
import Mustache
import NIOCore
import SeekAccess
import SeekCore
import SeekRuntime
import SeekStore

/// The web UI of `seek serve`: pages rendered on the server (they work without JavaScript), the
/// script and style sheet they load. Every page carries the hooks DESIGN's "Web UI" lists.
struct WebRoutes: Sendable {
    let api: APIRoutes

    var session: SeekSession { api.session }

    /// The pages and static files, by path.
    static let pages = ["/", "/search", "/items/{id}", "/favorites", "/history", "/trending"]
    static let assets = ["/static/app.js", "/static/app.css"]

    typealias Page = @Sendable (Request, SeekRequestContext) async throws -> Response

    func register(on router: Router<SeekRequestContext>) {
        router.get("/", use: html(home))
        router.get("/search", use: html(search))
        router.get("/items/:id", use: html(detail))
        router.get("/favorites", use: html(favorites))
        router.get("/history", use: html(history))
        router.get("/trending", use: html(trending))
        router.post("/favorites/toggle", use: html(toggleFavorite))
        router.get("/static/app.js") { _, _ in Self.asset(WebAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/static/app.css") { _, _ in Self.asset(WebAssets.styles, type: "text/css; charset=utf-8") }
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A page handler whose failures are pages too (a 4xx/5xx with a message), never JSON.
    func html(_ page: @escaping Page) -> Page {
        let deadline = api.deadline
        let session = session
        return { request, context in
            do {
                return try await Deadline.race(deadline) { try await page(request, context) }
            } catch let error as RequestError {
                return render("error", title: "Error", context: ["heading": "That did not work", "message": error.message], status: .badRequest)
            } catch let error as APIError {
                return render("error", title: "Error", context: ["heading": "That did not work", "message": error.message], status: error.status)
            } catch let error as SeekError {
                // The reader gets what happened in words; the URL, status and body excerpt (already
                // redacted by the session's sanitising middleware) go to the log only.
                let api = APIError.from(error)
                let heading = api.status == .notFound ? "Not found" : "A provider did not answer"
                context.logger.notice("page failed", metadata: ["code": "\(api.code)", "cause": "\(error.description)"])
                let message = session.inWords(error)
                return render("error", title: heading, context: ["heading": heading, "message": message], status: api.status)
            } catch {
                context.logger.error("page failed", metadata: ["error": "\(type(of: error))"])
                return render("error", title: "Error", context: ["heading": "Something went wrong", "message": "The page could not be made."],
                              status: .internalServerError)
            }
        }
    }

    /// `body` rendered into the layout.
    func render(_ template: String, title: String, page: String? = nil, query: String = "",
                context: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let body = WebTemplates.library.render(context, withTemplate: template) ?? ""
        let name = page ?? template
        let layout: [String: Any] = [
            "title": title, "page": name, "query": query, "body": body, "version": SeekVersion.current,
            "navTrending": name == "trending", "navFavorites": name == "favorites", "navHistory": name == "history",
        ]
        let html = WebTemplates.library.render(layout, withTemplate: "layout") ?? ""
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    // MARK: Pages

    var home: Page {
        { _, context in
            let entries = (try? await history(context.owner)) ?? []
            let recent: [[String: Any]] = entries.prefix(8).map { ["query": $0.query, "href": WebView.searchHref($0.query)] }
            return render("home", title: "Search", context: ["recent": recent, "hasRecent": !recent.isEmpty])
        }
    }

    /// `/search?q=`: the merged results of every provider, rendered here; with `stream=1` (what the
    /// script asks for) a page whose results arrive as each provider answers.
    var search: Page {
        { request, requestContext in
            let parameters = Parameters(request)
            guard let query = parameters.text("q") else {
                return Response(status: .seeOther, headers: [.location: "/"])
            }
            let checked = try await api.checkedSearch(request, requestContext)
            let options = checked.options
            let providers = parameters.text("providers") ?? ""
            let favorites = await favoriteIDs(requestContext.owner)
            var context: [String: Any] = ["query": query, "providers": providers, "favoriteIDs": favorites.map(\.description).sorted().joined(separator: " ")]
            if try parameters.flag("stream"), options.cursor == nil {
                let ids = options.providers ?? session.registry.providers.filter { $0.descriptor.capabilities.contains(.search) }.map(\.descriptor.id)
                context["outcomes"] = ids.map { WebView.pending($0, session: session) }
                context["results"] = [[String: Any]]()
                context["stream"] = "1"
                context["next"] = ""
                context["countText"] = "Searching…"
                context["allFailed"] = false
                context["empty"] = false
                context["nextHref"] = false
                return render("search", title: query, query: query, context: context)
            }
            let result = try await session.search(checked).result
            let next = await api.token(for: result.next)
            let suspensions = await session.suspensions(of: result.outcomes.filter { $0.status == .suspended }.map(\.provider))
            context["outcomes"] = result.outcomes.map { WebView.outcome($0, suspensions: suspensions, session: session) }
            context["results"] = result.results.map { WebView.result($0, favorites: favorites, session: session) }
            context["stream"] = "0"
            context["next"] = next ?? ""
            context["countText"] = WebView.count(result.results.count, page: result.page)
            context["allFailed"] = !result.outcomes.isEmpty && !result.anyAnswered
            context["empty"] = result.results.isEmpty && result.anyAnswered
            context["nextHref"] = WebView.orFalse(next.map { WebView.searchHref(query, providers: providers, cursor: $0) })
            return render("search", title: query, query: query, context: context)
        }
    }

    /// `/items/{provider:id}`: the record, merged with the other sources the result page passed
    /// (`also=`), each field's provider named.
    var detail: Page {
        { request, context in
            let parameters = Parameters(request)
            let (id, options) = try session.checked(try parameters.itemQuery(context.parameters.get("id")))
            let others = (parameters.text("also") ?? "").fields(separatedBy: ",").prefix(8)
                .compactMap { ItemID(parsing: String($0)) }
                .filter { $0 != id && session.registry.provider($0.provider) != nil }
            let first = try await session.engine.detail(id, options: options)
            var details: [(provider: String, detail: ItemDetail)] = [(id.provider, first)]
            var failures: [String] = []
            // The other sources' records, one after another (at most 8, usually 1); a source that
            // fails is named, not fatal.
            for other in others {
                do {
                    details.append((other.provider, try await session.engine.detail(other, options: options)))
                } catch {
                    let failure = SeekError.wrap(error, provider: other.provider)
                    context.logger.notice("a merged source failed", metadata: ["id": "\(other)", "cause": "\(failure.description)"])
                    failures.append(session.inWords(failure))
                }
            }
            let merged = ResultMerger.mergeDetails(details) ?? (detail: first, provenance: [:])
            let favorite = await context.owner.asyncMap { try? await session.userState.favorites(of: $0).favorite(id) } != nil
            let page = WebView.detail(id: id, merged: merged.detail, provenance: merged.provenance, details: details,
                                      failures: failures, favorite: favorite, session: session)
            return render("detail", title: merged.detail.item.title, context: page)
        }
    }

    var favorites: Page {
        { _, context in
            let entries = try await session.favorites(of: context.owner)
            let results = entries.map { WebView.favorite($0, session: session) }
            return render("favorites", title: "Favourites", context: ["results": results])
        }
    }

    var history: Page {
        { _, context in
            let entries = try await history(context.owner)
            let rows: [[String: Any]] = entries.map { entry in
                [
                    "query": entry.query, "href": WebView.searchHref(entry.query),
                    "providers": entry.providers.isEmpty ? "all providers" : entry.providers.joined(separator: ", "),
                    "when": entry.searchedAt.formatted(.iso8601),
                    "whenText": entry.searchedAt.formatted(date: .abbreviated, time: .shortened),
                ]
            }
            return render("history", title: "History", context: ["entries": rows, "hasEntries": !rows.isEmpty])
        }
    }

    /// GIPHY's trending GIFs and Aladin's bestsellers, as a grid.
    var trending: Page {
        { request, context in
            let result = try await session.trending(try Parameters(request).fanOutQuery(limit: 24)).result
            let favorites = await favoriteIDs(context.owner)
            let suspensions = await session.suspensions(of: result.outcomes.filter { $0.status == .suspended }.map(\.provider))
            return render("trending", title: "Trending", context: [
                "outcomes": result.outcomes.map { WebView.outcome($0, suspensions: suspensions, session: session) },
                "results": result.results.map { WebView.result($0, favorites: favorites, session: session) },
            ])
        }
    }

    /// The ids of `owner`'s favourites (none for a visitor without a valid cookie).
    func favoriteIDs(_ owner: StateOwner?) async -> Set<ItemID> {
        Set(((try? await session.favorites(of: owner)) ?? []).map(\.id))
    }

    /// `owner`'s recent searches (none for a visitor without a valid cookie).
    func history(_ owner: StateOwner?) async throws -> [SearchHistoryEntry] {
        try await session.history(of: owner)
    }

    /// The page a visitor past their search budget sees: what happened and when to try again.
    func limitedPage(retryAfter seconds: Int, query: String) -> Response {
        render(
            "error", title: "Too many searches", query: query,
            context: ["heading": "Too many searches", "limited": true,
                      "message": "This instance limits how often one address may search. Try again in \(seconds) seconds."],
            status: .tooManyRequests)
    }

    /// `POST /favorites/toggle` (a form, so the star works without JavaScript): adds or removes the
    /// item `id` names, then goes back to the page it came from (on this instance), else to the item.
    var toggleFavorite: Page {
        { request, context in
            let form = try await FormFields(request)
            let query = try Parameters(request).itemQuery(form["id"])
            let id = try session.checked(query).id
            if try await session.removeFavorite(query.id, owner: context.writer).removed == false {
                _ = try await session.addFavorite(query, owner: context.writer)
            }
            let back = Self.localPath(request.headers[.referer], ownOrigin: api.access.ownOrigin(of: request, context: context))
            return Response(status: .seeOther, headers: [.location: back ?? "/items/\(WebView.path(id))"])
        }
    }
}

extension WebRoutes {
    /// The path and query of `referer` when it is a page of this instance; nil otherwise (never a
    /// redirect to another site).
    static func localPath(_ referer: String?, ownOrigin: String) -> String? {
        guard let referer, referer.utf8.count <= 4096, let url = URLComponents(string: referer),
              let scheme = url.scheme, let host = url.host else { return nil }
        let origin = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        guard SameOrigin.same(origin, ownOrigin) else { return nil }
        let path = url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
        guard path.hasPrefix("/"), !path.hasPrefix("//") else { return nil }
        return path + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}

/// The fields of a small `application/x-www-form-urlencoded` body (at most 4 KB).
struct FormFields: Sendable {
    private let fields: [String: String]

    init(_ request: Request) async throws {
        var request = request
        let body = try await request.collectBody(upTo: 4096)
        let text = String(buffer: body)
        var fields: [String: String] = [:]
        for pair in text.fields(separatedBy: "&") {
            let parts = pair.fields(separatedBy: "=", maxSplits: 1, keepingEmpty: true)
            guard let first = parts.first else { continue }
            let name = Self.decode(first)
            if fields[name] == nil { fields[name] = parts.count > 1 ? Self.decode(parts[1]) : "" }
        }
        self.fields = fields
    }

    subscript(_ name: String) -> String? { fields[name] }

    private static func decode(_ text: Substring) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}

extension Optional {
    /// `transform` of the wrapped value, awaited; nil when there is none.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
