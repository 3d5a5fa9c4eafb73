import Foundation
import Hummingbird
import Logging
import Mustache
import NIOCore
import SeekCore
import SeekSession
import SeekStore

/// The web UI of `seek serve`: pages rendered on the server (they work without JavaScript), the
/// script and style sheet they load. Every page carries the hooks DESIGN's "Web UI" lists.
struct WebRoutes: Sendable {
    let api: APIRoutes

    var session: SeekSession { api.session }

    /// The pages and static files, by path.
    static let pages = ["/", "/search", "/items/{id}", "/favorites", "/history", "/trending"]
    static let assets = ["/static/app.js", "/static/app.css"]

    typealias Page = @Sendable (Request, BasicRequestContext) async throws -> Response

    func register(on router: Router<BasicRequestContext>) {
        router.get("/", use: html(home))
        router.get("/search", use: html(search))
        router.get("/items/:id", use: html(detail))
        router.get("/favorites", use: html(favorites))
        router.get("/history", use: html(history))
        router.get("/trending", use: html(trending))
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
        return { request, context in
            do {
                return try await Deadline.race(deadline) { try await page(request, context) }
            } catch let error as APIError {
                return render("error", title: "Error", context: ["heading": "That did not work", "message": error.message], status: error.status)
            } catch let error as SeekError {
                let api = APIError.from(error)
                let heading = api.status == .notFound ? "Not found" : "A provider did not answer"
                return render("error", title: heading, context: ["heading": heading, "message": error.description], status: api.status)
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
        { _, _ in
            let entries = (try? await session.userState.history.entries()) ?? []
            let recent: [[String: Any]] = entries.prefix(8).map { ["query": $0.query, "href": WebView.searchHref($0.query)] }
            return render("home", title: "Search", context: ["recent": recent, "hasRecent": !recent.isEmpty])
        }
    }

    /// `/search?q=`: the merged results of every provider, rendered here; with `stream=1` (what the
    /// script asks for) a page whose results arrive as each provider answers.
    var search: Page {
        { request, _ in
            let parameters = Parameters(request)
            guard let query = parameters.text("q") else {
                return Response(status: .seeOther, headers: [.location: "/"])
            }
            let (options, _) = try await api.searchOptions(request)
            let providers = parameters.text("providers") ?? ""
            let favorites = await favoriteIDs()
            var context: [String: Any] = ["query": query, "providers": providers]
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
            let result = try await session.engine.search(options)
            try? await session.recordHistory(of: result)
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
            let id = try itemID(context.parameters.get("id"), session: session)
            let parameters = Parameters(request)
            let options = try parameters.callOptions()
            let others = (parameters.text("also") ?? "").split(separator: ",").prefix(8)
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
                    failures.append("\(other): \((error as? SeekError)?.cause ?? "failed")")
                }
            }
            let merged = ResultMerger.mergeDetails(details) ?? (detail: first, provenance: [:])
            let favorite = (try? await session.userState.favorites.favorite(id)) != nil
            let page = WebView.detail(id: id, merged: merged.detail, provenance: merged.provenance, details: details,
                                      failures: failures, favorite: favorite, session: session)
            return render("detail", title: merged.detail.item.title, context: page)
        }
    }

    var favorites: Page {
        { _, _ in
            let entries = try await session.userState.favorites.all()
            let results = entries.map { WebView.favorite($0, session: session) }
            return render("favorites", title: "Favourites", context: ["results": results])
        }
    }

    var history: Page {
        { _, _ in
            let entries = try await session.userState.history.entries()
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
        { request, _ in
            let parameters = Parameters(request)
            let limit = try parameters.integer("limit", in: 1...100, default: 24)
            let result = try await session.trending(try parameters.selection(session), limit: limit, options: try parameters.callOptions())
            let favorites = await favoriteIDs()
            let suspensions = await session.suspensions(of: result.outcomes.filter { $0.status == .suspended }.map(\.provider))
            return render("trending", title: "Trending", context: [
                "outcomes": result.outcomes.map { WebView.outcome($0, suspensions: suspensions, session: session) },
                "results": result.results.map { WebView.result($0, favorites: favorites, session: session) },
            ])
        }
    }

    func favoriteIDs() async -> Set<ItemID> {
        Set(((try? await session.userState.favorites.all()) ?? []).map(\.id))
    }
}
