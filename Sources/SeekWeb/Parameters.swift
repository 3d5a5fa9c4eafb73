import Foundation
import Hummingbird
import SeekKit
import SeekCore
import SeekRuntime
import SeekStore

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
        // Split on scalars: a raw character that joins the next (U+0600) must not hide a `&` or `=`.
        for pair in query.fields(separatedBy: "&") {
            let parts = pair.fields(separatedBy: "=", maxSplits: 1, keepingEmpty: true)
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

    /// A whole number, or nil when absent; its bounds are the session's to check.
    func integer(_ name: String) throws -> Int? {
        guard let text = text(name) else { return nil }
        guard let value = Int(text) else { throw APIError.invalid(name, "must be a whole number") }
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

    /// The ranking method asked for; searxng when absent.
    func ranking() throws -> RankingMethod {
        try choice("rank", RankingMethod.allCases.map(\.rawValue)).flatMap(RankingMethod.init(rawValue:)) ?? .searxng
    }

    /// The grouping asked for (`group=work|edition`); work when absent.
    func grouping() throws -> ResultGrouping {
        do {
            return try SeekSession.grouping(text("group"))
        } catch {
            throw APIError.invalid("group", "must be one of work, edition")
        }
    }

    /// A search as the session takes it, recorded in `owner`'s history (none for nil).
    func searchQuery(owner: StateOwner?) throws -> SearchQuery {
        SearchQuery(
            query: text("q") ?? "", providers: text("providers"), limit: try integer("limit"), page: try integer("page"),
            cursor: text("cursor"), ranking: try ranking(), rating: text("rating"), noCache: try flag("no_cache"),
            explain: try flag("explain"), language: text("language"), owner: owner, group: try grouping())
    }

    /// A trending or suggest call as the session takes it: `q` (the prefix), providers, limit, rating.
    func fanOutQuery(limit fallback: Int? = nil) throws -> FanOutQuery {
        FanOutQuery(
            text: text("q") ?? "", providers: text("providers"), limit: try integer("limit") ?? fallback,
            rating: text("rating"), noCache: try flag("no_cache"))
    }

    /// The item a path segment names, with the call options the query carries.
    func itemQuery(_ segment: String?) throws -> ItemQuery {
        ItemQuery(pathID(segment), rating: text("rating"), noCache: try flag("no_cache"))
    }
}

/// An item id from a path segment (`openlibrary:OL45804W`), percent-encoded or not; the session checks it.
func pathID(_ segment: String?) -> String {
    segment.flatMap { $0.removingPercentEncoding ?? $0 } ?? ""
}
