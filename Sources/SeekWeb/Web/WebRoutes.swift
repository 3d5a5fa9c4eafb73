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
/// script and style sheet they load. Every page carries the hooks DESIGN's "Web UI" lists, is written
/// in the reader's language (`WebLanguage`: English or Korean) and, in demo mode, says it is a demo.
struct WebRoutes: Sendable {
    let api: APIRoutes
    /// The searches the demo's recordings answer, by provider id: the banner every page shows in demo
    /// mode. Nil when the server is not a demo.
    var demoQueries: [(provider: String, query: String)]?

    var session: SeekSession { api.session }

    /// The pages and static files, by path.
    static let pages = ["/", "/search", "/items/{id}", "/favorites", "/history", "/trending"]
    static let assets = ["/static/app.js", "/static/app.css"]

    typealias Page = @Sendable (Request, SeekRequestContext, WebReader) async throws -> Response
    typealias Handler = @Sendable (Request, SeekRequestContext) async throws -> Response

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

    /// A page handler whose failures are pages too (a 4xx/5xx with a message in words), never JSON.
    func html(_ page: @escaping Page) -> Handler {
        let deadline = api.deadline
        return { request, context in
            let reader = WebReader(request, isPublic: api.access.isPublic)
            do {
                return try await Deadline.race(deadline) { try await page(request, context, reader) }
            } catch {
                return failure(error, reader: reader, logger: context.logger)
            }
        }
    }

    /// The page for `error`: what happened in the reader's words; the URL, status and body excerpt
    /// (already redacted by the session's sanitising middleware) and any parameter's name go to the log only.
    func failure(_ error: any Error, reader: WebReader, logger: Logger) -> Response {
        let strings = reader.strings
        switch error {
        case let error as RequestError:
            logger.notice("page refused", metadata: ["code": "\(error.code.rawValue)", "cause": "\(error.message)"])
            return errorPage(strings["errorHeading"], Self.words(error, strings: strings), status: .badRequest, reader: reader)
        case let error as APIError:
            logger.notice("page refused", metadata: ["code": "\(error.code)", "cause": "\(error.message)"])
            let message = error.status == .notFound ? strings["pageNotFoundText"] : strings["requestInvalid"]
            return errorPage(error.status == .notFound ? strings["pageNotFound"] : strings["errorHeading"], message, status: error.status, reader: reader)
        case let error as SeekError:
            let api = APIError.from(error)
            let heading = api.status == .notFound ? strings["notFoundHeading"] : strings["sourceFailedHeading"]
            logger.notice("page failed", metadata: ["code": "\(api.code)", "cause": "\(error.description)"])
            let name = error.provider.map { WebView.name($0, session: session, strings: strings) } ?? strings["source"]
            let kinds = error.provider.flatMap { session.descriptor(of: $0)?.kinds } ?? []
            return errorPage(heading, WebView.words(error, name: name, kinds: kinds, strings: strings), status: api.status, reader: reader)
        case _ where isAbortedBody(error):
            // The client went away, or was closed for sending its form too slowly: nobody reads a page,
            // and a slow crowd must not cost one each.
            logger.debug("request body aborted: the client went away, or sent it too slowly")
            return Response(status: .badRequest)
        default:
            logger.error("page failed", metadata: ["error": "\(type(of: error))"])
            return errorPage(strings["brokenHeading"], strings["brokenText"], status: .internalServerError, reader: reader)
        }
    }

    /// A request refused by the session, in words: never the parameter's name or its bounds.
    static func words(_ error: RequestError, strings: WebStrings) -> String {
        switch error.code {
        case .missingParameter: strings["requestEmpty"]
        case .invalidCursor: strings["requestCursor"]
        case .unknownProvider: strings["requestProvider"]
        case .invalidID: strings["requestID"]
        default: strings["requestInvalid"]  // .invalidParameter
        }
    }

    func errorPage(_ heading: String, _ message: String, status: HTTPResponse.Status, reader: WebReader, limited: Bool = false) -> Response {
        render("error", title: heading, context: ["heading": heading, "message": message, "limited": limited], status: status, reader: reader)
    }

    /// The page an unknown path (or a method no page takes) answers: HTML, in the reader's words.
    func notFoundPage(_ request: Request, status: HTTPResponse.Status) -> Response {
        let reader = WebReader(request, isPublic: api.access.isPublic)
        let strings = reader.strings
        let message = status == .methodNotAllowed ? strings["notAllowed"] : strings["pageNotFoundText"]
        return errorPage(strings["pageNotFound"], message, status: status, reader: reader)
    }

    /// `body` rendered into the layout, in the reader's language, with the demo banner in demo mode.
    func render(_ template: String, title: String, page: String? = nil, query: String = "",
                context: [String: Any], status: HTTPResponse.Status = .ok, reader: WebReader) -> Response {
        let strings = reader.strings
        var context = context
        context["t"] = strings.ui
        let body = WebTemplates.library.render(context, withTemplate: template) ?? ""
        let name = page ?? template
        let layout: [String: Any] = [
            "title": title, "page": name, "query": query, "body": body, "version": SeekVersion.current,
            "navTrending": name == "trending", "navFavorites": name == "favorites", "navHistory": name == "history",
            "t": strings.ui, "lang": strings.code, "stringsJSON": strings.scriptJSON,
            "languages": WebStrings.supported.map { language in
                ["code": language.code, "name": language.name, "href": reader.href(language: language.code),
                 "current": language.code == strings.code] as [String: Any]
            },
            "demo": WebView.orFalse(demoBanner(strings)),
        ]
        let html = WebTemplates.library.render(layout, withTemplate: "layout") ?? ""
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.vary] = "Accept-Language, Cookie"
        headers[.contentLanguage] = strings.code
        if reader.remember { headers[values: .setCookie].append(WebLanguage.setCookie(strings.code)) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The demo banner's recorded searches, each once, with the sources that answer it.
    func demoBanner(_ strings: WebStrings) -> [String: Any]? {
        guard let demoQueries else { return nil }
        var order: [String] = []
        var sources: [String: [String]] = [:]
        for (provider, query) in demoQueries {
            if sources[query] == nil { order.append(query) }
            let name = WebView.name(provider, session: session, strings: strings)
            if sources[query]?.contains(name) != true { sources[query, default: []].append(name) }
        }
        let queries: [[String: Any]] = order.map { query in
            ["query": query, "href": WebView.searchHref(query), "sources": (sources[query] ?? []).joined(separator: ", ")]
        }
        return ["queries": queries, "hasQueries": !queries.isEmpty]
    }

    // MARK: Pages

    var home: Page {
        { _, context, reader in
            let entries = (try? await history(context.owner)) ?? []
            let recent: [[String: Any]] = entries.prefix(8).map { ["query": $0.query, "href": WebView.searchHref($0.query)] }
            return render("home", title: reader.strings["searchButton"], context: ["recent": recent, "hasRecent": !recent.isEmpty], reader: reader)
        }
    }

    /// `/search?q=`: the merged results of every provider, rendered here; with `stream=1` (what the
    /// script asks for) a page whose results arrive as each provider answers.
    var search: Page {
        { request, requestContext, reader in
            let strings = reader.strings
            let parameters = Parameters(request)
            guard let query = parameters.text("q") else {
                return Response(status: .seeOther, headers: [.location: "/"])
            }
            // One call: the request checked, the favourites read and, unless the page streams, the search run.
            let resultsPage = try await session.resultsPage(
                try parameters.searchQuery(owner: requestContext.owner), streaming: try parameters.flag("stream"))
            let options = resultsPage.checked.options
            let providers = parameters.text("providers") ?? ""
            let favorites = resultsPage.favorites
            var context: [String: Any] = [
                "query": query, "providers": providers, "favoriteIDs": favorites.map(\.description).sorted().joined(separator: " "),
                "resultsFor": strings.format("resultsFor", query), "noResultsFor": strings.format("noResultsFor", query),
                "noneAnsweredFor": strings.format("noneAnsweredFor", query),
                "group": options.grouping.rawValue, "groupEdition": options.grouping == .edition,
            ]
            guard let answer = resultsPage.answer else {
                context["outcomes"] = resultsPage.pending.map { WebView.pending($0, session: session, strings: strings) }
                context["results"] = [[String: Any]]()
                context["stream"] = "1"
                context["next"] = ""
                context["countText"] = strings["searching"]
                context["allFailed"] = false
                context["empty"] = false
                context["nextHref"] = false
                return render("search", title: query, query: query, context: context, reader: reader)
            }
            let result = answer.result
            let (next, suspensions) = (resultsPage.next, resultsPage.suspensions)
            context["outcomes"] = result.outcomes.map { WebView.outcome($0, suspensions: suspensions, session: session, strings: strings) }
            context["results"] = result.results.map { WebView.result($0, favorites: favorites, session: session, strings: strings) }
            context["stream"] = "0"
            context["next"] = next ?? ""
            context["countText"] = WebView.count(result.results.count, page: result.page, strings: strings)
            // The session's verdict: "none answered" is the notice; no results from those that did, the empty state.
            context["allFailed"] = answer.verdict == .noneAnswered
            context["empty"] = result.results.isEmpty && !result.outcomes.isEmpty && answer.verdict != .noneAnswered
            context["nextHref"] = WebView.orFalse(next.map { WebView.searchHref(query, providers: providers, cursor: $0, group: options.grouping) })
            return render("search", title: query, query: query, context: context, reader: reader)
        }
    }

    /// `/items/{provider:id}`: the record, merged with the other sources the result page passed
    /// (`also=`), each field's provider named.
    var detail: Page {
        { request, context, reader in
            let strings = reader.strings
            let parameters = Parameters(request)
            // The item's record merged with the other sources' (at most 8, usually 1, asked one after
            // another); a source that fails is named, not fatal.
            let merged = try await session.mergedDetail(
                try parameters.itemQuery(context.parameters.get("id")), also: parameters.text("also"),
                grouping: try parameters.grouping(), owner: context.owner)
            let failures = merged.failures.map { failure in
                context.logger.notice("a merged source failed", metadata: ["id": "\(failure.id)", "cause": "\(failure.error.description)"])
                return WebView.words(failure.error, name: WebView.name(failure.id.provider, session: session, strings: strings), strings: strings)
            }
            var page = WebView.detail(id: merged.id, merged: merged.detail, provenance: merged.provenance, details: merged.sources,
                                      failures: failures, favorite: merged.favorite, session: session, strings: strings)
            let joins = JoinExplanation.sentences(merged.joins, session: session, strings: strings)
            page["joins"] = joins
            page["hasJoins"] = !joins.isEmpty
            return render("detail", title: merged.detail.item.title, context: page, reader: reader)
        }
    }

    var favorites: Page {
        { _, context, reader in
            let entries = try await session.favorites(of: context.owner)
            let results = entries.map { WebView.favorite($0, session: session, strings: reader.strings) }
            return render("favorites", title: reader.strings["favorites"], context: ["results": results], reader: reader)
        }
    }

    var history: Page {
        { _, context, reader in
            let strings = reader.strings
            let entries = try await history(context.owner)
            let rows: [[String: Any]] = entries.map { entry in
                [
                    "query": entry.query, "href": WebView.searchHref(entry.query),
                    "providers": entry.providers.isEmpty || Set(entry.providers) == Set(session.providerIDs) ? strings["allSources"]
                        : entry.providers.map { WebView.name($0, session: session, strings: strings) }.joined(separator: ", "),
                    "when": entry.searchedAt.formatted(.iso8601),
                    "whenText": entry.searchedAt.formatted(Date.FormatStyle(date: .abbreviated, time: .shortened).locale(Locale(identifier: strings.code))),
                ]
            }
            return render("history", title: strings["history"], context: ["entries": rows, "hasEntries": !rows.isEmpty], reader: reader)
        }
    }

    /// GIPHY's trending GIFs and Aladin's bestsellers, as a grid.
    var trending: Page {
        { request, context, reader in
            let strings = reader.strings
            let trending = try await session.trendingPage(try Parameters(request).fanOutQuery(limit: 24), owner: context.owner)
            let result = trending.answer.result
            return render("trending", title: strings["trending"], context: [
                "outcomes": result.outcomes.map { WebView.outcome($0, suspensions: trending.suspensions, session: session, strings: strings) },
                "results": result.results.map { WebView.result($0, favorites: trending.favorites, session: session, strings: strings) },
            ], reader: reader)
        }
    }

    /// `owner`'s recent searches (none for a visitor without a valid cookie).
    func history(_ owner: StateOwner?) async throws -> [SearchHistoryEntry] {
        try await session.history(of: owner)
    }

    /// The page a visitor past their search budget sees: what happened and when to try again.
    func limitedPage(retryAfter seconds: Int, query: String, request: Request) -> Response {
        let reader = WebReader(request, isPublic: api.access.isPublic)
        let strings = reader.strings
        return render(
            "error", title: strings["tooManySearches"], query: query,
            context: ["heading": strings["tooManySearches"], "limited": true,
                      "message": seconds == 1 ? strings["tooManySearchesText1"] : strings.format("tooManySearchesText", String(seconds))],
            status: .tooManyRequests, reader: reader)
    }

    /// `POST /favorites/toggle` (a form, so the star works without JavaScript): adds or removes the
    /// item `id` names, then goes back to the page it came from (on this instance), else to the item.
    var toggleFavorite: Page {
        { request, context, _ in
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

/// Who a page is for: the language it is written in (and whether the answer remembers it in a
/// cookie: the reader chose it with `?lang=`), and the request's own query, for the language switch.
struct WebReader: Sendable {
    let strings: WebStrings
    let remember: Bool
    /// The request's query, raw.
    let query: String?

    /// `isPublic`: the instance serves visitors, and its library is its own catalogue (`speakForTheInstance`).
    init(_ request: Request, isPublic: Bool = false) {
        var (chosen, remember) = WebLanguage.choose(request)
        if isPublic { chosen.speakForTheInstance() }
        (strings, self.remember) = (chosen, remember)
        query = request.uri.query
    }

    /// This page in `language`: its own query with `lang` set (a relative reference, so it stays
    /// under whatever path the page is served at).
    func href(language: String) -> String {
        let kept = (query ?? "").fields(separatedBy: "&").filter { !$0.hasPrefix("lang=") && $0 != "lang" }.map(String.init)
        return "?" + (kept + ["lang=\(language)"]).joined(separator: "&")
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
