import Foundation
import SeekCore

/// One outgoing HTTP request.
public struct HTTPRequest: Sendable {
    public var url: URL
    public var method: String
    public var headers: [(String, String)]
    /// The whole exchange, body included, must finish within this time.
    public var timeout: Duration
    /// A body larger than this is refused without being held in memory.
    public var maxBodyBytes: Int

    public init(
        url: URL, method: String = "GET", headers: [(String, String)] = [],
        timeout: Duration = .seconds(30), maxBodyBytes: Int = HTTPRequest.defaultMaxBodyBytes
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// 16 MiB.
    public static let defaultMaxBodyBytes = 16 * 1024 * 1024
}

/// A received HTTP response, any status.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names lowercased; repeated headers joined with ", ".
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// A short, printable, secret-free start of the body, for error messages.
    public func snippet(redacting secrets: [String] = [], maxLength: Int = 120) -> String {
        let text = String(decoding: body.prefix(maxLength * 4), as: UTF8.self)
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmed()
        let redacted = Redaction.redact(oneLine, secrets: secrets)
        return redacted.count > maxLength ? String(redacted.prefix(maxLength)) + "…" : redacted
    }
}

/// The role that moves bytes over HTTP. The default is `AsyncHTTPTransport`.
public protocol HTTPTransport: Sendable {
    /// Sends the request and returns the response, whatever its status.
    /// Throws `SeekError` for timeouts, oversize bodies, network and redirect failures.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
