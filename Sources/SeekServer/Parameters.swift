import Foundation
import Hummingbird
import SeekKit
import SeekCore
import SeekSession

/// A request's query parameters, read and checked one by one: a bad value is a 400 naming it.
/// Parameters a route does not know are ignored.
struct Parameters {
    let values: [String: String]

    /// Reads the query as HTML forms write it (`application/x-www-form-urlencoded`: `+` is a space,
    /// `%2B` a plus); the first of a repeated name wins.
    init(_ request: Request) {
        self.init(query: request.uri.query ?? "")
    }

    init(query: String) {
        var values: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = parts.first else { continue }
            let name = Self.decode(rawName)
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if values[name] == nil { values[name] = value }
        }
        self.values = values
    }

    private static func decode(_ text: Substring) -> String {
        // Most names and values have nothing to decode; Foundation's decoding bridges through NSString.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// A non-empty text (trimmed); nil when absent or empty.
    func text(_ name: String) -> String? {
        guard let value = values[name]?.trimmed(), !value.isEmpty else { return nil }
        return value
    }

    func required(_ name: String) throws -> String {
        guard let value = text(name) else { throw APIError.missing(name) }
        return value
    }

    /// A whole number in `range`, or `fallback` when absent.
    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = text(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.invalid(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `true`/`false` (also `1`/`0`, `yes`/`no`), or false when absent.
    func flag(_ name: String) throws -> Bool {
        guard let text = text(name)?.lowercased() else { return false }
        switch text {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw APIError.invalid(name, "must be true or false")
        }
    }

    /// One of `allowed` (lowercased), or nil when absent.
    func choice(_ name: String, _ allowed: [String]) throws -> String? {
        guard let text = text(name)?.lowercased() else { return nil }
        guard allowed.contains(text) else { throw APIError.invalid(name, "must be one of \(allowed.joined(separator: ", "))") }
        return text
    }

    /// The providers asked for, checked against the session's registry.
    func selection(_ session: SeekSession) throws -> ProviderSelection {
        do {
            return try session.selection(text("providers"))
        } catch let error as SeekError {
            throw APIError(.badRequest, code: "unknown_provider", message: error.cause)
        }
    }

    /// The content rating asked for, if any.
    func rating() throws -> String? {
        try choice("rating", CompositionRoot.contentRatings.sorted())
    }

    /// The per-call options every provider call carries.
    func callOptions() throws -> CallOptions {
        CallOptions(rating: try rating(), noCache: try flag("no_cache"))
    }
}

/// An item id from a path segment (`openlibrary:OL45804W`, percent-encoded or not), of a known provider.
func itemID(_ segment: String?, session: SeekSession) throws -> ItemID {
    let text = segment.flatMap { $0.removingPercentEncoding ?? $0 } ?? ""
    guard let id = ItemID(parsing: text) else {
        throw APIError(.badRequest, code: "invalid_id", message: "'\(text.prefix(100))' is not a PROVIDER:ID item id")
    }
    guard session.registry.provider(id.provider) != nil else {
        throw APIError(.badRequest, code: "unknown_provider",
                       message: "unknown provider '\(id.provider)' (known: \(session.registry.ids.joined(separator: ", ")))")
    }
    return id
}
