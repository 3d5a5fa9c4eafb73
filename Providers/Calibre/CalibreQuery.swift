import Foundation
import SeekCore

/// A reader's search text as an FTS5 expression over the index (`CalibreIndex`).
enum CalibreQuery {
    /// Every word must match (in any column). The last word matches as a prefix (the reader may still
    /// be typing it), and so does any other of four characters or more, or in a script other than
    /// Latin (a Korean word with a particle: "소년" finds "소년이"); short Latin words ("the", "of")
    /// match whole, or their prefixes would pull in half the library.
    /// A query that is an ISBN in any form (hyphens, spaces, ISBN-10) matches the ISBN-13 in the
    /// identifiers column, and so does each word that is one. Nil when nothing searchable is left.
    static func match(_ text: String) -> String? {
        let trimmed = text.trimmed()
        if let isbn = isbn(trimmed) { return "identifiers : \"\(isbn)\"" }
        var terms: [String] = []
        let words = trimmed.split(whereSeparator: { $0.isWhitespace })
        for (position, word) in words.enumerated() {
            if let isbn = isbn(String(word)) {
                terms.append("identifiers : \"\(isbn)\"")
                continue
            }
            // FTS5's tokenizer splits the word further (on punctuation); a word of punctuation alone
            // would be an empty phrase.
            guard word.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
            let quoted = "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let last = position == words.count - 1
            let length = word.filter { $0.isLetter || $0.isNumber }.count
            let prefix = length >= 2 && (last || length >= 4 || !word.allSatisfy(\.isASCII))
            terms.append(prefix ? quoted + "*" : quoted)
        }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    /// The ISBN-13 `text` stands for, when it is a valid ISBN-10 or ISBN-13 in any usual form.
    static func isbn(_ text: String) -> String? {
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        guard digits.count == 10 || digits.count == 13 || digits.uppercased().hasPrefix("ISBN") else { return nil }
        return ISBN.normalized(text)
    }
}
