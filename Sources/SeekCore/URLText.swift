import Foundation

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
    /// scripts) is left to `URL(string:)`.
    public static func isPlainAbsolute(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isPlainAbsolute($0) }
    }

    private static func isPlainAbsolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        characterClasses.withUnsafeBufferPointer { classes in
            var index: Int
            if startsWith(bytes, "https://") {
                index = 8
            } else if startsWith(bytes, "http://") {
                index = 7
            } else {
                return false
            }
            let hostStart = index
            while index < bytes.count, classes[Int(bytes[index])] & hostCharacter != 0 { index += 1 }
            guard index > hostStart else { return false }
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                index += 1
                var port = 0
                let portStart = index
                while index < bytes.count, index - portStart < 5, classes[Int(bytes[index])] & digit != 0 {
                    port = port * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                guard index > portStart, port <= 65535 else { return false }
            }
            // After the authority: the path (empty or from `/`), `?` query, `#` fragment. `?` begins the
            // query in the path and is an ordinary character after it: allowed either way.
            if index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): break
                default: return false
                }
            }
            var inFragment = false
            while index < bytes.count {
                let byte = bytes[index]
                if classes[Int(byte)] & pathCharacter != 0 {
                    index += 1
                } else if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, classes[Int(bytes[index + 1])] & hexDigit != 0,
                          classes[Int(bytes[index + 2])] & hexDigit != 0 else { return false }
                    index += 3
                } else if byte == UInt8(ascii: "#"), !inFragment {
                    inFragment = true
                    index += 1
                } else {
                    return false
                }
            }
            return true
        }
    }

    private static func startsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        let prefixBytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        for offset in 0..<prefixBytes.count where bytes[offset] != prefixBytes[offset] { return false }
        return true
    }

    /// RFC 3986's `unreserved` (letters, digits, `-._~`): a plain host.
    private static let hostCharacter: UInt8 = 1
    /// `unreserved`, `sub-delims` (`!$&'()*+,;=`), `:`, `@`, `/` and `?`: a path, query or fragment.
    private static let pathCharacter: UInt8 = 2
    private static let digit: UInt8 = 4
    private static let hexDigit: UInt8 = 8

    /// Each byte's classes, looked up once a character: a URL is checked for each image of every result.
    private static let characterClasses: [UInt8] = {
        var classes = [UInt8](repeating: 0, count: 256)
        func mark(_ characters: String, _ flags: UInt8) {
            for byte in characters.utf8 { classes[Int(byte)] |= flags }
        }
        let letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        mark(letters + "0123456789-._~", hostCharacter | pathCharacter)
        mark("!$&'()*+,;=:@/?", pathCharacter)
        mark("0123456789", digit | hexDigit)
        mark("abcdefABCDEF", hexDigit)
        return classes
    }()
}
