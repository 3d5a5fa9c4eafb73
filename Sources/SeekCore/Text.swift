/// Text helpers every provider uses, in native Swift: on Linux, Foundation's `StringProtocol`
/// methods such as `trimmingCharacters(in:)` go through `NSString` and UTF-16, which made trimming
/// the largest single cost of mapping a provider's answer (issue 5's fan-out profile).
extension StringProtocol {
    /// Whether every character is ASCII: such text needs no Unicode normalisation or folding.
    public var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }

    /// The text without leading and trailing white space: spaces, tabs and line breaks (Unicode's
    /// White_Space property, which is Foundation's `.whitespacesAndNewlines`).
    public func trimmed() -> String {
        let text = Substring(self)
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(Substring(scalars[start...end]))
    }

    /// The text with every occurrence of `target` replaced by `replacement`, matched on UTF-8 code
    /// units like Foundation's `replacingOccurrences(of:with:)` (so the `\n` of a `\r\n` matches too).
    /// Text without an occurrence comes back as it is, nothing built.
    public func replacingAll(_ target: String, with replacement: String) -> String {
        let source = Array(utf8)
        let pattern = Array(target.utf8)
        func matches(at index: Int) -> Bool {
            index + pattern.count <= source.count && source[index..<(index + pattern.count)].elementsEqual(pattern)
        }
        guard !pattern.isEmpty, var index = source.indices.first(where: matches) else { return String(self) }
        var result = Array(source[..<index])
        result.reserveCapacity(source.count)
        while index < source.count {
            if matches(at: index) {
                result.append(contentsOf: replacement.utf8)
                index += pattern.count
            } else {
                result.append(source[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
