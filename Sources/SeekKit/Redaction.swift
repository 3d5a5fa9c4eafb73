import Foundation
import SeekCore

/// Keeps secrets out of anything printed: URLs lose key-bearing query values, texts lose known keys.
public enum Redaction {
    /// Query parameters whose values are secrets.
    public static let secretParameters: Set<String> = ["api_key", "apikey", "ttbkey", "key", "token", "access_token", "client_secret"]

    public static func redact(url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let items = components.queryItems, !items.isEmpty
        else { return url.absoluteString }
        components.queryItems = items.map { item in
            secretParameters.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "REDACTED") : item
        }
        return components.string ?? url.absoluteString
    }

    /// `text` with every occurrence of each secret (of 4+ characters) replaced, and key-like query values masked.
    public static func redact(_ text: String, secrets: [String]) -> String {
        var result = redactSecrets(text, secrets: secrets)
        for name in secretParameters {
            result = maskParameter(name, in: result)
        }
        return result
    }

    /// `text` with every occurrence of each secret (of 4+ characters) replaced; nothing else is touched,
    /// so it suits result fields, where a `key=` is just text.
    public static func redactSecrets(_ text: String, secrets: [String]) -> String {
        var result = text
        // Looking for the bytes first: most text holds no secret, and counting a secret's characters
        // costs more than the search.
        for secret in secrets where result.containsBytes(of: secret) && secret.count >= 4 {
            result = result.replacingAll(secret, with: "REDACTED")
        }
        return result
    }

    private static func maskParameter(_ name: String, in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        let needle = name + "="
        while let range = rest.range(of: needle, options: .caseInsensitive) {
            let before = range.lowerBound == rest.startIndex ? nil : rest[rest.index(before: range.lowerBound)]
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            guard before == nil || before == "?" || before == "&" else { continue }
            let end = rest.firstIndex { $0 == "&" || $0 == " " || $0 == "\"" || $0 == "'" } ?? rest.endIndex
            if rest.startIndex != end { result += "REDACTED" }
            rest = rest[end...]
        }
        return result + rest
    }
}
