import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SeekCore
import SeekKit

/// The path an instance is served under (DESIGN, "Integrations"): `SEEK_BASE_PATH=/books` or
/// `--base-path /books` serves every page, asset, API route, stream, image and OpenSearch URL under
/// `/books/`, for a proxy that passes the path on as it is (nginx: `location /books/ { proxy_pass
/// http://127.0.0.1:8080; }`, no URI after the address).
///
/// The routes stay where they are: `BasePathResponder` takes the prefix off each request before the
/// router sees it, and puts it back on what the answer names — a redirect's `Location`, and the
/// site's own links (`href`, `src`, `action`, `formaction` starting with one `/`) in an HTML page. The
/// script finds the prefix from its own address (`import.meta.url`).
package struct BasePath: Sendable, Hashable, CustomStringConvertible {
    /// `""` (the root) or the prefix without a trailing slash: `/books`, `/apps/seek`.
    package let path: String

    package static let root = BasePath(checked: "")
    package static let variable = "SEEK_BASE_PATH"

    private init(checked path: String) { self.path = path }

    /// `text` as a base path: `/` or empty is the root; otherwise segments of letters, digits and
    /// `-._~`, a leading slash, a trailing one dropped. Anything else (a query, `..`, `//`, spaces,
    /// percent signs) is a configuration error naming the value.
    package init(parsing text: String) throws {
        var trimmed = text.trimmed()
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed.isEmpty || trimmed == "/" {
            self.path = ""
            return
        }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".unicodeScalars)
        let segments = trimmed.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard trimmed.hasPrefix("/"), !segments.isEmpty, trimmed.utf8.count <= 200,
              segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && $0.unicodeScalars.allSatisfy(allowed.contains) })
        else {
            throw SeekError(
                .configuration,
                detail: "the base path must be like /books (a leading slash, then letters, digits and -._~ between slashes), not \(text.prefix(60))")
        }
        self.path = trimmed
    }

    /// The base path `seek serve` runs with: `--base-path` when given, else `SEEK_BASE_PATH`, else the root.
    package static func resolve(flag: String?, settings: Settings) throws -> BasePath {
        guard let text = flag ?? settings.string(variable) else { return .root }
        return try BasePath(parsing: text)
    }

    package var isRoot: Bool { path.isEmpty }

    package var description: String { isRoot ? "/" : path + "/" }

    /// The path the routes know for `requested` (`/books/search` → `/search`, `/books/` → `/`), or nil
    /// when it is outside the base path.
    func routePath(_ requested: String) -> String? {
        if isRoot { return requested }
        guard requested.hasPrefix(path + "/") else { return nil }
        return String(requested.dropFirst(path.count))
    }

    /// `location` with the prefix, when it is a path of this site (one leading `/`) not already under it.
    func location(_ location: String) -> String {
        guard !isRoot, Self.isSitePath(location[...]), !location.hasPrefix(path + "/"), location != path else { return location }
        return path + location
    }

    static func isSitePath(_ text: Substring) -> Bool {
        text.hasPrefix("/") && !text.hasPrefix("//") && !text.hasPrefix("/\\")
    }

    /// The attributes whose values are the site's own links in Seek's pages.
    static let linkAttributes = ["href=\"", "src=\"", "action=\"", "formaction=\""]

    /// `html` with the prefix before every site path an attribute of `linkAttributes` names
    /// (`href="/search?q=x"` → `href="/books/search?q=x"`); other URLs (`https://…`, `//host`, `#main`,
    /// relative ones) and text are left as they are.
    func rewritingLinks(_ html: String) -> String {
        guard !isRoot else { return html }
        var output = ""
        output.reserveCapacity(html.utf8.count + 256)
        var rest = html[...]
        while let quote = rest.firstRange(of: "=\"") {
            let before = rest[..<quote.upperBound]
            output += before
            rest = rest[quote.upperBound...]
            let isLink = Self.linkAttributes.contains { attribute in
                before.hasSuffix(attribute) && before.dropLast(attribute.count).last.map { $0 == " " || $0 == "\n" || $0 == "\t" } == true
            }
            if isLink, Self.isSitePath(rest) { output += path }
        }
        output += rest
        return output
    }
}

/// Serves `router` under `basePath`: a request outside it is 404 (`/books` alone is sent to `/books/`);
/// inside it, the router sees the path without the prefix, and the answer's redirect and page links
/// get it back.
package struct BasePathRouter<Base: HTTPResponderBuilder>: HTTPResponderBuilder where Base.Responder.Context == SeekRequestContext {
    let basePath: BasePath
    let router: Base

    package init(basePath: BasePath, router: Base) {
        self.basePath = basePath
        self.router = router
    }

    package func buildResponder() -> BasePathResponder<Base.Responder> {
        BasePathResponder(basePath: basePath, base: router.buildResponder())
    }
}

package struct BasePathResponder<Base: HTTPResponder>: HTTPResponder where Base.Context == SeekRequestContext {
    let basePath: BasePath
    let base: Base

    package func respond(to request: Request, context: SeekRequestContext) async throws -> Response {
        guard !basePath.isRoot else { return try await base.respond(to: request, context: context) }
        let requested = request.uri.path
        guard let routePath = basePath.routePath(requested) else {
            if requested == basePath.path {
                let query = request.uri.query.map { "?" + $0 } ?? ""
                return Response(status: .permanentRedirect, headers: [.location: basePath.path + "/" + query])
            }
            return APIResponse.json(ErrorDocument(code: "not_found", message: "not found: this instance is served under \(basePath)"), status: .notFound)
        }
        var head = request.head
        head.path = routePath + (request.uri.query.map { "?" + $0 } ?? "")
        var response = try await base.respond(to: Request(head: head, body: request.body), context: context)
        if let location = response.headers[.location] {
            response.headers[.location] = basePath.location(location)
        }
        let type = response.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("text/html") {
            response = try await rewritten(response) { basePath.rewritingLinks($0) }
        } else if type.hasPrefix("application/yaml"), routePath == "/openapi.yaml" {
            // The API document's one server: the base path, so clients reading it call the right URLs.
            response = try await rewritten(response) { $0.replacingOccurrences(of: "servers:\n  - url: /\n", with: "servers:\n  - url: \(basePath.path)/\n") }
        }
        return response
    }

    /// `response` with its body (a page, never a stream) read whole and changed by `change`.
    func rewritten(_ response: Response, _ change: (String) -> String) async throws -> Response {
        var response = response
        let collected = CollectedBody()
        try await response.body.write(BodyCollector(into: collected))
        let text = change(String(buffer: collected.buffer))
        response.body = ResponseBody(byteBuffer: ByteBuffer(string: text))
        response.headers[.contentLength] = nil
        return response
    }
}

/// What a response body wrote, for `BasePathResponder.rewritten` (one task writes it, then reads it).
private final class CollectedBody {
    var buffer = ByteBuffer()
}

/// Keeps what a response body writes in a `CollectedBody`.
private struct BodyCollector: ResponseBodyWriter {
    let into: CollectedBody

    func write(_ part: ByteBuffer) async throws {
        var part = part
        into.buffer.writeBuffer(&part)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
