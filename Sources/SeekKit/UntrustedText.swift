import SeekCore
import SeekSupport

/// Text from an upstream made safe to print on a terminal, in a log or on a page: the one place
/// that decides what of an upstream's text may reach the user.
///
/// Control characters (C0, DEL, C1: ESC, NUL, BEL…) and bidirectional overrides are removed, a tab
/// becomes a space, and the text is cut to a length with "…". `line` turns each line break (LF, CR,
/// CR LF, VT, FF, NEL, U+2028/9) into a space, so no upstream text starts a line of its own;
/// `paragraph` turns each into `\n`.
public enum UntrustedText {
    /// The longest one-line text kept (a title, a creator, an error message), in characters.
    public static let lineLimit = 300
    /// The longest multi-line text kept (a description), in characters.
    public static let paragraphLimit = 10_000

    /// `text` as one line of at most `limit` characters.
    public static func line(_ text: String, limit: Int = lineLimit) -> String {
        clean(text, keepingBreaks: false, limit: limit)
    }

    /// `text` with its line breaks kept (as `\n`), at most `limit` characters.
    public static func paragraph(_ text: String, limit: Int = paragraphLimit) -> String {
        clean(text, keepingBreaks: true, limit: limit)
    }

    /// Whether `text` is already what `line` makes of it: printable ASCII within the limit. Most
    /// upstream text is, and then costs one pass over its bytes and no copy.
    static func isPrintableASCII(_ text: String, limit: Int) -> Bool {
        guard text.utf8.count <= limit else { return false }
        return WordScan.isPrintableASCII(text)
    }

    private static func clean(_ text: String, keepingBreaks: Bool, limit: Int) -> String {
        let limit = max(1, limit)
        if isPrintableASCII(text, limit: limit) { return text }
        let cleaned = text.unicodeScalars.allSatisfy({ classify($0) == .keep }) ? text : rebuilt(text, keepingBreaks: keepingBreaks)
        // Characters never outnumber scalars: only a text of more scalars than the limit can be over it,
        // and only then are its characters counted.
        guard cleaned.unicodeScalars.count > limit, cleaned.count > limit else { return cleaned }
        return String(cleaned.prefix(limit - 1)) + "…"
    }

    /// `text` with each scalar treated as `classify` says.
    private static func rebuilt(_ text: String, keepingBreaks: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch classify(scalar) {
            case .keep: scalars.append(scalar)
            case .space: scalars.append(" ")
            case .lineBreak:
                // CR LF is one break.
                if scalar == "\n", previous == "\r" { continue }
                scalars.append(keepingBreaks ? "\n" : " ")
            case .drop: continue
            }
        }
        return String(scalars)
    }

    private enum Treatment { case keep, space, lineBreak, drop }

    private static func classify(_ scalar: Unicode.Scalar) -> Treatment {
        switch scalar.value {
        case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: .lineBreak
        case 0x09: .space
        case 0x00...0x1F, 0x7F...0x9F: .drop
        // Bidirectional embeddings, overrides and isolates: they reorder what a terminal shows.
        case 0x202A...0x202E, 0x2066...0x2069: .drop
        default: .keep
        }
    }
}
