import Foundation

/// The text transforms a declared field may ask for: markup stripped, names turned round, a part of a
/// value cut out. Each works on any input without trapping (the fuzzer feeds them arbitrary bodies).
enum DeclaredText {
    /// `text` without HTML tags (`<b>`, `</b>`, `<br/>`) and with character references decoded once
    /// (`&amp;lt;` becomes `&lt;`). A `<` that opens no tag (`a < b`) is kept. A decoded carriage return
    /// is a line break.
    static func strippingMarkup(_ text: String) -> String {
        guard text.contains("<") || text.contains("&") else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "<", let end = tagEnd(in: text, from: index) {
                index = end
                continue
            }
            if character == "&", let (decoded, end) = reference(in: text, from: index) {
                result.append(decoded == "\r" ? "\n" : decoded)
                index = end
                continue
            }
            result.append(character)
            index = text.index(after: index)
        }
        return result
    }

    /// The index after the `>` of a tag starting at `start`, when `<` opens one (a letter, `/` or `!` next).
    private static func tagEnd(in text: String, from start: String.Index) -> String.Index? {
        let next = text.index(after: start)
        guard next < text.endIndex else { return nil }
        let first = text[next]
        guard first == "/" || first == "!" || (first.isASCII && first.isLetter) else { return nil }
        guard let close = text[next...].firstIndex(of: ">") else { return nil }
        // A tag never spans another `<`; `a <b and c> d` with a second `<` before `>` is text.
        if text[next..<close].contains("<") { return nil }
        return text.index(after: close)
    }

    static let named: [String: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "middot": "·", "hellip": "…",
        "ndash": "–", "mdash": "—", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«", "raquo": "»",
        "copy": "©", "reg": "®", "trade": "™", "times": "×", "deg": "°",
    ]

    /// The character a reference at `start` (`&amp;`, `&#39;`, `&#x0D;`) stands for, and the index after its `;`.
    private static func reference(in text: String, from start: String.Index) -> (Character, String.Index)? {
        let body = text[text.index(after: start)...].prefix(12)
        guard let semicolon = body.firstIndex(of: ";") else { return nil }
        let name = body[..<semicolon]
        let end = text.index(after: semicolon)
        if name.hasPrefix("#") {
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits, radix: 10)
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return (Character(scalar), end)
        }
        guard let character = named[String(name)] else { return nil }
        return (character, end)
    }

    /// "Dickens, Charles" → "Charles Dickens"; "Forster, E. M. (Edward Morgan)" → "E. M. Forster";
    /// "King, Martin Luther, Jr." → "Martin Luther King Jr."; a name without a comma ("Homer") as it is.
    static func firstLast(_ name: String) -> String {
        var text = name.trimmingCharacters(in: .whitespaces)
        // The full form in parentheses at the end repeats the given names.
        if text.hasSuffix(")"), let open = text.lastIndex(of: "("), open > text.startIndex {
            let before = text[..<open].trimmingCharacters(in: .whitespaces)
            if before.contains(",") { text = before }
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard parts.count >= 2 else { return parts.first ?? text }
        return ([parts[1], parts[0]] + parts.dropFirst(2)).joined(separator: " ")
    }

    /// The text after the first `after` (when given) and before the next `before` (when given); nil
    /// when `after` is not there. A missing `before` keeps the rest.
    static func cut(_ text: String, after: String?, before: String?) -> String? {
        var rest = Substring(text)
        if let after {
            guard let range = rest.range(of: after) else { return nil }
            rest = rest[range.upperBound...]
        }
        if let before, let range = rest.range(of: before) {
            rest = rest[..<range.lowerBound]
        }
        return String(rest)
    }
}
