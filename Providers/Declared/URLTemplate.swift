import Foundation
import SeekCore
import SeekKit

/// A URL with `{name}` placeholders (`https://host/search/{query}/{page}`), checked when it is
/// parsed so a typo fails at start-up rather than at the first search.
public struct URLTemplate: Sendable, Hashable, CustomStringConvertible {
    /// The template as written.
    public let text: String
    /// The placeholder names it uses.
    public let placeholders: Set<String>
    private let parts: [Part]

    private enum Part: Sendable, Hashable {
        case literal(String)
        case placeholder(String)
    }

    /// Parses `text`, allowing only `allowed` placeholders and requiring every name in `required`;
    /// the result must expand to an absolute http(s) URL.
    public init(parsing text: String, allowed: Set<String>, required: Set<String> = []) throws(URLTemplateError) {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            literal += rest[..<open]
            guard rest[open] == "{" else { throw URLTemplateError("a '}' without its '{'") }
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { $0 == "{" || $0 == "}" }), rest[close] == "}" else {
                throw URLTemplateError("a '{' without its '}'")
            }
            let name = String(rest[afterOpen..<close])
            guard allowed.contains(name) else {
                let known = allowed.sorted().map { "{\($0)}" }.joined(separator: ", ")
                throw URLTemplateError("unknown placeholder {\(name)} (known here: \(known))")
            }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(.placeholder(name))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        let used = Set(parts.compactMap { part -> String? in
            if case .placeholder(let name) = part { return name }
            return nil
        })
        if let missing = required.subtracting(used).sorted().first {
            throw URLTemplateError("it must contain {\(missing)}")
        }
        self.text = text
        self.parts = parts
        self.placeholders = used
        let sample = Dictionary(uniqueKeysWithValues: used.map { ($0, "x1") })
        guard let url = expand(sample), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            throw URLTemplateError("it is not an absolute http(s) URL")
        }
    }

    public var description: String { text }

    /// The URL with each placeholder replaced by its percent-encoded value (missing values are empty);
    /// nil when the result is not a URL.
    public func expand(_ values: [String: String]) -> URL? {
        var result = ""
        for part in parts {
            switch part {
            case .literal(let text): result += text
            case .placeholder(let name): result += Self.encode(values[name] ?? "")
            }
        }
        return URL(string: result)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters, so a value is safe in a path
    /// segment and in a query alike (a space becomes `%20`, `/` and `&` are encoded).
    public static func encode(_ value: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// Why a URL template was refused.
public struct URLTemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
