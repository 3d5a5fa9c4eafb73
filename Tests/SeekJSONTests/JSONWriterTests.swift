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
