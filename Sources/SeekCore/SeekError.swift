import Foundation

/// The one error type of SeekCore: what failed, in which provider, and why.
///
/// Every message is safe to print: API keys are redacted before an error is built.
public struct SeekError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cause, with the context each cause needs: a struct over a private enum (as Hummingbird's
    /// and postgres-nio's error codes are), so a new cause is not a breaking change and a `switch` over
    /// it needs a `default:`. Each cause is a static member of its old case's name, and those with
    /// context also a function with the old labels: `.timeout(seconds: 10)`. As a pattern, the member
    /// without context matches the cause whatever its context (`case .timeout:`), the function only
    /// that value; `==` compares the context too. The context is read through `seconds`, `statusCode`,
    /// `retryAfterSeconds`, `variable`, `limitBytes`, `capability`, `until` and `key` (nil for another
    /// cause). Used as a kind, a member without context is that cause with none known ("timed out").
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case network, unauthorized, notFound, undecodable, invalidInput, cancelled, configuration
            case timeout(seconds: Double?)
            case httpStatus(Int?)
            case rateLimited(retryAfterSeconds: Double?)
            case missingKey(variable: String?)
            case bodyTooLarge(limitBytes: Int?)
            case unsupported(capability: String?)
            case suspended(until: Date?)
            case notRegistered(key: String?)
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        public static let network = Kind(.network)
        public static let timeout = Kind(.timeout(seconds: nil))
        public static let httpStatus = Kind(.httpStatus(nil))
        /// The same as `.rateLimited(retryAfterSeconds: nil)`.
        public static let rateLimited = Kind(.rateLimited(retryAfterSeconds: nil))
        public static let unauthorized = Kind(.unauthorized)
        public static let missingKey = Kind(.missingKey(variable: nil))
        public static let notFound = Kind(.notFound)
        public static let undecodable = Kind(.undecodable)
        public static let bodyTooLarge = Kind(.bodyTooLarge(limitBytes: nil))
        public static let unsupported = Kind(.unsupported(capability: nil))
        public static let invalidInput = Kind(.invalidInput)
        public static let suspended = Kind(.suspended(until: nil))
        public static let cancelled = Kind(.cancelled)
        public static let notRegistered = Kind(.notRegistered(key: nil))
        public static let configuration = Kind(.configuration)

        public static func timeout(seconds: Double) -> Kind { Kind(.timeout(seconds: seconds)) }
        public static func httpStatus(_ code: Int) -> Kind { Kind(.httpStatus(code)) }
        public static func rateLimited(retryAfterSeconds: Double?) -> Kind { Kind(.rateLimited(retryAfterSeconds: retryAfterSeconds)) }
        /// A required key or setting is not set: `variable` names its environment variable.
        public static func missingKey(variable: String) -> Kind { Kind(.missingKey(variable: variable)) }
        public static func bodyTooLarge(limitBytes: Int) -> Kind { Kind(.bodyTooLarge(limitBytes: limitBytes)) }
        public static func unsupported(capability: String) -> Kind { Kind(.unsupported(capability: capability)) }
        /// The circuit breaker rests the provider until then.
        public static func suspended(until: Date) -> Kind { Kind(.suspended(until: until)) }
        /// Nothing is registered for `key` in a container.
        public static func notRegistered(key: String) -> Kind { Kind(.notRegistered(key: key)) }

        /// Every cause without context, in declaration order (a new cause is added here too).
        public static let allCauses: [Kind] = [
            .network, .timeout, .httpStatus, .rateLimited, .unauthorized, .missingKey, .notFound, .undecodable,
            .bodyTooLarge, .unsupported, .invalidInput, .suspended, .cancelled, .notRegistered, .configuration,
        ]

        /// The cause alone, as its member is named (`timeout`, `httpStatus`): the kind's stable string.
        public var name: String {
            switch base {
            case .network: "network"
            case .timeout: "timeout"
            case .httpStatus: "httpStatus"
            case .rateLimited: "rateLimited"
            case .unauthorized: "unauthorized"
            case .missingKey: "missingKey"
            case .notFound: "notFound"
            case .undecodable: "undecodable"
            case .bodyTooLarge: "bodyTooLarge"
            case .unsupported: "unsupported"
            case .invalidInput: "invalidInput"
            case .suspended: "suspended"
            case .cancelled: "cancelled"
            case .notRegistered: "notRegistered"
            case .configuration: "configuration"
            }
        }

        /// The cause `name` names, without context; nil for any other text (a newer seek's cause): never a guess.
        public init?(name: String) {
            guard let kind = Self.allCauses.first(where: { $0.name == name }) else { return nil }
            self = kind
        }

        public var seconds: Double? { if case .timeout(let seconds) = base { seconds } else { nil } }
        public var statusCode: Int? { if case .httpStatus(let code) = base { code } else { nil } }
        public var retryAfterSeconds: Double? { if case .rateLimited(let seconds) = base { seconds } else { nil } }
        public var variable: String? { if case .missingKey(let variable) = base { variable } else { nil } }
        public var limitBytes: Int? { if case .bodyTooLarge(let limit) = base { limit } else { nil } }
        public var capability: String? { if case .unsupported(let capability) = base { capability } else { nil } }
        public var until: Date? { if case .suspended(let until) = base { until } else { nil } }
        public var key: String? { if case .notRegistered(let key) = base { key } else { nil } }

        /// `case .timeout:` matches every timeout, `case .timeout(seconds: 10):` only that one.
        public static func ~= (pattern: Kind, kind: Kind) -> Bool {
            switch pattern.base {
            case .timeout(nil), .httpStatus(nil), .rateLimited(nil), .missingKey(nil), .bodyTooLarge(nil), .unsupported(nil),
                 .suspended(nil), .notRegistered(nil):
                pattern.name == kind.name
            default: pattern == kind
            }
        }

        /// As the enum printed it: `timeout(seconds: 10.0)`, `httpStatus(502)`, `notFound`; a cause
        /// without context (a rate limit without a retry time too) is its name alone.
        public var description: String {
            switch base {
            case .timeout(let seconds?): "timeout(seconds: \(seconds))"
            case .httpStatus(let code?): "httpStatus(\(code))"
            case .rateLimited(let seconds?): "rateLimited(retryAfterSeconds: \(seconds))"
            case .missingKey(let variable?): "missingKey(variable: \"\(variable)\")"
            case .bodyTooLarge(let limit?): "bodyTooLarge(limitBytes: \(limit))"
            case .unsupported(let capability?): "unsupported(capability: \"\(capability)\")"
            case .suspended(let until?): "suspended(until: \(until))"
            case .notRegistered(let key?): "notRegistered(key: \"\(key)\")"
            default: name
            }
        }
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
        case .timeout: base = kind.seconds.map { "timed out after \(Self.format($0))s" } ?? "timed out"
        case .httpStatus: base = kind.statusCode.map { "HTTP \($0)" } ?? "unexpected HTTP status"
        case .rateLimited:
            base = kind.retryAfterSeconds.map { "rate limited (retry after \(Self.format($0))s)" } ?? "rate limited"
        case .unauthorized: base = "unauthorized (API key rejected)"
        case .missingKey:
            if let variable = kind.variable {
                // A source may need a folder rather than a key (the Calibre library, SEEK_CALIBRE_LIBRARY).
                // Several variables come as one text ("A and B"): "are not set".
                let verb = variable.contains(" and ") || variable.contains(", ") ? "are" : "is"
                base = variable.contains("KEY") || variable.contains("TOKEN") ? "no API key (set \(variable))" : "\(variable) \(verb) not set"
            } else {
                base = "a required setting is not set"
            }
        case .notFound: base = "not found"
        case .undecodable: base = "undecodable response"
        case .bodyTooLarge: base = kind.limitBytes.map { "response larger than \($0) bytes" } ?? "response too large"
        case .unsupported: base = kind.capability.map { "\($0) is not supported" } ?? "not supported"
        case .invalidInput: base = "invalid input"
        case .suspended: base = kind.until.map { "suspended until \(Self.timestamp($0))" } ?? "suspended"
        case .cancelled: base = "cancelled"
        case .notRegistered: base = kind.key.map { "nothing registered for \($0)" } ?? "nothing registered"
        case .configuration: base = "configuration error"
        default: base = kind.name
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
