import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SeekCore
import SeekKit
import SeekRuntime

/// Seek as other tools' source (DESIGN, "Integrations"): Audiobookshelf's custom metadata provider at
/// `GET /integrations/audiobookshelf/search`. The session runs the search; this only reads the
/// request and writes Audiobookshelf's document.
///
/// The contract (`fixtures/audiobookshelf/custom-metadata-provider-specification.yaml`, and
/// Audiobookshelf's client): `query` (the title, required), `author` and `isbn` (optional); the
/// `Authorization` header carries the value the user typed, verbatim. The answer is
/// `{"matches": [BookMetadata]}`, errors `{"error": "…"}`. Audiobookshelf treats any error status as no
/// matches, but a 200 without `matches` as a broken provider, so a search whose sources all failed is
/// `{"matches": []}`.
struct IntegrationRoutes: Sendable {
    static let tokenVariable = "SEEK_AUDIOBOOKSHELF_TOKEN"
    static let audiobookshelfPath = "/integrations/audiobookshelf/search"
    /// Audiobookshelf waits 10 seconds for an answer; each source gets at most this, so the merged
    /// answer comes with what did answer.
    static let sourceTimeout: Duration = .seconds(8)
    /// The most matches a search answers (Audiobookshelf lists them all for the user to pick from).
    static let matchLimit = 10

    let session: SeekSession
    let access: ServerAccess
    /// The value `Authorization` must be, whole; nil when the variable is unset or empty.
    let token: String?
    /// The path the instance is served under (`/books`), or "" (for the absolute cover URLs).
    let basePath: String
    let logger: Logger

    init(session: SeekSession, access: ServerAccess, basePath: String = "", logger: Logger) {
        self.session = session
        self.access = access
        self.token = session.settings.string(Self.tokenVariable).flatMap { $0.isEmpty ? nil : $0 }
        self.basePath = basePath
        self.logger = logger
    }

    func register(on router: Router<SeekRequestContext>) {
        router.get(RouterPath(Self.audiobookshelfPath)) { request, context in await audiobookshelf(request, context) }
    }

    // MARK: Audiobookshelf

    /// The route's answer: 404 on a public server without a token (the route is not there); 401 for a
    /// missing or wrong `Authorization` when a token is set; 400 without a `query` parameter; else the
    /// matches (none for an empty query).
    func audiobookshelf(_ request: Request, _ context: SeekRequestContext) async -> Response {
        if let token {
            guard let given = request.headers[.authorization], MetricsEndpoint.constantTimeEqual(given, token) else {
                return Self.error(.unauthorized, "the Authorization header must be the instance's \(Self.tokenVariable)")
            }
        } else if access.isPublic {
            return APIResponse.json(ErrorDocument(code: "not_found", message: "not found"), status: .notFound)
        }
        let parameters = Parameters(request)
        guard parameters.values["query"] != nil else { return Self.error(.badRequest, "query is required (the title to match)") }
        // An empty title is a valid request that matches nothing.
        guard let title = parameters.text("query") else { return APIResponse.json(AudiobookshelfMatches(matches: [])) }
        let author = parameters.text("author")
        var texts: [String] = []
        if let isbn = parameters.text("isbn").map(ISBN.clean), let thirteen = ISBN.isValid13(isbn) ? isbn : ISBN.isbn13(from: isbn) {
            texts.append(thirteen)
        }
        texts.append([title, author].compactMap { $0 }.joined(separator: " "))
        let origin = access.ownOrigin(of: request, context: context) + basePath
        for (index, text) in texts.enumerated() {
            do {
                let query = SearchQuery(query: text, limit: Self.matchLimit, timeout: Self.sourceTimeout, owner: nil)
                let result = try await session.search(try await session.check(query)).result
                let books = result.results.filter { $0.item.kind == .book }
                if books.isEmpty, index < texts.count - 1 { continue }
                let matches = books.prefix(Self.matchLimit).map { AudiobookshelfMatch(result: $0, origin: origin) }
                return APIResponse.json(AudiobookshelfMatches(matches: Array(matches)))
            } catch let error as RequestError {
                return Self.error(.badRequest, error.message)
            } catch {
                // The sources failing is no matches to Audiobookshelf; the cause is in the server's log.
                logger.warning("audiobookshelf search failed", metadata: ["error": "\(error)"])
                return APIResponse.json(AudiobookshelfMatches(matches: []))
            }
        }
        return APIResponse.json(AudiobookshelfMatches(matches: []))
    }

    /// `{"error": "message"}`, the contract's error document.
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var response = APIResponse.json(AudiobookshelfError(message: message), status: status)
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "AUTHORIZATION" }
        return response
    }
}

/// `{"matches": [...]}`.
struct AudiobookshelfMatches: JSONWritable {
    let matches: [AudiobookshelfMatch]

    func write(to writer: inout JSONWriter) {
        writer.object { $0.field("matches") { $0.array(matches) { writer, match in match.write(to: &writer) } } }
    }
}

/// One merged row as Audiobookshelf's `BookMetadata`: only the fields Seek has, none of them null
/// (the contract types each as a string, an array or an integer).
struct AudiobookshelfMatch: JSONWritable {
    let title: String
    let subtitle: String?
    let author: String?
    let publishedYear: String?
    let isbn: String?
    let cover: String?

    /// `result` as a match; its cover through the instance's image route at `origin` (absolute, as
    /// Audiobookshelf downloads it), when a source has one.
    init(result: MergedResult, origin: String) {
        let item = result.item
        title = item.title
        subtitle = item.subtitle.flatMap { $0.isEmpty ? nil : $0 }
        author = item.creators.isEmpty ? nil : item.creators.joined(separator: ", ")
        publishedYear = item.year.map(String.init)
        isbn = item.identifiers.isbn13.first
        cover = item.images.isEmpty ? nil : origin + WebView.imageHref(item.id, size: .large)
    }

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("title", title)
            if let subtitle { writer.field("subtitle", subtitle) }
            if let author { writer.field("author", author) }
            if let publishedYear { writer.field("publishedYear", publishedYear) }
            if let isbn { writer.field("isbn", isbn) }
            if let cover { writer.field("cover", cover) }
        }
    }
}

/// `{"error": "message"}`.
struct AudiobookshelfError: JSONWritable {
    let message: String

    func write(to writer: inout JSONWriter) {
        writer.object { $0.field("error", message) }
    }
}
