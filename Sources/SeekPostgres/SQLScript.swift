/// A `.sql` file of the target (SQL/, embedded by the EmbedFiles plugin) cut into its statements:
/// PostgreSQL's extended protocol, which PostgresNIO speaks, takes one statement a query.
///
/// A statement ends at a `;` outside quotes and comments: `'…'` strings (`''` inside), `"…"` names,
/// `$tag$…$tag$` bodies (PL/pgSQL), `-- …` and `/* … */` comments. Comments are kept in the
/// statement they precede; a piece holding only comments and blanks is no statement.
struct SQLScript: Sendable, Hashable {
    /// The file's path under the target's folder (`SQL/breaker.sql`).
    let path: String
    let statements: [String]

    /// The embedded file at `path`; fails naming the path when the binary does not carry it.
    init(embedded path: String) throws {
        guard let text = EmbeddedFiles.text(path) else {
            throw SQLScriptError(path: path, reason: "not embedded in the binary (Sources/SeekPostgres/\(path) missing?)")
        }
        try self.init(path: path, text: text)
    }

    init(path: String, text: String) throws {
        self.path = path
        statements = try Self.split(text, path: path)
    }

    /// The statements of `text`, in order, each without its `;` and trimmed.
    static func split(_ text: String, path: String = "SQL") throws -> [String] {
        let bytes = Array(text.utf8)
        var statements: [String] = []
        var start = 0
        var meaningful = false
        var index = 0
        func finish(_ end: Int) {
            if meaningful {
                let piece = String(decoding: bytes[start..<end], as: UTF8.self)
                statements.append(piece.trimmingWhitespace())
            }
            start = end + 1
            meaningful = false
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                guard let end = find([UInt8(ascii: "*"), UInt8(ascii: "/")], in: bytes, from: index + 2) else {
                    throw SQLScriptError(path: path, reason: "a /* comment is never closed")
                }
                index = end + 2
                continue
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                meaningful = true
                index += 1
                // A doubled quote inside is the quote itself: it reads as closing and opening again.
                while index < bytes.count && bytes[index] != byte { index += 1 }
                guard index < bytes.count else {
                    throw SQLScriptError(path: path, reason: "a \(Character(Unicode.Scalar(byte))) quote is never closed")
                }
                index += 1
                continue
            case UInt8(ascii: "$"):
                meaningful = true
                if let tagEnd = dollarTagEnd(bytes, from: index) {
                    let tag = Array(bytes[index...tagEnd])
                    guard let close = find(tag, in: bytes, from: tagEnd + 1) else {
                        throw SQLScriptError(
                            path: path, reason: "the body opened by \(String(decoding: tag, as: UTF8.self)) is never closed")
                    }
                    index = close + tag.count
                    continue
                }
            case UInt8(ascii: ";"):
                finish(index)
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                break
            default:
                meaningful = true
            }
            index += 1
        }
        finish(bytes.count)
        return statements
    }

    /// Where the tag of a dollar quote that opens at `index` ends (its second `$`): `$$` or `$name$`,
    /// the name letters, digits and `_`, not starting with a digit. Nil for a `$` that opens none (`$1`).
    private static func dollarTagEnd(_ bytes: [UInt8], from index: Int) -> Int? {
        var cursor = index + 1
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "$") { return cursor }
            let letter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_") || byte >= 0x80
            let digit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            guard letter || (digit && cursor > index + 1) else { return nil }
            cursor += 1
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// A `.sql` file the schema cannot use: named, with why.
struct SQLScriptError: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "the shared database's SQL file \(path): \(reason)" }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
