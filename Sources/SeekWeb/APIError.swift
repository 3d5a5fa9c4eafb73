import Foundation
import Hummingbird
import SeekCore
import SeekKit
import SeekRuntime

/// An error as the API answers it: a status and `{ "error": { "code": "...", "message": "..." } }`,
/// never a stack trace or a key.
package struct APIError: HTTPResponseError, CustomStringConvertible {
    package let status: HTTPResponse.Status
    /// A stable machine-readable code: `missing_parameter`, `invalid_parameter`, `unknown_provider`, …
    package let code: String
    package let message: String

    package init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    package var description: String { "\(status.code) \(code): \(message)" }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        APIResponse.json(ErrorDocument(code: code, message: message), status: status)
    }

    /// The session's refusal of a request: 400 with its code.
    init(_ refusal: RequestError) {
        self.init(.badRequest, code: refusal.code.rawValue, message: refusal.message)
    }

    /// A parameter the API cannot read (not a whole number, not true or false, not one of its choices).
    static func invalid(_ name: String, _ why: String) -> APIError {
        APIError(.badRequest, code: RequestErrorCode.invalidParameter.rawValue, message: "the parameter '\(name)' \(why)")
    }

    /// How a provider's typed failure reads over HTTP.
    static func from(_ error: SeekError) -> APIError {
        let message = error.description
        switch error.kind {
        case .invalidInput: return APIError(.badRequest, code: RequestErrorCode.invalidParameter.rawValue, message: message)
        case .notFound: return APIError(.notFound, code: "not_found", message: message)
        case .unsupported: return APIError(.badRequest, code: "unsupported", message: message)
        case .timeout: return APIError(.gatewayTimeout, code: "provider_timeout", message: message)
        case .rateLimited: return APIError(.serviceUnavailable, code: "rate_limited", message: message)
        case .suspended: return APIError(.serviceUnavailable, code: "suspended", message: message)
        case .missingKey: return APIError(.serviceUnavailable, code: "not_configured", message: message)
        case .unauthorized: return APIError(.badGateway, code: "provider_unauthorized", message: message)
        case .network, .httpStatus, .undecodable, .bodyTooLarge:
            return APIError(.badGateway, code: "provider_error", message: message)
        case .cancelled: return APIError(.serviceUnavailable, code: "cancelled", message: message)
        default: return APIError(.internalServerError, code: "internal", message: "internal error")  // .configuration, .notRegistered
        }
    }
}

/// `{ "error": { "code": "...", "message": "..." } }`.
struct ErrorDocument: JSONWritable {
    let code: String
    let message: String

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("error", ErrorBody(code: code, message: message))
        }
    }

    private struct ErrorBody: JSONWritable {
        let code: String
        let message: String
        func write(to writer: inout JSONWriter) {
            writer.object { writer in
                writer.field("code", code)
                writer.field("message", message)
            }
        }
    }
}

/// Responses the API writes.
enum APIResponse {
    /// `document` as compact JSON and a newline: a third fewer bytes than pretty-printed, and a third
    /// less time writing them (BENCHMARKS.md, issue 30).
    static func json(_ document: some JSONWritable, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: JSONWriter.withUTF8(document, trailer: "\n") { ByteBuffer(bytes: $0) }))
    }
}
