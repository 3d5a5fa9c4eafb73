import Foundation
import SeekSupport

/// A JSON document read value by value, into a provider's own types: the members a provider knows
/// are matched on the document's bytes and the others skipped, with no `JSONValue` tree, no
/// dictionary and no `String` made for a key. Building the tree and looking fields up in it by
/// hashed keys was about a tenth of a search's CPU (issue 30).
///
/// It checks the whole document as `JSONValue(parsing:)` does, with the same errors at the same
/// offsets. A value the reading code does not read is skipped (and checked).
public struct JSONReader: ~Copyable {
    @usableFromInline var parser: JSONParser

    @usableFromInline
    init(parser: JSONParser) { self.parser = parser }

    /// Reads the document in `data` with `body`, which reads its one value.
    public static func read<Result>(
        _ data: Data, maxDepth: Int = 512, _ body: (inout JSONReader) throws(JSONParseError) -> Result
    ) throws(JSONParseError) -> Result {
        let outcome = ByteView.reading(data) { bytes -> Swift.Result<Result, JSONParseError> in
            var reader = JSONReader(parser: JSONParser(bytes: bytes, maxDepth: maxDepth))
            do throws(JSONParseError) {
                try reader.parser.beginDocument()
                let start = reader.parser.position
                let result = try body(&reader)
                if reader.parser.position == start { try reader.parser.skipValue() }
                try reader.parser.endDocument()
                return .success(result)
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// The members of the object here, each given to `member` with its field (nil for a name not
    /// in `fields`), the reader at its value; false, the value skipped, when it is no object. A
    /// name given twice is given twice, in order (the last one read wins, as in `JSONValue`). A
    /// value `member` does not read is skipped.
    @inlinable @discardableResult
    public mutating func readObject<Field>(
        _ fields: JSONFields<Field>, _ member: (inout JSONReader, Field?) throws(JSONParseError) -> Void
    ) throws(JSONParseError) -> Bool {
        guard try parser.enterContainer(UInt8(ascii: "{")) else { return false }
        defer { parser.leaveContainer() }
        if parser.closesEmpty(UInt8(ascii: "}")) { return true }
        repeat {
            let position = try parser.memberKey(fields.names)
            let start = parser.position
            try member(&self, position.flatMap(fields.field(at:)))
            if parser.position == start { try parser.skipValue() }
        } while try parser.afterMember()
        return true
    }

    /// The elements of the array here, each given to `element` with the reader at it; false, the
    /// value skipped, when it is no array. An element `element` does not read is skipped.
    @inlinable @discardableResult
    public mutating func readArray(_ element: (inout JSONReader) throws(JSONParseError) -> Void) throws(JSONParseError) -> Bool {
        guard try parser.enterContainer(UInt8(ascii: "[")) else { return false }
        defer { parser.leaveContainer() }
        if parser.closesEmpty(UInt8(ascii: "]")) { return true }
        repeat {
            parser.beforeElement()
            let start = parser.position
            try element(&self)
            if parser.position == start { try parser.skipValue() }
        } while try parser.afterElement()
        return true
    }

    /// What the value here is, by its first byte (nil at the end of the data or at a byte no value
    /// begins with, which reading the value reports).
    @inlinable
    public var nextKind: JSONValue.Kind? { parser.nextKind }

    /// The value here as a tree: for a member whose value may take several shapes.
    @inlinable
    public mutating func readValue() throws(JSONParseError) -> JSONValue { try parser.readValue() }

    /// The string here; nil, the value skipped, when it is another kind of value.
    @inlinable
    public mutating func readString() throws(JSONParseError) -> String? { try parser.readString() }

    @inlinable
    public mutating func skipValue() throws(JSONParseError) { try parser.skipValue() }
}

/// The member names a type reads, from its field enumeration's raw values, matched on bytes. Make one
/// per type, once (`static let`).
public struct JSONFields<Field: RawRepresentable & CaseIterable & Sendable>: Sendable where Field.RawValue == String {
    @usableFromInline let names: JSONFieldNames
    @usableFromInline let fields: [Field]

    public init() {
        fields = Array(Field.allCases)
        names = JSONFieldNames(fields.map(\.rawValue))
    }

    @inlinable
    func field(at position: Int) -> Field? {
        fields.indices.contains(position) ? fields[position] : nil
    }
}

/// Names as UTF-8, found by their bytes: only names of the key's length are compared.
@usableFromInline
struct JSONFieldNames: Sendable {
    /// By length: each name of that length as bytes, with its position in the list given.
    private let byLength: [[(bytes: [UInt8], position: Int)]]

    init(_ names: [String]) {
        let encoded = names.map { Array($0.utf8) }
        var byLength = [[(bytes: [UInt8], position: Int)]](repeating: [], count: (encoded.map(\.count).max() ?? 0) + 1)
        for (position, name) in encoded.enumerated() { byLength[name.count].append((name, position)) }
        self.byLength = byLength
    }

    /// Where the bytes in `range` of `bytes` are among the names; nil when they are none of them.
    func position(of bytes: ByteView, in range: Range<Int>) -> Int? {
        guard byLength.indices.contains(range.count) else { return nil }
        for (name, position) in byLength[range.count] where bytes.equals(name, in: range) { return position }
        return nil
    }
}
