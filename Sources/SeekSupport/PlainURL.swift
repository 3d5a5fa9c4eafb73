/// The scan behind `URLText`'s plain text (SeekCore): whether a URL's text is in the plain subset of
/// RFC 3986 that `URL(string:)` reads back unchanged, checked on its UTF-8 with one table look-up a
/// byte (a URL is checked for each image of every result).
package enum PlainURL {
    /// Whether `text` is `http://` or `https://` (lower case), a host of letters, digits, `-`, `.`,
    /// `_` and `~`, an optional port up to 65535, then a path, query and fragment of RFC 3986's
    /// allowed ASCII characters with well-formed percent escapes. Such text `URL(string:)` reads as
    /// written, with that scheme and host; anything else (user info, IP literals, spaces, other
    /// scripts) is left to `URL(string:)`.
    package static func isPlainAbsolute(_ text: String) -> Bool {
        text.withUTF8Bytes { isPlainAbsolute($0) }
    }

    /// SAFETY: every read of `bytes[index]` is guarded by `index < bytes.count` (and `index + 2 <
    /// bytes.count` for an escape's two digits); `classes` has 256 entries, indexed by a byte. The
    /// buffer is the caller's, borrowed for this call.
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

    /// SAFETY: compares `prefix.utf8CodeUnitCount` bytes, after checking `bytes` has as many; a
    /// `StaticString`'s bytes are static.
    private static func startsWith(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { prefixBytes in
            for offset in 0..<prefixBytes.count where bytes[offset] != prefixBytes[offset] { return false }
            return true
        }
    }

    /// RFC 3986's `unreserved` (letters, digits, `-._~`): a plain host.
    private static let hostCharacter: UInt8 = 1
    /// `unreserved`, `sub-delims` (`!$&'()*+,;=`), `:`, `@`, `/` and `?`: a path, query or fragment.
    private static let pathCharacter: UInt8 = 2
    private static let digit: UInt8 = 4
    private static let hexDigit: UInt8 = 8

    /// Each byte's classes, looked up once a character.
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
