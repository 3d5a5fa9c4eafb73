import Dispatch
import SeekCore
import SeekKit
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
        ("harbor", "harbor"),
        ("h", "h"),
        (" h", "h"),
        ("h\u{3000}", "h"),
        ("\u{3000}h", "h"),
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

    @Test("replacingAll finds a match at the very end, overlapping starts and a pattern as long as the text")
    func replacingAtTheEdges() {
        #expect("abcab".replacingAll("ab", with: "X") == "XcX")
        #expect("aaa".replacingAll("aa", with: "b") == "ba")
        #expect("secret".replacingAll("secret", with: "R") == "R")
        #expect("xsecre".replacingAll("secret", with: "R") == "xsecre")
    }

    @Test("containsBytes(of:) finds what replacingAll would replace, and nothing else")
    func containsBytes() {
        #expect("key=abc&x".containsBytes(of: "abc"))
        #expect("항구-서울".containsBytes(of: "서울"))
        #expect(!"key=ab".containsBytes(of: "abc"))
        #expect(!"".containsBytes(of: "a"))
        #expect("one\r\ntwo".containsBytes(of: "\n"))
    }
}

@Suite("Deadline: the dispatch timer's interval")
struct DeadlineIntervalTests {
    @Test("a negative limit fires at once, a limit past a year fires after a year, others to the nanosecond")
    func interval() {
        #expect(Deadline.dispatchInterval(.seconds(-5)) == .nanoseconds(0))
        #expect(Deadline.dispatchInterval(.milliseconds(-1)) == .nanoseconds(0))
        #expect(Deadline.dispatchInterval(.seconds(Int64.max)) == .seconds(365 * 86_400))
        #expect(Deadline.dispatchInterval(.milliseconds(1500)) == .nanoseconds(1_500_000_000))
        #expect(Deadline.dispatchInterval(.zero) == .nanoseconds(0))
    }

    @Test("a race whose work ends first returns its value long before a 60 s limit")
    func workFirst() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<1000 {
            #expect(try await Deadline.race(.seconds(60)) { 42 } == 42)
        }
        #expect(clock.now - start < .seconds(30))
    }

    @Test("a limit that passes first throws a timeout")
    func limitFirst() async {
        await #expect(throws: SeekError.self) {
            try await Deadline.race(.milliseconds(20)) { try await Task.sleep(for: .seconds(10)); return 1 }
        }
    }
}
