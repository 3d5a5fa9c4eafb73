import Foundation
import SeekCore
import SeekKit

/// A Crossref failure: the status, and what the body says — a JSON `{"status": "failed", "message-type":
/// "validation-failure" | "resource-failure", "message": [{"type", "value", "message"}]}` (an array of
/// problems, not an object), or plain text (`Resource not found.` for an unknown DOI).
struct CrossrefError {
    let status: Int
    let messageType: String?
    /// `message[].type`: `parameter-not-allowed`, `cursor-invalid`…
    let problems: [String]
    let said: String?
    let response: HTTPResponse

    init(response: HTTPResponse, body: JSONValue? = nil) {
        self.response = response
        status = response.status
        let parsed = body ?? (try? JSONValue(parsing: response.body))
        messageType = parsed?["message-type"]?.stringValue
        var problems: [String] = []
        var messages: [String] = []
        for problem in parsed?["message"]?.arrayValue ?? [] {
            if let type = problem["type"]?.stringValue { problems.append(type) }
            if let message = problem["message"]?.stringValue?.trimmed(), !message.isEmpty {
                let value = problem["value"]?.stringValue.map { " (\($0.prefix(60)))" } ?? ""
                messages.append(message + value)
            }
        }
        if messages.isEmpty, let text = parsed?["message"]?.stringValue?.trimmed(), !text.isEmpty { messages.append(text) }
        self.problems = problems
        let snippet = response.snippet()
        said = messages.isEmpty ? (snippet.isEmpty ? nil : snippet) : messages.joined(separator: "; ")
    }

    /// The typed error, naming Crossref and what it said. A 429 without `Retry-After` waits the interval
    /// Crossref announced (`x-rate-limit-interval`), else a second.
    func seekError(url: URL, announcedInterval: Duration?) -> SeekError {
        let label = messageType.map { "\($0), " } ?? ""
        let detail = "Crossref answered HTTP \(status) (\(label)\(said ?? "no message")) (\(Redaction.redact(url: url)))"
        let kind: SeekError.Kind
        var retryAfter: Date?
        switch status {
        case 429:
            let seconds = response.retryAfter() ?? max(1, announcedInterval?.seconds ?? 1)
            kind = .rateLimited(retryAfterSeconds: seconds)
            retryAfter = Date() + seconds
        case 401, 403: kind = .unauthorized
        case 404 where problems.contains("cursor-invalid"): kind = .invalidInput
        case 404, 410: kind = .notFound
        case 400 where messageType == "validation-failure": kind = .invalidInput
        case 200..<300: kind = .undecodable
        default: kind = .httpStatus(status)
        }
        return SeekError(kind, provider: CrossrefProvider.id, detail: detail, retryAfter: retryAfter ?? response.retryAfterDate())
    }
}
