import SeekSupport

/// Text helpers every provider uses, in native Swift: on Linux, Foundation's `StringProtocol`
/// methods such as `trimmingCharacters(in:)` go through `NSString` and UTF-16, which made trimming
/// the largest single cost of mapping a provider's answer (issue 5's fan-out profile).
extension String {
    /// The text without leading and trailing white space (`StringProtocol.trimmed()`); text with
    /// nothing to trim comes back as it is, not copied.
    public func trimmed() -> String {
        if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return self
        }
        // Text in other scripts (Korean titles) mostly has nothing to trim either: its first and last
        // scalars are not white space, and then it is not copied (issue 30).
        if let first = unicodeScalars.first, let last = unicodeScalars.last, !first.isWhiteSpace, !last.isWhiteSpace {
            return self
        }
        return Substring(self).trimmed()
    }
}

extension Unicode.Scalar {
    /// Unicode's White_Space property (`properties.isWhitespace`), from its list of 25 code points, fixed
    /// since Unicode 6.3: without the property table's look-up, which trimming did twice for every
    /// non-ASCII text (tested against the table for every scalar).
    package var isWhiteSpace: Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}

extension StringProtocol {
    /// Whether every character is ASCII: such text needs no Unicode normalisation or folding.
    public var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }

    /// The text without leading and trailing white space: spaces, tabs and line breaks (Unicode's
    /// White_Space property, which is Foundation's `.whitespacesAndNewlines`).
    public func trimmed() -> String {
        // Most text has nothing to trim: it starts and ends with printable ASCII other than a space,
        // and then no Unicode property is looked up.
        let text = Substring(self)
        if let first = text.utf8.first, let last = text.utf8.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return String(text)
        }
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.isWhiteSpace }),
              let end = scalars.lastIndex(where: { !$0.isWhiteSpace })
        else { return "" }
        return String(Substring(scalars[start...end]))
    }

    /// The pieces between each `separator`, found on Unicode scalars, not Characters: header, cookie
    /// and query syntax is bytes, and a character that joins the next one (U+0600, a prepended
    /// concatenation mark) must not hide a `;` or `,` after it (`"a\u{600};b".split(separator: ";")`
    /// is one piece). Empty pieces are dropped unless `keepingEmpty`.
    public func fields(separatedBy separator: Unicode.Scalar, maxSplits: Int = .max, keepingEmpty: Bool = false) -> [Substring] {
        Substring(self).unicodeScalars
            .split(separator: separator, maxSplits: maxSplits, omittingEmptySubsequences: !keepingEmpty)
            .map(Substring.init)
    }

    /// The text with every occurrence of `target` replaced by `replacement`, matched on UTF-8 code
    /// units like Foundation's `replacingOccurrences(of:with:)` (so the `\n` of a `\r\n` matches too).
    /// Text without an occurrence comes back as it is, nothing built.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let text = String(self)
        return UTF8Search.replacingAll(in: text, target, with: replacement) ?? text
    }
}
