import Foundation
import SeekKit

/// Calibre's comment (`comments.text`, HTML from its editor or a metadata source) as clean text:
/// each paragraph, list item and line break on a line of its own, every other tag removed (with the contents of
/// `script` and `style`), character references decoded once, runs of spaces collapsed.
enum CommentText {
    static func plain(_ html: String) -> String {
        var text = ""
        text.reserveCapacity(html.utf8.count)
        var index = html.startIndex
        var skipping: String?
        while index < html.endIndex {
            let character = html[index]
            guard character == "<", let close = html[index...].firstIndex(of: ">") else {
                if skipping == nil { text.append(character) }
                index = html.index(after: index)
                continue
            }
            let tag = html[html.index(after: index)..<close]
            let name = tagName(tag)
            let closing = tag.hasPrefix("/")
            if let skipped = skipping {
                if closing, name == skipped { skipping = nil }
            } else if !closing, name == "script" || name == "style" {
                skipping = name
            } else if blockTags.contains(name) {
                text.append("\n")
                if name == "li", !closing { text.append("• ") }
            }
            index = html.index(after: close)
        }
        let decoded = decodeReferences(text)
        let lines = decoded.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{A0}" || $0 == "\r" }).joined(separator: " ")
        }
        // One paragraph a line: the empty lines block tags leave between them go.
        return UntrustedText.paragraph(lines.filter { !$0.isEmpty }.joined(separator: "\n"))
    }

    private static let blockTags: Set<String> = [
        "p", "br", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "tr", "table", "hr", "pre",
    ]

    private static func tagName(_ tag: Substring) -> String {
        tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
    }

    private static let named: [String: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "hellip": "…", "mdash": "—",
        "ndash": "–", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«", "raquo": "»", "middot": "·",
        "eacute": "é", "egrave": "è", "aacute": "á", "agrave": "à", "uuml": "ü", "ouml": "ö", "auml": "ä", "szlig": "ß",
        "ccedil": "ç", "ntilde": "ñ", "copy": "©", "bull": "•",
    ]

    /// `&amp;`, `&#39;`, `&#x27;` and the names above decoded once; anything else left as it is.
    static func decodeReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var index = text.startIndex
        while let ampersand = text[index...].firstIndex(of: "&") {
            result += text[index..<ampersand]
            let start = text.index(after: ampersand)
            if let semicolon = text[start...].prefix(11).firstIndex(of: ";"), let character = reference(text[start..<semicolon]) {
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

    private static func reference(_ body: Substring) -> Character? {
        guard let first = body.first else { return nil }
        guard first == "#" else { return named[String(body)] }
        let digits = body.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits)
        }
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return Character(scalar)
    }
}
