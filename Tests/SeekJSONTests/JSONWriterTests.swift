import Foundation
import SeekCore
import SeekKit
import Testing

/// `JSONWriter`: how `seek` prints JSON and appends stats lines.
@Suite("JSON writer")
struct JSONWriterTests {
    /// Foundation's text for `value`, in the layout the writer keeps.
    func foundation(_ value: some Encodable, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("arrays, nesting, empty containers and null read exactly as JSONEncoder writes them", arguments: [false, true])
    func matchesJSONEncoderLayout(pretty: Bool) throws {
        let style: JSONWriter.Style = pretty ? .pretty : .compact
        let nested: [[Int?]] = [[1, nil, -3], [], [42]]
        #expect(JSONWriter.text(nested, style: style) == (try foundation(nested, pretty: pretty)))
        let single: [String: [String]] = ["key": ["a/b", "é", ""], ]
        #expect(JSONWriter.text(single, style: style) == (try foundation(single, pretty: pretty)))
        let empty: [String: Int] = [:]
        #expect(JSONWriter.text([empty], style: style) == (try foundation([empty], pretty: pretty)))
        #expect(JSONWriter.text([true, false], style: style) == (try foundation([true, false], pretty: pretty)))
    }

    @Test("withUTF8 hands over the document's bytes and then the trailer, in either style")
    func bytesWithTrailer() {
        let document = ["title": "항구 \"harbor\"", "next": "a\nb"]
        for style in [JSONWriter.Style.compact, .pretty] {
            let bytes = JSONWriter.withUTF8(document, style: style, trailer: "\n") { Array($0) }
            #expect(bytes == Array((JSONWriter.text(document, style: style) + "\n").utf8))
        }
    }

    @Test("numbers read as JSONEncoder writes them")
    func numbers() throws {
        let values: [Double] = [1, 0.1 + 0.2, 1e20, 1e-7, 1.2345678901234568e17, .leastNonzeroMagnitude, 1.5, 100, 1e16, 1e15, 12345.678, -2.25]
        #expect(JSONWriter.text(values) == (try foundation(values, pretty: false)))
        #expect(JSONWriter.text([Int.max, Int.min, 0]) == (try foundation([Int.max, Int.min, 0], pretty: false)))
    }

    @Test("strings escape quotes, backslashes and control characters, and keep slashes and non-ASCII")
    func strings() throws {
        let text = "q\"\\/\n\r\t\u{8}\u{C}\u{1}\u{1F}\u{7F}\u{2028}é😀"
        #expect(JSONWriter.text(text) == (try foundation(text, pretty: false)))
        #expect(JSONWriter.text(text) == #""q\"\\/\n\r\t\b\f\u0001\u001f"# + "\u{7F}\u{2028}é😀\"")
        #expect(try JSONValue(parsing: Data(JSONWriter.text(text).utf8)) == .string(text))
    }

    @Test("escapes at the start, the end and side by side, between long plain runs, read as JSONEncoder writes them")
    func escapesBetweenRuns() throws {
        let plain = String(repeating: "harbor ", count: 200)
        for text in ["\"" + plain, plain + "\\", "\n\n" + plain + "\t\"" + plain + "\u{0}", "", "\"", plain] {
            #expect(JSONWriter.text(text) == (try foundation(text, pretty: false)))
        }
    }

    @Test("every ASCII byte, at every place of an eight-byte word and across two, is escaped as JSONEncoder escapes it")
    func everyByteAtEveryOffset() throws {
        for byte in UInt8(0)..<0x80 {
            for offset in 0..<17 {
                var bytes = Array(repeating: UInt8(ascii: "a"), count: 17)
                bytes[offset] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(JSONWriter.text(text) == (try foundation(text, pretty: false)), "byte \(byte) at \(offset)")
            }
        }
    }

    @Test("bytes of multi-byte characters are never taken for ones to escape, whatever their place in a word")
    func multiByteCharactersAtEveryOffset() throws {
        for prefix in 0..<9 {
            let text = String(repeating: "x", count: prefix) + "é😀한국어\u{2028}\u{85}ÿ" + String(repeating: "y", count: 9)
            #expect(JSONWriter.text(text) == (try foundation(text, pretty: false)), "after \(prefix) ASCII bytes")
        }
    }

    @Test("object keys come out in the order they are written, not sorted or hashed")
    func keyOrder() {
        var writer = JSONWriter()
        writer.object { writer in
            writer.field("zebra", 1)
            writer.field("apple", "x")
            writer.field("mango") { $0.array { $0.element(true) } }
        }
        #expect(writer.text == #"{"zebra":1,"apple":"x","mango":[true]}"#)
    }

    @Test("whole numbers of every length and sign read as JSONEncoder writes them")
    func wholeNumbers() throws {
        var values: [Int] = [0, -1, 1, Int.max, Int.min, Int.max - 1, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
            power *= 10
        }
        #expect(JSONWriter.text(values) == (try foundation(values, pretty: false)))
    }

    @Test("a member named by data has its name escaped like any string")
    func namedMembersAreEscaped() throws {
        var writer = JSONWriter()
        writer.object { writer in
            writer.field(named: "say \"hi\"\n\\", 1)
            writer.field(named: "é/ü") { $0.null() }
        }
        #expect(writer.text == #"{"say \"hi\"\n\\":1,"é/ü":null}"#)
        let value = ["say \"hi\"\n\\": 1]
        #expect(JSONWriter.text(value) == (try foundation(value, pretty: false)))
    }

    @Test("a dictionary's keys are sorted, so the same dictionary always reads the same")
    func dictionaryKeysSorted() {
        let value = ["b": 2, "c": 3, "a": 1]
        #expect(JSONWriter.text(value) == #"{"a":1,"b":2,"c":3}"#)
    }

    @Test("a dictionary of any size, non-ASCII keys and keys that prefix others included, comes out sorted by key", arguments: 0...12)
    func dictionariesOfEverySizeAreSorted(size: Int) {
        let pool = ["b", "a", "ab", "é", "Z", "title", "titles", "year", "", "z", "가", "image", "url", "aa"]
        var generator = SystemRandomNumberGenerator()
        let keys = Array(pool.shuffled(using: &generator).prefix(size))
        let value = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let expected = "{" + keys.sorted().map { #""\#($0)":\#(value[$0] ?? -1)"# }.joined(separator: ",") + "}"
        #expect(JSONWriter.text(value) == expected)
    }

    @Test("pretty output indents nested objects by two spaces with \" : \" after each key")
    func prettyLayout() {
        var writer = JSONWriter(style: .pretty)
        writer.object { writer in
            writer.field("id", "x")
            writer.field("inner") { $0.object { $0.field("n", nil as Int?) } }
            writer.field("list", [String]())
        }
        #expect(writer.text == "{\n  \"id\" : \"x\",\n  \"inner\" : {\n    \"n\" : null\n  },\n  \"list\" : [\n\n  ]\n}")
    }

    @Test("NaN and infinity, which JSON cannot carry, are written as null")
    func nonFinite() throws {
        let text = JSONWriter.text([Double.nan, .infinity, -.infinity, 2])
        #expect(text == "[null,null,null,2]")
        #expect(try JSONValue(parsing: Data(text.utf8)) == .array([.null, .null, .null, .number(2)]))
    }
}

@Suite("JSON writer: item ids")
struct ItemIDWritingTests {
    @Test("an item id is written as the string of its description, escapes included", arguments: [
        ItemID(provider: "openlibrary", value: "OL45804W"), ItemID(provider: "aladin", value: "위대한 \"이야기\""),
        ItemID(provider: "echo", value: "a\\b\u{1}c:d"), ItemID(provider: "giphy", value: ""),
    ])
    func itemIDs(id: ItemID) {
        #expect(JSONWriter.text(id) == JSONWriter.text(id.description))
        #expect(JSONWriter.text([id, id]) == JSONWriter.text([id.description, id.description]))
    }
}

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
                run.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
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
        #expect(bytes.written.elementsEqual(expected), "the bytes read back differ from those appended")
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
                let scanned = bytes.withUnsafeBufferPointer { ByteScan.firstControl(or: first, second, in: $0, from: start) }
                #expect(scanned == expected, "\(bytes) from \(start)")
                if expected < bytes.count { found += 1 }
            }
        }
        #expect(found > 1_000)
    }

    @Test("printable ASCII is told apart from every other byte value, at every position of a word and past it")
    func printableASCII() {
        let plain = Array("harbor: a story".utf8)
        #expect(plain.withUnsafeBufferPointer(ByteScan.isPrintableASCII))
        #expect([UInt8]().withUnsafeBufferPointer(ByteScan.isPrintableASCII))
        for length in [1, 7, 8, 9, 16, 23] {
            for position in 0..<length {
                for value in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "~"), count: length)
                    bytes[position] = value
                    let expected = value >= 0x20 && value < 0x7F
                    #expect(bytes.withUnsafeBufferPointer(ByteScan.isPrintableASCII) == expected, "\(value) at \(position) of \(length)")
                }
            }
        }
    }
}
