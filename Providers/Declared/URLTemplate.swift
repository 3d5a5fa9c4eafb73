import Foundation
import SeekCore
import SeekKit

/// A URL with `{name}` placeholders (`https://host/search/{query}/{page}`), checked when it is
/// parsed so a typo fails at start-up rather than at the first search. `{key:VARIABLE}` names the
/// environment variable a key comes from (allowed wherever `{key}` is); its placeholder name is
/// `key:VARIABLE`. The same parser reads header templates (`KakaoAK {key:SEEK_KAKAO_REST_API_KEY}`),
/// which are not URLs.
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
    /// the result must expand to an absolute http(s) URL unless `isURL` is false (a header's value).
    public init(parsing text: String, allowed: Set<String>, required: Set<String> = [], isURL: Bool = true) throws(URLTemplateError) {
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
            if let variable = Self.keyVariable(in: name) {
                guard allowed.contains("key") else { throw URLTemplateError("a key placeholder {\(name)} is not allowed here") }
                guard Self.isVariableName(variable) else {
                    throw URLTemplateError("{\(name)}: '\(variable)' must be an environment variable name (A-Z, 0-9, _)")
                }
            } else if !allowed.contains(name) {
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
        guard isURL else { return }
        let sample = Dictionary(uniqueKeysWithValues: used.map { ($0, "x1") })
        guard let url = expand(sample), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            throw URLTemplateError("it is not an absolute http(s) URL")
        }
    }

    public var description: String { text }

    /// The variable a `key:VARIABLE` placeholder names; nil for any other name.
    public static func keyVariable(in name: String) -> String? {
        guard name.hasPrefix("key:") else { return nil }
        return String(name.dropFirst(4))
    }

    /// Whether `text` is an environment variable name as Seek's are written: A-Z, 0-9 and `_`, not empty.
    public static func isVariableName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 128
            && text.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }
    }

    /// This template after the literal `base` (a base URL setting's value): `{` and `}` in the base are
    /// text, not placeholders. The result is checked to be an absolute http(s) URL again.
    public func prefixed(by base: String) throws(URLTemplateError) -> URLTemplate {
        var trimmed = base
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let parts = [Part.literal(trimmed)] + parts
        let copy = URLTemplate(text: trimmed + text, parts: parts, placeholders: placeholders)
        let sample = Dictionary(uniqueKeysWithValues: placeholders.map { ($0, "x1") })
        guard let url = copy.expand(sample), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            throw URLTemplateError("'\(base)' followed by '\(text)' is not an absolute http(s) URL")
        }
        return copy
    }

    private init(text: String, parts: [Part], placeholders: Set<String>) {
        self.text = text
        self.parts = parts
        self.placeholders = placeholders
    }

    /// The text with each placeholder replaced by its value as it is (a header's value); missing values are empty.
    public func render(_ values: [String: String]) -> String {
        var result = ""
        for part in parts {
            switch part {
            case .literal(let text): result += text
            case .placeholder(let name): result += values[name] ?? ""
            }
        }
        return result
    }

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
