import Foundation
import SeekSupport

/// An absolute URL kept as the text it was made from, parsed into a `URL` only when one is asked
/// for. A search answer carries about 200 image and page URLs that hosts only write out as text;
/// parsing each with `URL(string:)` was a tenth of a miss's CPU (issue 30, BENCHMARKS.md).
///
/// Text is kept unparsed only when it is in a plain subset of RFC 3986 that `URL(string:)` reads
/// back unchanged (`isPlainAbsolute`); any other text is parsed at once, as before, so what a
/// value holds never depends on which path made it.
public struct URLText: Sendable, Hashable, Codable, CustomStringConvertible {
    private enum Storage: Sendable {
        /// Checked by `isPlainAbsolute`: `URL(string:)` gives a URL whose `absoluteString` is this.
        case plain(String)
        case parsed(URL)
    }

    private let storage: Storage

    public init(_ url: URL) { storage = .parsed(url) }

    /// nil when `text` is no URL (`URL(string:)` gives none).
    public init?(_ text: String) {
        if Self.isPlainAbsolute(text) {
            storage = .plain(text)
        } else if let url = URL(string: text) {
            storage = .parsed(url)
        } else {
            return nil
        }
    }

    /// An absolute `http` or `https` URL with a host, else nil: the links and images providers read
    /// from their answers, with white space around them trimmed.
    public init?(web text: String) {
        let text = text.trimmed()
        if Self.isPlainAbsolute(text) {
            storage = .plain(text)
        } else if let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host != nil {
            storage = .parsed(url)
        } else {
            return nil
        }
    }

    /// The URL's absolute text, as `URL.absoluteString` gives it.
    public var text: String {
        switch storage {
        case .plain(let text): text
        case .parsed(let url): url.absoluteString
        }
    }

    public var url: URL {
        switch storage {
        // `isPlainAbsolute` admits only text `URL(string:)` reads (URLTextTests check it character
        // by character and on generated text); the fallback is never taken.
        case .plain(let text): URL(string: text) ?? URL(fileURLWithPath: "/")
        case .parsed(let url): url
        }
    }

    public var description: String { text }

    public static func == (lhs: URLText, rhs: URLText) -> Bool { lhs.text == rhs.text }

    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// As `URL`'s own: one string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = URLText(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Invalid URL string.")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// Whether `text` is `http://` or `https://` (lower case), a host of letters, digits, `-`, `.`,
    /// `_` and `~`, an optional port up to 65535, then a path, query and fragment of RFC 3986's
    /// allowed ASCII characters with well-formed percent escapes. Such text `URL(string:)` reads as
    /// written, with that scheme and host; anything else (user info, IP literals, spaces, other
    /// scripts) is left to `URL(string:)`. The scan is SeekSupport's `PlainURL`.
    public static func isPlainAbsolute(_ text: String) -> Bool { PlainURL.isPlainAbsolute(text) }
}
