import Foundation
import SeekCore
import SeekKit

/// Turns Aladin's `output=js` bodies into strict JSON before `JSONValue(parsing:)` reads them.
///
/// Aladin sometimes serves JSONP (`fn(true, {…});`), a trailing `;`, single-quoted strings
/// (`{'errorCode':8,…}`), `\'` escapes and raw control characters inside strings. Strict JSON passes through unchanged.
enum AladinJSON {
    private static let doubleQuote = UInt8(ascii: "\"")
    private static let singleQuote = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\")

    static func normalize(_ body: Data) -> Data {
        needsNoRewriting(body) ? body : rewritten(body)
    }

    /// The body made strict JSON, its byte-order mark dropped.
    static func rewritten(_ body: Data) -> Data {
        var bytes = [UInt8](body)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        bytes = unwrap(trim(bytes))
        return Data(requote(bytes))
    }

    /// Whether `normalize` would give `body` back as it is (less a byte-order mark, which
    /// `JSONValue(parsing:)` and `JSONReader` skip): it opens with `{` or `[`, ends without a space or
    /// `;`, and holds no single quote or control byte. Most bodies are such, and are then not copied.
    static func needsNoRewriting(_ body: Data) -> Bool {
        let start = body.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard let first = body.dropFirst(start).first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
              let last = body.last, !isSpace(last), last != UInt8(ascii: ";") else { return false }
        return ByteScan.firstControl(or: singleQuote, singleQuote, in: body, from: start) == body.count
    }

    /// Without surrounding whitespace and trailing semicolons.
    static func trim(_ bytes: [UInt8]) -> [UInt8] {
        var slice = bytes[...]
        while let last = slice.last, isSpace(last) || last == UInt8(ascii: ";") { slice.removeLast() }
        while let first = slice.first, isSpace(first) { slice.removeFirst() }
        return Array(slice)
    }

    /// The object inside a JSONP call `name(flag, {…})`; anything else unchanged.
    static func unwrap(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
              bytes.last == UInt8(ascii: ")"),
              let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let start = bytes[open...].firstIndex(of: UInt8(ascii: "{")),
              let end = bytes.lastIndex(of: UInt8(ascii: "}")), start < end
        else { return bytes }
        return Array(bytes[start...end])
    }

    /// Rewrites single-quoted strings as double-quoted ones, turns `\'` into `'` (leaving `\\` pairs whole)
    /// and escapes raw control characters inside strings.
    static func requote(_ bytes: [UInt8]) -> [UInt8] {
        // Without a single quote or a control byte there is nothing to rewrite: the common strict body
        // is checked in one pass instead of being copied byte by byte.
        guard bytes.contains(where: { $0 == singleQuote || $0 < 0x20 }) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var quote: UInt8?  // the quote that opened the current string, nil outside strings
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard let open = quote else {
                if byte == doubleQuote || byte == singleQuote {
                    quote = byte
                    out.append(doubleQuote)
                } else {
                    out.append(byte)
                }
                index += 1
                continue
            }
            if byte == backslash {
                let next = index + 1 < bytes.count ? bytes[index + 1] : nil
                switch next {
                case singleQuote?: out.append(singleQuote)
                case let escaped?: out.append(contentsOf: [backslash, escaped])
                case nil: out.append(contentsOf: [backslash, backslash])
                }
                index += 2
                continue
            }
            if byte == open {
                quote = nil
                out.append(doubleQuote)
            } else if byte == doubleQuote {
                out.append(contentsOf: [backslash, doubleQuote])  // a `"` inside a single-quoted string
            } else if byte < 0x20 {
                out.append(contentsOf: escape(control: byte))
            } else {
                out.append(byte)
            }
            index += 1
        }
        return out
    }

    private static func escape(control byte: UInt8) -> [UInt8] {
        switch byte {
        case UInt8(ascii: "\n"): return Array(#"\n"#.utf8)
        case UInt8(ascii: "\r"): return Array(#"\r"#.utf8)
        case UInt8(ascii: "\t"): return Array(#"\t"#.utf8)
        default: return Array(String(format: "\\u%04x", Int(byte)).utf8)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
