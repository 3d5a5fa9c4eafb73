import Foundation
import SeekSupport
import Testing

@Suite("Growing bytes")
struct GrowingBytesTests {
    @Test("bytes, runs, literals and strings appended across many growths read back as an array built alike")
    func appendsAcrossGrowths() {
        var bytes = GrowingBytes(capacity: 1)
        var expected: [UInt8] = []
        for round in 0..<2_000 {
            switch round % 4 {
            case 0:
                bytes.append(UInt8(truncatingIfNeeded: round))
                expected.append(UInt8(truncatingIfNeeded: round))
            case 1:
                let run = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
                ByteView.reading(run) { bytes.append(contentsOf: $0) }
                expected += run
            case 2:
                bytes.append(",\"key\":")
                expected += Array(",\"key\":".utf8)
            default:
                let text = "항구 \(round)"
                bytes.append(contentsOf: text)
                expected += Array(text.utf8)
            }
        }
        #expect(bytes.count == expected.count)
        #expect(bytes.withWritten { $0.elementsEqual(expected) }, "the bytes read back differ from those appended")
    }
}

@Suite("Byte scans")
struct ByteScanTests {
    @Test("the first control byte or either byte asked for is found at every position and alignment, as a byte-by-byte search finds it")
    func matchesTheNaiveSearch() {
        var state: UInt64 = 30
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let alphabet: [UInt8] = Array("ab \"'\\é/".utf8) + [0x00, 0x1F, 0x20, 0x7F, 0xFF]
        var found = 0
        for _ in 0..<3_000 {
            let bytes = (0..<Int(next() % 40)).map { _ in next() % 5 == 0 ? alphabet[Int(next() % UInt64(alphabet.count))] : UInt8(ascii: "x") }
            let start = Int(next() % 8)
            for (first, second) in [(UInt8(ascii: "\""), UInt8(ascii: "\\")), (UInt8(ascii: "'"), UInt8(ascii: "'"))] {
                let expected = bytes.indices.first { $0 >= start && (bytes[$0] < 0x20 || bytes[$0] == first || bytes[$0] == second) } ?? bytes.count
                let scanned = ByteView.reading(bytes) { WordScan.firstControl(or: first, second, in: $0, from: start) }
                #expect(WordScan.firstControl(or: first, second, in: Data(bytes), from: start) == expected)
                #expect(scanned == expected, "\(bytes) from \(start)")
                if expected < bytes.count { found += 1 }
            }
        }
        #expect(found > 1_000)
    }

    @Test("printable ASCII is told apart from every other byte value, at every position of a word and past it")
    func printableASCII() {
        let plain = Array("harbor: a story".utf8)
        #expect(WordScan.isPrintableASCII(String(decoding: plain, as: UTF8.self)))
        #expect(WordScan.isPrintableASCII(""))
        for length in [1, 7, 8, 9, 16, 23] {
            for position in 0..<length {
                for value in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "~"), count: length)
                    bytes[position] = value
                    let expected = value >= 0x20 && value < 0x7F
                    #expect(ByteView.reading(bytes) { WordScan.isPrintableASCII($0) } == expected, "\(value) at \(position) of \(length)")
                }
            }
        }
    }
}

@Suite("Byte views: reads checked, runs decoded and compared")
struct ByteViewTests {
    @Test("a view of data, text or bytes reads the same bytes, and its runs decode, copy and compare")
    func readsAndRuns() {
        let text = "항구 harbor"
        let bytes = Array(text.utf8)
        for view in [ByteView.reading(Data(bytes), Array.init), ByteView.reading(text, Array.init), ByteView.reading(bytes, Array.init)] {
            #expect(view == bytes)
        }
        ByteView.reading(text) { view in
            #expect(view.count == bytes.count)
            #expect(view.string(0..<3) == "항")
            #expect(view.string(7..<13) == "harbor")
            #expect(view.array(7..<9) == Array("ha".utf8))
            #expect(view.view(7..<13).elementsEqual("harbor".utf8))
            #expect(view.matches("harbor", at: 7))
            #expect(!view.matches("harbors", at: 7), "a literal longer than what is left")
            #expect(!view.matches("h", at: -1))
            #expect(view.equals(Array("harbor".utf8), in: 7..<13))
            #expect(!view.equals(Array("harbour".utf8), in: 7..<13), "another length")
            #expect(!view.equals(Array("Harbor".utf8), in: 7..<13))
            #expect(view.equals([], in: 3..<3))
            #expect(view.string(13..<13) == "")
        }
        #expect(ByteView.reading(Data()) { $0.isEmpty && $0.string(0..<0).isEmpty })
    }

    @Test("ill-formed UTF-8 decodes with replacement characters, as String(decoding:) does")
    func illFormed() {
        let bytes: [UInt8] = [0x61, 0xFF, 0x62]
        #expect(ByteView.reading(bytes) { $0.string(0..<3) } == "a\u{FFFD}b")
    }
}

@Suite("Growing bytes: decimal numbers")
struct DecimalTests {
    @Test("whole numbers are written as their description, the extremes and across growths included")
    func decimals() {
        var generator = SplitMix(seed: 51)
        var values: [Int] = [0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, Int.max - 1, Int.min + 1]
        for _ in 0..<2_000 { values.append(Int(truncatingIfNeeded: generator.next()) >> Int(generator.next() % 63)) }
        var bytes = GrowingBytes(capacity: 1)
        var expected = ""
        for value in values {
            bytes.appendDecimal(value)
            bytes.append(UInt8(ascii: ","))
            expected += "\(value),"
        }
        #expect(bytes.makeString() == expected)
    }
}

@Suite("UTF-8 search")
struct UTF8SearchTests {
    /// Where `pattern` first occurs in `text` at or after `start`, byte by byte.
    func naive(_ pattern: [UInt8], in text: [UInt8], from start: Int) -> Int? {
        guard !pattern.isEmpty, pattern.count <= text.count, max(0, start) <= text.count - pattern.count else { return nil }
        return (max(0, start)...(text.count - pattern.count)).first { Array(text[$0..<($0 + pattern.count)]) == pattern }
    }

    @Test("contains and replacingAll agree with a byte-by-byte search on random texts over a small alphabet")
    func agreesWithNaive() {
        var generator = SplitMix(seed: 7)
        let alphabet = ["a", "b", "항", "\r\n", "\n", "&"]
        var found = 0
        for _ in 0..<3_000 {
            let text = (0..<Int(generator.next() % 12)).map { _ in alphabet[Int(generator.next() % 6)] }.joined()
            let pattern = (0..<Int(1 + generator.next() % 3)).map { _ in alphabet[Int(generator.next() % 6)] }.joined()
            let bytes = Array(text.utf8), target = Array(pattern.utf8)
            var expected: [UInt8] = [], index = 0
            while index < bytes.count {
                if let hit = naive(target, in: bytes, from: index), hit == index {
                    expected += Array("X".utf8)
                    index += target.count
                } else {
                    expected.append(bytes[index])
                    index += 1
                }
            }
            let has = naive(target, in: bytes, from: 0) != nil
            if has { found += 1 }
            #expect(UTF8Search.contains(text, pattern) == has, "\(text) / \(pattern)")
            #expect(UTF8Search.replacingAll(in: text, pattern, with: "X").map { Array($0.utf8) } == (has ? expected : nil), "\(text) / \(pattern)")
        }
        #expect(found > 500)
        #expect(UTF8Search.contains("text", ""))
        #expect(UTF8Search.replacingAll(in: "text", "", with: "x") == nil)
        #expect(UTF8Search.replacingAll(in: "ab", "abc", with: "x") == nil, "a pattern longer than the text")
    }
}

@Suite("Plain URLs")
struct PlainURLTests {
    @Test("plain absolute http(s) URLs pass; user info, IP literals, spaces, bad escapes and long ports do not")
    func plain() {
        for text in ["https://example.org", "http://a.b:8080/p?q=1#f", "https://x.y/%41%7e?a=b&c#frag?"] {
            #expect(PlainURL.isPlainAbsolute(text), "\(text)")
        }
        for text in ["", "ftp://a", "https://", "https://u@h", "http://[::1]/", "https://h/a b", "https://h/%4", "https://h/%zz",
                     "https://h:65536/", "https://h:/", "https://h#a#b", "HTTPS://h", "https://h/항"] {
            #expect(!PlainURL.isPlainAbsolute(text), "\(text)")
        }
    }
}
