import Foundation

/// The one error type of SeekCore: what failed, in which provider, and why.
///
/// Every message is safe to print: API keys are redacted before an error is built.
public struct SeekError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cause, with the context each cause needs.
    public enum Kind: Sendable, Hashable {
        case network
        case timeout(seconds: Double)
        case httpStatus(Int)
        case rateLimited(retryAfterSeconds: Double?)
        case unauthorized
        case missingKey(variable: String)
        case notFound
        case undecodable
        case bodyTooLarge(limitBytes: Int)
        case unsupported(capability: String)
        case invalidInput
        case suspended(until: Date)
        case cancelled
        case notRegistered(key: String)
        case configuration
    }

    public var kind: Kind
    /// The provider id (`openlibrary`), when the error comes from one.
    public var provider: String?
    /// A short human explanation; never contains a secret.
    public var detail: String
    /// When the service asked to be called again (its `Retry-After` on a 429 or 503, as a date): the
    /// circuit breaker cools the provider down until then. Nil when it named no time.
    public var retryAfter: Date?
    /// Seek's own rate limit refused the request before it was sent: the service itself did not fail.
    public var throttledLocally: Bool

    public init(_ kind: Kind, provider: String? = nil, detail: String = "", retryAfter: Date? = nil, throttledLocally: Bool = false) {
        self.kind = kind
        self.provider = provider
        self.detail = detail
        self.retryAfter = retryAfter
        self.throttledLocally = throttledLocally
    }

    /// The same error attributed to `provider` unless it already names one.
    public func attributed(to provider: String) -> SeekError {
        var copy = self
        if copy.provider == nil { copy.provider = provider }
        return copy
    }

    /// The cause in a few words, without the provider.
    public var cause: String {
        let base: String
        switch kind {
        case .network: base = "network error"
        case .timeout(let seconds): base = "timed out after \(Self.format(seconds))s"
        case .httpStatus(let code): base = "HTTP \(code)"
        case .rateLimited(let retry):
            base = retry.map { "rate limited (retry after \(Self.format($0))s)" } ?? "rate limited"
        case .unauthorized: base = "unauthorized (API key rejected)"
        case .missingKey(let variable):
            // A source may need a folder rather than a key (the Calibre library, SEEK_CALIBRE_LIBRARY).
            // Several variables come as one text ("A and B"): "are not set".
            let verb = variable.contains(" and ") || variable.contains(", ") ? "are" : "is"
            base = variable.contains("KEY") || variable.contains("TOKEN") ? "no API key (set \(variable))" : "\(variable) \(verb) not set"
        case .notFound: base = "not found"
        case .undecodable: base = "undecodable response"
        case .bodyTooLarge(let limit): base = "response larger than \(limit) bytes"
        case .unsupported(let capability): base = "\(capability) is not supported"
        case .invalidInput: base = "invalid input"
        case .suspended(let until): base = "suspended until \(Self.timestamp(until))"
        case .cancelled: base = "cancelled"
        case .notRegistered(let key): base = "nothing registered for \(key)"
        case .configuration: base = "configuration error"
        }
        return detail.isEmpty ? base : "\(base): \(detail)"
    }

    public var description: String {
        if let provider { return "\(provider): \(cause)" }
        return cause
    }

    /// Any error as a `SeekError`, attributed to `provider`.
    public static func wrap(_ error: any Error, provider: String? = nil) -> SeekError {
        var wrapped: SeekError
        if let seek = error as? SeekError {
            wrapped = seek
        } else if error is CancellationError {
            wrapped = SeekError(.cancelled)
        } else if let decoding = error as? DecodingError {
            wrapped = SeekError(.undecodable, detail: DecodingErrorSummary.describe(decoding))
        } else {
            wrapped = SeekError(.network, detail: String(describing: error))
        }
        if let provider { wrapped = wrapped.attributed(to: provider) }
        return wrapped
    }

    /// A number of seconds (or any count) as people read it: `30`, `2.5`; a value too large to write in
    /// digits in Swift's shortest form (`1e+19`). Never traps, whatever the value.
    public static func format(_ seconds: Double) -> String {
        guard let whole = Int(checked: seconds), abs(seconds) < 1e15 else { return seconds.description }
        return Double(whole) == seconds ? String(whole) : String(format: "%.1f", seconds)
    }

    /// A number of seconds in words: "1 second", "2 seconds", "2.5 seconds" (`format`'s digits).
    public static func secondsInWords(_ seconds: Double) -> String {
        let digits = format(seconds)
        return digits == "1" ? "1 second" : "\(digits) seconds"
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

/// Short, single-line descriptions of `DecodingError`s.
public enum DecodingErrorSummary {
    public static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "top level" : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context):
            return "missing \(type) value at \(path(context))"
        case .keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)' at \(path(context))"
        case .dataCorrupted(let context):
            return "malformed JSON at \(path(context))"
        @unknown default:
            return "malformed JSON"
        }
    }
}
