import Foundation
import SeekCore
import SeekKit
import Testing

/// `JSONReader`: documents read value by value into a caller's own types.
@Suite("JSON reader")
struct JSONReaderTests {
    enum Field: String, CaseIterable, Sendable {
        case title, count, tags, nested, note = "n\u{f6}te"
    }

    static let fields = JSONFields<Field>()

    /// What a reader finds of `Field`, read the way providers read: strings, trees, lists, objects.
    struct Record: Equatable {
        var title: String?
        var count: JSONValue?
        var tags: [String] = []
        var nested: [Record] = []
        var note: JSONValue?
        var isObject = false
    }

    static func readRecord(_ reader: inout JSONReader) throws(JSONParseError) -> Record {
        var record = Record()
        record.isObject = try reader.readObject(fields) { reader, field throws(JSONParseError) in
            switch field {
            case .title: record.title = try reader.readString()
            case .count: record.count = try reader.readValue()
            case .tags:
                var tags: [String] = []
                try reader.readArray { reader throws(JSONParseError) in
                    if let tag = try reader.readString() { tags.append(tag) }
                }
                record.tags = tags
            case .nested:
                var nested: [Record] = []
                try reader.readArray { reader throws(JSONParseError) in nested.append(try readRecord(&reader)) }
                record.nested = nested
            case .note: record.note = try reader.readValue()
            case nil: break  // skipped by the reader
            }
        }
        return record
    }

    /// The same record from a `JSONValue` tree: what the reader must agree with.
    static func treeRecord(_ value: JSONValue) -> Record {
        var record = Record()
        guard let object = value.objectValue else { return record }
        record.isObject = true
        if case .string(let title) = object["title"] { record.title = title }
        record.count = object["count"]
        record.tags = object["tags"]?.arrayValue?.compactMap { if case .string(let tag) = $0 { tag } else { nil } } ?? []
        record.nested = object["nested"]?.arrayValue?.map(treeRecord) ?? []
        record.note = object["n\u{f6}te"]
        return record
    }

    static func read(_ text: String) -> Result<Record, JSONParseError> {
        do throws(JSONParseError) {
            return .success(try JSONReader.read(Data(text.utf8)) { reader throws(JSONParseError) in try readRecord(&reader) })
        } catch {
            return .failure(error)
        }
    }

    static func parse(_ text: String) -> Result<Record, JSONParseError> {
        do throws(JSONParseError) {
            return .success(treeRecord(try JSONValue(parsing: Data(text.utf8))))
        } catch {
            return .failure(error)
        }
    }

    static let sample = #"""
        {"title": "Fantastic Mr Fox", "skipped": {"deep": [1, {"x": null}], "s": "a\"b"}, "count": 12,
         "tags": ["fox", 3, "farm", null, {"no": 1}], "n\u00f6te": {"k": [true, false]},
         "nested": [{"title": "inner", "count": "7", "nested": []}, [], "x", {"tags": "not a list"}],
         "title": "Last one wins", "\u0074ags": ["escaped key"]}
        """#

    @Test("reads the fields it knows as the tree gives them, skipping the rest, the last of a repeated name winning")
    func readsLikeTheTree() throws {
        let read = try Self.read(Self.sample).get()
        #expect(read == (try Self.parse(Self.sample).get()))
        #expect(read.title == "Last one wins")
        #expect(read.tags == ["escaped key"])
        #expect(read.count == .number(12))
        #expect(read.nested.map(\.title) == ["inner", nil, nil, nil])
        #expect(read.nested.map(\.isObject) == [true, false, false, true])
        #expect(read.note == .object(["k": .array([.bool(true), .bool(false)])]))
    }

    @Test("a document that is not an object is read as no object, and still checked to its end")
    func notAnObject() throws {
        #expect(try Self.read(#" [1, 2] "#).get() == Record())
        #expect(try Self.read(#""text""#).get() == Record())
        #expect(throws: JSONParseError.self) { try Self.read("[1, 2] 3").get() }
    }

    @Test("every truncation of a document fails as JSONValue(parsing:) fails: the same reason at the same byte")
    func truncations() {
        let bytes = Array(Self.sample.utf8)
        for end in 0..<bytes.count {
            let text = String(decoding: bytes[..<end], as: UTF8.self)
            switch (Self.read(text), Self.parse(text)) {
            case (.failure(let read), .failure(let parsed)): #expect(read == parsed, "truncated at \(end)")
            case (.success(let read), .success(let parsed)): #expect(read == parsed, "truncated at \(end)")
            case (let read, let parsed): Issue.record("truncated at \(end): reader \(read), parser \(parsed)")
            }
        }
    }

    @Test("every byte of a document replaced by a structural or bad byte gives what JSONValue(parsing:) gives")
    func mutations() {
        let bytes = Array(Self.sample.utf8)
        var compared = 0
        for index in bytes.indices {
            for replacement in Array("{}[],:\"\\ x0-".utf8) + [0x01, 0xFF] {
                var mutated = bytes
                mutated[index] = replacement
                let text = String(decoding: mutated, as: UTF8.self)
                let (read, parsed) = (Self.read(text), Self.parse(text))
                compared += 1
                switch (read, parsed) {
                case (.failure(let read), .failure(let parsed)): #expect(read == parsed, "byte \(index) as \(replacement)")
                case (.success(let read), .success(let parsed)): #expect(read == parsed, "byte \(index) as \(replacement)")
                default: Issue.record("byte \(index) as \(replacement): reader \(read), parser \(parsed)")
                }
            }
        }
        #expect(compared > 3000)
    }

    @Test("nesting deeper than the limit is the parser's error, in skipped values too")
    func depthLimit() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        for text in [deep, #"{"skipped": \#(deep)}"#, #"{"nested": [\#(deep)]}"#] {
            guard case .failure(let read) = Self.read(text), case .failure(let parsed) = Self.parse(text) else {
                Issue.record("\(text.prefix(20)) was read")
                continue
            }
            #expect(read == parsed)
            #expect(read.reason.contains("nested deeper than 512 levels"))
        }
    }

    @Test("an empty body, white space and a byte-order mark are what the parser says")
    func emptyBodies() {
        for text in ["", "   ", "\u{FEFF}", "\u{FEFF} {\"title\": \"bom\"} "] {
            switch (Self.read(text), Self.parse(text)) {
            case (.failure(let read), .failure(let parsed)): #expect(read == parsed)
            case (.success(let read), .success(let parsed)): #expect(read == parsed)
            default: Issue.record("\(text.debugDescription): the reader and the parser disagree")
            }
        }
    }
}
