import SeekCore
import SeekKit
/// Decodes HTML character references (`&lt;`, `&amp;`, `&#39;`, `&#x27;`, …) in text that an API sends
/// HTML-escaped, once, as plain text: `&amp;lt;` becomes `&lt;`, and unknown references stay as they are.
enum HTMLEntities {
    /// The named references seen in book metadata, plus the common typographic ones.
    static let named: [String: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ",
        "middot": "·", "hellip": "…", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
        "sbquo": "‚", "bdquo": "„", "ndash": "–", "mdash": "—", "laquo": "«", "raquo": "»",
        "lsaquo": "‹", "rsaquo": "›", "bull": "•", "times": "×", "divide": "÷", "deg": "°",
        "copy": "©", "reg": "®", "trade": "™", "sect": "§", "para": "¶", "prime": "′", "Prime": "″",
        "larr": "←", "rarr": "→", "uarr": "↑", "darr": "↓", "star": "☆", "starf": "★",
        "eacute": "é", "egrave": "è", "aacute": "á", "agrave": "à", "uuml": "ü", "ouml": "ö", "auml": "ä",
        "szlig": "ß", "ccedil": "ç", "ntilde": "ñ",
    ]

    /// The longest reference body looked for after `&` (`#x10FFFF` and `rsaquo` fit).
    static let maxReferenceLength = 10

    static func decode(_ text: String) -> String {
        // Looked for in the bytes themselves: most text holds no reference, and a scan of its `utf8`
        // view cost 660 instructions a field (issue 30).
        guard text.containsBytes(of: "&") else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var index = text.startIndex
        while let ampersand = text[index...].firstIndex(of: "&") {
            result += text[index..<ampersand]
            let start = text.index(after: ampersand)
            if let semicolon = text[start...].prefix(maxReferenceLength + 1).firstIndex(of: ";"),
               let character = reference(text[start..<semicolon])
            {
                result.append(character)
                index = text.index(after: semicolon)
            } else {
                result.append("&")
                index = start
            }
        }
        result += text[index...]
        return result
    }

    /// The character a reference body (`lt`, `#39`, `#x27`) stands for, or nil when it is not one.
    static func reference(_ body: Substring) -> Character? {
        guard !body.isEmpty else { return nil }
        if body.first == "#" {
            let digits = body.dropFirst()
            let value: UInt32?
            if let marker = digits.first, marker == "x" || marker == "X" {
                let hex = digits.dropFirst()
                value = hex.isEmpty || !hex.allSatisfy(\.isHexDigit) ? nil : UInt32(hex, radix: 16)
            } else {
                value = digits.isEmpty || !digits.allSatisfy({ $0.isASCII && $0.isNumber }) ? nil : UInt32(digits)
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return Character(scalar)
        }
        return named[String(body)]
    }
}
