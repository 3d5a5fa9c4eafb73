import SeekCore
import SeekConfig
import SeekHTTP
import SeekJSON
import SeekLoopback
import Testing

@Suite("Text helpers: trimming and replacing without Foundation")
struct TextTests {
    @Test("trimmed() drops leading and trailing spaces, tabs, line breaks and Unicode spaces", arguments: [
        ("  harbor  ", "harbor"),
        ("\t\nharbor\r\n", "harbor"),
        ("\u{3000}항구\u{00A0}", "항구"),
        ("in  between  stays", "in  between  stays"),
        ("   ", ""),
        ("", ""),
        ("e\u{301} ", "e\u{301}"),
    ])
    func trimming(_ text: String, _ expected: String) {
        #expect(text.trimmed() == expected)
    }

    @Test("trimmed() works on substrings")
    func trimmingSubstring() {
        let text = "[ inner ]"
        #expect(text.dropFirst().dropLast().trimmed() == "inner")
    }

    @Test("replacingAll replaces every occurrence, longer targets and non-ASCII included")
    func replacing() {
        #expect("a+b+c".replacingAll("+", with: "%2B") == "a%2Bb%2Bc")
        #expect("key=abc&other=abcabc".replacingAll("abc", with: "REDACTED") == "key=REDACTED&other=REDACTEDREDACTED")
        #expect("항구-서울".replacingAll("-", with: " ") == "항구 서울")
        #expect("say \"hi\"".replacingAll("\"", with: "\"\"") == "say \"\"hi\"\"")
    }

    @Test("replacingAll matches code units like Foundation: the \\n of a \\r\\n is replaced too")
    func replacingInsideGraphemes() {
        #expect("one\r\ntwo".replacingAll("\n", with: " ") == "one\r two")
    }

    @Test("replacingAll with an empty or absent target returns the text unchanged")
    func replacingNothing() {
        #expect("text".replacingAll("", with: "x") == "text")
        #expect("text".replacingAll("longer than text", with: "x") == "text")
        #expect("text".replacingAll("q", with: "x") == "text")
    }
}
