import NIOConcurrencyHelpers
import Dispatch
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekSupport
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
        ("항구", "항구"),
        ("항구 ", "항구"),
        ("\u{2029}항구", "항구"),
        ("항구\u{1680}", "항구"),
        ("항 구", "항 구"),
        ("\u{200B}항구", "\u{200B}항구"),  // a zero-width space is not White_Space
    ])
    func trimming(_ text: String, _ expected: String) {
        #expect(text.trimmed() == expected)
    }

    @Test("isWhiteSpace is Unicode's White_Space property, for every scalar")
    func whiteSpaceList() {
        var disagreements: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if scalar.isWhiteSpace != scalar.properties.isWhitespace { disagreements.append(value) }
        }
        #expect(disagreements.isEmpty)
    }

    @Test("trimmed() works on substrings")
    func trimmingSubstring() {
        let text = "[ inner ]"
        #expect(text.dropFirst().dropLast().trimmed() == "inner")
    }

    @Test("fields split on scalars, so a character that joins the next hides no separator")
    func fieldsOnScalars() {
        #expect("a\u{600};b".split(separator: ";").count == 1)  // why: Characters would join the two
        #expect("a\u{600};b".fields(separatedBy: ";") == ["a\u{600}", "b"])
        #expect("e\u{301},x".fields(separatedBy: ",") == ["e\u{301}", "x"])
        #expect(";a;;b;".fields(separatedBy: ";") == ["a", "b"])
        #expect(";a;;b;".fields(separatedBy: ";", keepingEmpty: true) == ["", "a", "", "b", ""])
        #expect("k=v=w".fields(separatedBy: "=", maxSplits: 1) == ["k", "v=w"])
        #expect("".fields(separatedBy: ";").isEmpty)
        #expect("한강;🏳️‍🌈".fields(separatedBy: ";") == ["한강", "🏳️‍🌈"])
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

    @Test("containsBytes and replacingAll agree with a byte-by-byte search on 5,000 random texts and patterns")
    func searchMatchesNaiveSearch() {
        var random = SplitMix(seed: 30)
        // A small alphabet, so that heads repeat and partial matches are common; one multi-byte letter.
        let alphabet: [String] = ["a", "b", "ab", "=", "&", "é"]
        func draw(_ length: Int) -> String {
            (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
        }
        func naiveReplacing(_ text: [UInt8], _ pattern: [UInt8], _ replacement: [UInt8]) -> [UInt8] {
            var result: [UInt8] = []
            var index = 0
            while index < text.count {
                if index + pattern.count <= text.count, Array(text[index..<(index + pattern.count)]) == pattern {
                    result += replacement
                    index += pattern.count
                } else {
                    result.append(text[index])
                    index += 1
                }
            }
            return result
        }
        for _ in 0..<5_000 {
            let text = draw(Int(random.next() % 40))
            let pattern = draw(1 + Int(random.next() % 4))
            let expected = naiveReplacing(Array(text.utf8), Array(pattern.utf8), Array("X".utf8))
            #expect(Array(text.replacingAll(pattern, with: "X").utf8) == expected, "\(text) / \(pattern)")
            #expect(text.containsBytes(of: pattern) == (expected != Array(text.utf8)), "\(text) / \(pattern)")
        }
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
        #expect("a&".containsBytes(of: "&"))  // one byte, found last
        #expect(!"abc항구".containsBytes(of: "&"))
        #expect("&&x&".replacingAll("&", with: "+") == "++x+")
    }
}

@Suite("Deadline: its timer's interval and the race")
struct DeadlineIntervalTests {
    @Test("a negative limit fires at once, a limit past a year fires after a year, others to the nanosecond")
    func interval() {
        #expect(Deadline.nanoseconds(.seconds(-5)) == 0)
        #expect(Deadline.nanoseconds(.milliseconds(-1)) == 0)
        #expect(Deadline.nanoseconds(.seconds(Int64.max)) == 365 * 86_400 * 1_000_000_000)
        #expect(Deadline.nanoseconds(.seconds(Int64.min)) == 0)
        #expect(Deadline.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(Deadline.nanoseconds(.nanoseconds(7)) == 7)
        #expect(Deadline.nanoseconds(.zero) == 0)
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

    @Test("a race that ends leaves no timer behind, whichever side won")
    func noTimerLeft() async throws {
        let before = DeadlineTimers.shared.pendingCount
        for _ in 0..<200 { _ = try await Deadline.race(.seconds(60)) { 1 } }
        _ = try? await Deadline.race(.milliseconds(5)) { try await Task.sleep(for: .seconds(10)); return 1 }
        #expect(DeadlineTimers.shared.pendingCount == before)
    }
}
