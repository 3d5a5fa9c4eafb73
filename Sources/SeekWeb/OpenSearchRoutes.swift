import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SeekCore
import SeekKit
import SeekRuntime

/// The browser's search box (DESIGN, "Integrations"): `GET /opensearch.xml`, an OpenSearch 1.1
/// description naming the results page, the suggestions URL and the instance's icon;
/// `GET /suggest.json?q=` answering suggestions in the OpenSearch form `["prefix", ["…", …]]`
/// (`application/x-suggestions+json`); and `GET /icon.png`, the icon.
struct OpenSearchRoutes: Sendable {
    static let descriptionPath = "/opensearch.xml"
    static let suggestionsPath = "/suggest.json"
    static let iconPath = "/icon.png"
    /// How many suggestions the box shows at most.
    static let suggestionLimit = 8

    let session: SeekSession
    let access: ServerAccess
    /// The path the instance is served under (`/books`), or "".
    let basePath: String

    init(session: SeekSession, access: ServerAccess, basePath: String = "") {
        self.session = session
        self.access = access
        self.basePath = basePath
    }

    func register(on router: Router<SeekRequestContext>) {
        router.get(RouterPath(Self.descriptionPath)) { request, context in description(request, context) }
        router.get(RouterPath(Self.suggestionsPath)) { request, _ in await suggestions(request) }
        router.get(RouterPath(Self.iconPath)) { _, _ in Self.icon() }
    }

    /// The description, its URLs absolute (as OpenSearch needs them) at the origin the request reached.
    func description(_ request: Request, _ context: SeekRequestContext) -> Response {
        let origin = access.ownOrigin(of: request, context: context)
        let base = GeneratedCover.escape(origin + basePath)
        let host = request.head.authority ?? origin
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/" xmlns:moz="http://www.mozilla.org/2006/browser/search/">
              <ShortName>Seek</ShortName>
              <Description>\(GeneratedCover.escape("Search books with Seek at \(host)"))</Description>
              <InputEncoding>UTF-8</InputEncoding>
              <OutputEncoding>UTF-8</OutputEncoding>
              <Image width="32" height="32" type="image/png">\(base)\(Self.iconPath)</Image>
              <Url type="text/html" method="get" template="\(base)/search?q={searchTerms}"/>
              <Url type="application/x-suggestions+json" method="get" template="\(base)\(Self.suggestionsPath)?q={searchTerms}"/>
              <Url type="application/opensearchdescription+xml" rel="self" template="\(base)\(Self.descriptionPath)"/>
              <moz:SearchForm>\(base)/</moz:SearchForm>
            </OpenSearchDescription>

            """
        var headers = HTTPFields()
        headers[.contentType] = "application/opensearchdescription+xml; charset=utf-8"
        headers[.cacheControl] = "public, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
    }

    /// `[prefix, [suggestions]]`: empty for an empty prefix or when no source could suggest (a browser
    /// shows nothing then, never an error).
    func suggestions(_ request: Request) async -> Response {
        let prefix = Parameters(request).values["q"] ?? ""
        var found: [String] = []
        if !prefix.trimmed().isEmpty {
            if let (answer, _) = try? await session.suggest(FanOutQuery(text: prefix, limit: Self.suggestionLimit)) {
                var seen = Set<String>()
                found = answer.suggestions.filter { seen.insert($0.lowercased()).inserted }.prefix(Self.suggestionLimit).map { $0 }
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/x-suggestions+json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let text = JSONText.compact(SuggestionsJSON(prefix: prefix, suggestions: found))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    static func icon() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "image/png"
        headers[.cacheControl] = "public, max-age=86400"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: iconPNG)))
    }

    /// Seek's icon: a white magnifier on blue, 32 × 32 PNG (288 bytes).
    static let iconPNG: [UInt8] = Array(Data(base64Encoded: """
        iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAA50lEQVR42u1XyRGDMAy0d2gjKSnpBmpIuoGSoBDyYsZo5EO2LH+yP4zRrg7LyDuC\
        x+tzuo44tsWHz7Ak5zhgSc5xwZqcivAjyENMks37OrPrz/e3WgBayXPvcsimQGpcGo1JqpgStHifjUBoPOeZZG9RDbR4JvkWWnmtPQlwg/EXAK2iqi1a\
        aBeV2jGkhvZ1Zr2MrQ9rxdIooMRQTTpKhUPDo5jIEhHqPyQcaUq8eh+QRqJLI5KI6NYJS0V0bcVUBCeq+11wkcYK0eQySp4COqtZ4tgWD25gtCK/pc\
        BSRMiF1OhsMZ7/ABOSbv0OaFHLAAAAAElFTkSuQmCC
        """) ?? Data())
}

/// `["prefix", ["…", …]]`, the OpenSearch suggestions form.
struct SuggestionsJSON: JSONWritable {
    let prefix: String
    let suggestions: [String]

    func write(to writer: inout JSONWriter) {
        writer.array { writer in
            writer.element(prefix)
            writer.element(suggestions)
        }
    }
}
