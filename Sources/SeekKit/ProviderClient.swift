import Foundation
import SeekCore

/// What a provider uses to call its API: builds URLs under a base, maps statuses to typed
/// errors, decodes JSON, and keeps the provider's secrets out of every message.
public struct ProviderClient: Sendable {
    public let provider: String
    public let transport: any HTTPTransport
    /// Values that must never appear in an error (API keys).
    public let secrets: [String]
    public var timeout: Duration
    public var maxBodyBytes: Int

    public init(
        provider: String, transport: any HTTPTransport, secrets: [String] = [],
        timeout: Duration = .seconds(30), maxBodyBytes: Int = HTTPRequest.defaultMaxBodyBytes
    ) {
        self.provider = provider
        self.transport = transport
        self.secrets = secrets.filter { !$0.isEmpty }
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// GETs `url` and returns a 2xx response; any other status is a typed error.
    public func get(_ url: URL, headers: [(String, String)] = [("Accept", "application/json")]) async throws -> HTTPResponse {
        let response = try await fetch(url, headers: headers)
        try check(response, url: url)
        return response
    }

    /// GETs `url` whatever its status, mapping only transport failures.
    public func fetch(_ url: URL, headers: [(String, String)] = [("Accept", "application/json")]) async throws -> HTTPResponse {
        do {
            return try await transport.send(
                HTTPRequest(url: url, headers: headers, timeout: timeout, maxBodyBytes: maxBodyBytes))
        } catch {
            throw scrub(SeekError.wrap(error, provider: provider))
        }
    }

    /// GETs and decodes JSON.
    public func getJSON<T: Decodable>(_ type: T.Type, from url: URL) async throws -> T {
        let response = try await get(url)
        return try decode(type, from: response)
    }

    /// Decodes a response body; failure is `.undecodable` with a short, secret-free snippet.
    public func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse) throws -> T {
        // Untyped JSON goes through the parser: a `Decoder` would throw for every wrong guess of a value's type.
        if type == JSONValue.self, let value = try decodeJSON(from: response) as? T { return value }
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch let error as DecodingError {
            let summary = DecodingErrorSummary.describe(error)
            throw SeekError(.undecodable, provider: provider, detail: body(summary, response))
        } catch {
            throw SeekError(.undecodable, provider: provider, detail: body("malformed JSON", response))
        }
    }

    /// Throws the typed error for a non-2xx status.
    public func check(_ response: HTTPResponse, url: URL) throws {
        guard !(200..<300).contains(response.status) else { return }
        let where_ = Redaction.redact(url: url)
        let kind: SeekError.Kind
        switch response.status {
        case 401, 403: kind = .unauthorized
        case 404, 410: kind = .notFound
        case 429: kind = .rateLimited(retryAfterSeconds: response.retryAfter())
        default: kind = .httpStatus(response.status)
        }
        var detail = where_
        let snippet = response.snippet(redacting: secrets)
        if !snippet.isEmpty { detail += " — \(snippet)" }
        throw scrub(SeekError(kind, provider: provider, detail: detail, retryAfter: response.retryAfterDate()))
    }

    /// Reads a response body as untyped JSON; failure is `.undecodable` saying what is wrong and where.
    public func decodeJSON(from response: HTTPResponse) throws -> JSONValue {
        do {
            return try JSONValue(parsing: response.body)
        } catch {
            throw scrub(SeekError(.undecodable, provider: provider, detail: body("malformed JSON: \(error)", response)))
        }
    }

    /// Reads a response body with `read`, value by value; failure is `.undecodable`, as `decodeJSON`'s.
    public func readJSON<Result>(from response: HTTPResponse, _ read: (inout JSONReader) throws(JSONParseError) -> Result) throws -> Result {
        do {
            return try JSONReader.read(response.body, read)
        } catch {
            throw scrub(SeekError(.undecodable, provider: provider, detail: body("malformed JSON: \(error)", response)))
        }
    }

    /// A message with the body snippet appended.
    public func body(_ message: String, _ response: HTTPResponse) -> String {
        let snippet = response.snippet(redacting: secrets)
        if response.body.isEmpty { return "\(message) (empty body)" }
        return "\(message) (body: \(snippet))"
    }

    /// The error with secrets removed from its text.
    public func scrub(_ error: SeekError) -> SeekError {
        var copy = error
        copy.detail = Redaction.redact(copy.detail, secrets: secrets)
        return copy
    }
}

extension URL {
    /// This URL with `path` appended to its own path (a base path like `/ttb/api` is kept)
    /// and `query` added; parameters with nil values are left out.
    public func appending(path: String, query: [(String, String?)]) -> URL {
        let addition = path.isEmpty ? "" : (path.hasPrefix("/") ? path : "/" + path)
        if query.allSatisfy({ $0.1 == nil }), let joined = joinedText(addition), let url = URL(string: joined) { return url }
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return self }
        var basePath = components.percentEncodedPath
        while basePath.hasSuffix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + addition
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !items.isEmpty {
            components.queryItems = (components.queryItems ?? []) + items
            // `+` is legal in queries but many servers read it as a space: encode it.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingAll("+", with: "%2B")
        }
        return components.url ?? self
    }

    /// This URL with `path` appended, as `appending(path:query: [])` gives it, kept as text (no
    /// `URL` parsed when the text is plain): an item's page URL, built for every result.
    public func appendingAddress(path: String) -> URLText {
        let addition = path.isEmpty ? "" : (path.hasPrefix("/") ? path : "/" + path)
        if let joined = joinedText(addition), let address = URLText(joined) { return address }
        return URLText(appending(path: path, query: []))
    }

    /// The text of this URL, trailing slashes dropped, then `addition`; nil when the URL has a query
    /// or fragment to keep, which needs `URLComponents`. Plain concatenation, since `URLComponents`
    /// costs tens of microseconds a call on Linux and providers build several URLs for every item.
    private func joinedText(_ addition: String) -> String? {
        guard query == nil, fragment == nil else { return nil }
        var base = absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + addition
    }

    /// A path segment percent-encoded so it cannot add segments (`/`) or a query (`?`).
    public static func encodeSegment(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#;")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
