import SeekKit
import Testing

/// Every scalar a terminal acts on instead of showing: C0 but the line break, DEL, C1, bidi overrides.
private func hasControl(_ text: String, allowingNewline: Bool = false) -> Bool {
    text.unicodeScalars.contains { scalar in
        if allowingNewline, scalar == "\n" { return false }
        return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

@Suite("Untrusted text: what an upstream says is made safe to print")
struct UntrustedTextTests {
    @Test("printable text passes unchanged", arguments: [
        "The Lord of the Rings", "위대한 이야기", "Fantastic Mr Fox — a fox’s tale", "", "  spaced  out  ", "café",
    ])
    func printableTextIsKept(text: String) {
        #expect(UntrustedText.line(text) == text)
        #expect(UntrustedText.paragraph(text) == text)
    }

    @Test("control characters are removed from a line", arguments: [
        ("\u{1B}]0;owned\u{07}Title", "]0;ownedTitle"),
        ("red \u{1B}[31mtext\u{1B}[0m", "red [31mtext[0m"),
        ("nul\u{00}bell\u{07}del\u{7F}", "nulbelldel"),
        ("c1 \u{9B}31m csi", "c1 31m csi"),
        ("bidi \u{202E}txt.exe\u{202C} \u{2066}x\u{2069}", "bidi txt.exe x"),
    ])
    func controlCharactersAreRemoved(input: String, expected: String) {
        #expect(UntrustedText.line(input) == expected)
        #expect(!hasControl(UntrustedText.line(input)))
    }

    @Test("every kind of line break becomes a space in a line, so no forged line can start",
          arguments: ["\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"])
    func lineBreaksFoldInALine(newline: String) {
        let forged = "not found\(newline)seek: openlibrary: forged line"
        let cleaned = UntrustedText.line(forged)
        #expect(cleaned == "not found seek: openlibrary: forged line")
        #expect(!cleaned.contains("\n"))
    }

    @Test("a paragraph keeps its line breaks as \\n (CR LF and a lone CR are one break each)")
    func paragraphKeepsBreaks() {
        #expect(UntrustedText.paragraph("one\r\ntwo\rthree\nfour\u{2029}five") == "one\ntwo\nthree\nfour\nfive")
        #expect(UntrustedText.paragraph("tab\there\u{1B}[2J") == "tab here[2J")
    }

    @Test("a 1 MiB message is cut to the line limit with an ellipsis")
    func hugeTextIsCut() {
        let huge = String(repeating: "x", count: 1 << 20)
        let cleaned = UntrustedText.line(huge)
        #expect(cleaned.count == UntrustedText.lineLimit)
        #expect(cleaned.hasSuffix("…"))
        #expect(UntrustedText.paragraph(huge).count == UntrustedText.paragraphLimit)
    }

    @Test("the cut counts characters, never splitting a Korean syllable or an emoji")
    func cutKeepsCharactersWhole() {
        let cleaned = UntrustedText.line(String(repeating: "한👍🏽", count: 400), limit: 11)
        #expect(cleaned.count == 11)
        #expect(cleaned == String(repeating: "한👍🏽", count: 5) + "…")
    }

    @Test("a limit of zero or less still gives at most one character")
    func tinyLimits() {
        #expect(UntrustedText.line("abc", limit: 0) == "…")
        #expect(UntrustedText.line("abc", limit: -5) == "…")
        #expect(UntrustedText.line("a", limit: .max) == "a")
    }

    @Test("text made only of control characters becomes empty")
    func onlyControls() {
        #expect(UntrustedText.line("\u{1B}\u{00}\u{07}\u{9B}") == "")
    }

    @Test("a text of more scalars than the limit but no more characters is not cut (combining marks)")
    func scalarsOverCharactersUnder() {
        let text = String(repeating: "e\u{301}", count: 200)  // 400 scalars, 200 characters
        #expect(UntrustedText.line(text, limit: 300) == text)
        #expect(UntrustedText.line(text, limit: 100).count == 100)
    }

    @Test("clean non-ASCII text within the limit comes back as it was")
    func cleanNonASCII() {
        for text in ["항구의 밤", "Ça va — «oui»", "🚢 harbor"] {
            #expect(UntrustedText.line(text) == text)
        }
    }
}
