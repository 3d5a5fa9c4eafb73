import Foundation
import SeekCore
import SeekSupport

/// An answer the response cache stores, in its models' `Codable` layout: written by
/// `StoredAnswerEncoder`, read back by `JSONDecoder`. Both run the models' own `encode(to:)` and
/// `init(from:)`, so the layout is described once, by the models: a field added to a model is stored
/// without another edit.
protocol StoredAnswer: Codable, Sendable {}

extension StoredAnswer {
    /// The stored bytes.
    var storedJSON: Data { StoredAnswerEncoder.encode(self) }
}

extension CachedPage: StoredAnswer {}
extension ItemDetail: StoredAnswer {}

/// The layout version of stored answers, part of every cache key: a hash of the key paths a fully
/// populated answer (`sample`) encodes to. A field added, renamed or removed in a model changes it,
/// so entries written by a build with another layout are never read (misses, pruned by age).
enum StoredAnswerFormat {
    static let version: String = {
        var paths = Set<String>()
        if let sample = try? JSONSerialization.jsonObject(with: StoredAnswerEncoder.encode(sample)) {
            collectPaths(sample, prefix: "", into: &paths)
        }
        // FNV-1a, 64 bits: stable across processes and builds, unlike `Hasher`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in paths.sorted().joined(separator: "\n").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }()

    /// A detail with every field of every model set (a test checks that none is left empty, so a new
    /// field must be set here, which changes `version`).
    static let sample: ItemDetail = {
        let id = ItemID(provider: "openlibrary", value: "OL45804W")
        let image = URL(string: "https://covers.example/b/id/1-L.jpg")
        let item = Item(
            id: id, kind: .book, title: "Fantastic Mr Fox", subtitle: "A tale", creators: ["Roald Dahl"], year: 1970,
            identifiers: Identifiers(isbns: ["0140328726", "9780140328721"], other: ["openlibraryWork": "OL45804W"]),
            images: image.map { [.large: ImageReference(url: $0, size: .large, width: 180, height: 270)] } ?? [:],
            url: URL(string: "https://openlibrary.org/works/OL45804W"),
            owned: OwnedCopy(id: ItemID(provider: "calibre", value: "7"), formats: ["EPUB", "PDF"]))
        return ItemDetail(
            item: item, description: "A fox outwits three farmers.", contributors: [Contributor(name: "Roald Dahl", role: "author")],
            subjects: ["Foxes"], publishers: ["Puffin"], publishDate: "1970", pageCount: 96, attributes: ["language": "eng"],
            redirect: ItemRedirect(from: ItemID(provider: "openlibrary", value: "OL1W"), to: id),
            note: "Built from a recorded search answer.")
    }()

    private static func collectPaths(_ value: Any, prefix: String, into paths: inout Set<String>) {
        paths.insert(prefix)
        if let object = value as? [String: Any] {
            for (key, member) in object { collectPaths(member, prefix: prefix + "." + key, into: &paths) }
        } else if let array = value as? [Any] {
            for element in array { collectPaths(element, prefix: prefix + "[]", into: &paths) }
        }
    }
}

/// `Encodable` values as JSON in one pass, straight to bytes, through their own `encode(to:)`: the
/// layout `JSONEncoder` writes (URLs as absolute strings, nil optionals left out, a dictionary keyed
/// by strings, integers or `CodingKeyRepresentable` values as an object, one with other keys as an
/// array of alternating keys and values), without the value tree it builds first. `JSONEncoder` took
/// a quarter of a busy server's CPU encoding answers to store (issue 30). It knows no model (issue 51
/// removed the items it wrote by hand, a second description of `Item`): a shape it does not handle
/// (nested containers, `Date`, `Data`, `Float`, a non-finite number) is encoded by `JSONEncoder`
/// instead. What a value costs is mostly the `Encoder` protocol's own (a container per object, a
/// generic call per member, issue 52): each write here is one call into `Output`, with no
/// exclusivity check and no array's uniqueness check, and arrays of strings and dictionaries of
/// strings by string (the standard library's `Codable`, which `JSONEncoder` too writes itself for
/// `URL`) are written without a container and a generic call for each element.
enum StoredAnswerEncoder {
    static func encode(_ value: some Encodable) -> Data {
        let encoder = StreamingEncoder()
        do {
            try encoder.encode(value, member: false, key: nil)
            if let bytes = encoder.finished() { return bytes }
        } catch {}
        return (try? JSONEncoder().encode(value)) ?? Data("null".utf8)
    }
}

/// The bytes written so far and the open containers. Every write a container makes is one call
/// here (a member's separator, key and value together), so that each is one access to the
/// encoder's `output`.
private struct Output: ~Copyable {
    var bytes = GrowingBytes(capacity: 8192)
    /// The open containers, innermost in the lowest bit: set for an array, clear for an object.
    var arrays: UInt64 = 0
    /// The open containers, innermost in the lowest bit: set once it has a member.
    var filled: UInt64 = 0
    /// How many containers are open (at most 64: a deeper value is left to `JSONEncoder`).
    var depth = 0
    /// Set when a value needs something this encoder does not write; `JSONEncoder` is used instead.
    var unsupported = false
    /// How many containers were open when the value being encoded began: it may open one more.
    var valueDepth = 0

    /// Opens a container for the value that began at `valueDepth`, unless it already opened one
    /// (asking twice is allowed).
    mutating func open(array: Bool) {
        guard depth == valueDepth else { return }
        guard depth < 64 else {
            unsupported = true
            return
        }
        bytes.append(array ? UInt8(ascii: "[") : UInt8(ascii: "{"))
        arrays = arrays << 1 | (array ? 1 : 0)
        filled <<= 1
        depth += 1
    }

    /// Begins a value inside the current one (its next member when `isMember`): returns what to
    /// restore when it ends.
    mutating func beginValue(member isMember: Bool, key: String?) -> (outer: Int, start: Int) {
        if isMember { member(key: key) }
        let outer = valueDepth
        valueDepth = depth
        return (outer, bytes.count)
    }

    /// Closes the containers the value opened. A value that wrote nothing (no container, no single
    /// value) is `{}` to `JSONEncoder`: left to it.
    mutating func endValue(_ begun: (outer: Int, start: Int)) {
        if bytes.count == begun.start { unsupported = true }
        while depth > valueDepth {
            bytes.append(arrays & 1 == 1 ? UInt8(ascii: "]") : UInt8(ascii: "}"))
            arrays >>= 1
            filled >>= 1
            depth -= 1
        }
        valueDepth = begun.outer
    }

    /// A comma unless this is the container's first member, and the key of a keyed one.
    private mutating func member(key: String?) {
        if depth > 0 {
            if filled & 1 == 1 { bytes.append(UInt8(ascii: ",")) }
            filled |= 1
        }
        if let key {
            string(key)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    mutating func write(_ scalar: Scalar, key: String?, member isMember: Bool = true) {
        if isMember { member(key: key) }
        switch scalar {
        case .null: bytes.append("null")
        case .bool(let value): bytes.append(value ? "true" : "false")
        case .int(let number): bytes.appendDecimal(number)
        case .text(let text): bytes.append(contentsOf: text)
        case .string(let string): self.string(string)
        case .double(let number):
            if !number.isFinite {
                unsupported = true
            } else if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
                bytes.appendDecimal(Int(number))
            } else {
                bytes.append(contentsOf: number.description)
            }
        }
    }

    /// An array of strings, as `Array`'s `encode(to:)` writes it.
    mutating func write(_ strings: [String], key: String?, member isMember: Bool) {
        if isMember { member(key: key) }
        bytes.append(UInt8(ascii: "["))
        for (index, element) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A dictionary of strings by string, as `Dictionary`'s `encode(to:)` writes it: an object.
    mutating func write(_ strings: [String: String], key: String?, member isMember: Bool) {
        if isMember { member(key: key) }
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (name, value) in strings {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            string(name)
            bytes.append(UInt8(ascii: ":"))
            string(value)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// A string with quotes, backslashes and control characters escaped in `JSONEncoder`'s forms
    /// (`\"`, `\\`, `\n`, `\r`, `\t`, else `\u00XX`); `/` and other characters as they are, which
    /// `JSONDecoder` reads the same.
    private mutating func string(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        bytes.appendJSONEscaped(string, shortBackspaceAndFormFeed: false)
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A value written as it is, without a container.
private enum Scalar {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// Digits already formatted (an integer type other than `Int`).
    case text(String)

    /// Any other integer type, as `JSONEncoder` writes it: its decimal digits.
    static func integer(_ value: some FixedWidthInteger) -> Scalar {
        Int(exactly: value).map(Scalar.int) ?? .text(value.description)
    }
}

/// The `Encoder` behind `StoredAnswerEncoder`. Containers write as they are given values; the
/// containers a value opened are closed when its `encode(to:)` returns. Used on one thread, for one
/// value; it never escapes `StoredAnswerEncoder.encode`.
private final class StreamingEncoder: Encoder {
    /// Unchecked: `Output`'s methods call nothing outside it, so no access to `output` can begin
    /// while another is under way, and the encoder is used on one thread. The runtime's checks of
    /// each access were a tenth of the time.
    @exclusivity(unchecked) private var output = Output()

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The bytes, unless a value needed something this encoder does not write.
    func finished() -> Data? {
        output.unsupported ? nil : output.bytes.withWritten { Data($0) }
    }

    func markUnsupported() { output.unsupported = true }

    func write(_ scalar: Scalar, key: String?, member: Bool = true) {
        output.write(scalar, key: key, member: member)
    }

    /// `value`, as the next member of the open container when `member` (under `key` in a keyed one),
    /// else as the value being written. Each write is one access to `output`, and a value written
    /// through its `encode(to:)` two.
    func encode<Value: Encodable>(_ value: Value, member: Bool, key: String?) throws {
        if Value.self == String.self, let string = value as? String {
            output.write(.string(string), key: key, member: member)
        } else if Value.self == URLText.self, let address = value as? URLText {
            // The models' single-value types, as their `encode(to:)` writes them (one string; the tests
            // compare every answer with `JSONEncoder`'s), without a container: a generic call each.
            output.write(.string(address.description), key: key, member: member)
        } else if Value.self == ImageSize.self, let size = value as? ImageSize {
            output.write(.string(size.rawValue), key: key, member: member)
        } else if Value.self == [String].self, let strings = value as? [String] {
            output.write(strings, key: key, member: member)
        } else if Value.self == Int.self, let number = value as? Int {
            output.write(.int(number), key: key, member: member)
        } else if Value.self == ItemID.self, let id = value as? ItemID {
            output.write(.string(id.description), key: key, member: member)
        } else if Value.self == ItemKind.self, let kind = value as? ItemKind {
            output.write(.string(kind.rawValue), key: key, member: member)
        } else if Value.self == [String: String].self, let strings = value as? [String: String] {
            output.write(strings, key: key, member: member)
        } else if Value.self == [ImageSize: ImageReference].self, let images = value as? [ImageSize: ImageReference] {
            // As the standard library's `Dictionary` writes keys that are neither strings nor integers
            // (an array of alternating keys and values), and `ImageSize` as its raw value, without the
            // generic dictionary path and a container for each key: half of an item's cost (issue 52).
            let begun = output.beginValue(member: member, key: key)
            output.open(array: true)
            for (size, image) in images {
                output.write(.string(size.rawValue), key: nil, member: true)
                try encode(image, member: true, key: nil)
            }
            output.endValue(begun)
        } else if Value.self == URL.self, let url = value as? URL {
            output.write(.string(url.absoluteString), key: key, member: member)
        } else if Value.self == Date.self || Value.self == Data.self || Value.self == Decimal.self {
            output.unsupported = true
        } else {
            let begun = output.beginValue(member: member, key: key)
            try value.encode(to: self)
            output.endValue(begun)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        output.open(array: false)
        return KeyedEncodingContainer(KeyedWriter<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        output.open(array: true)
        return UnkeyedWriter(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueWriter(encoder: self) }

    /// What a container returns for something this encoder does not write (a nested container, a
    /// super encoder): a throwaway encoder, with this one marked so `JSONEncoder` writes the value.
    func unsupported() -> StreamingEncoder {
        markUnsupported()
        return StreamingEncoder()
    }
}

private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { encoder.write(.null, key: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.write(.string(value), key: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.write(.int(value), key: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.write(.bool(value), key: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.write(.double(value), key: key.stringValue) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder.encode(value, member: true, key: key.stringValue) }

    // A nil optional is left out, as `JSONEncoder` does. The protocol's defaults come back through
    // the generic `encode` above and look up `Optional`'s metadata for each call (issue 52).
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { encoder.write(.string(value), key: key.stringValue) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { encoder.write(.int(value), key: key.stringValue) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { encoder.write(.bool(value), key: key.stringValue) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { encoder.write(.double(value), key: key.stringValue) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encoder.encode(value, member: true, key: key.stringValue) }
    }

    // The other integer types (and `Float`, left to `JSONEncoder`): without these, the protocol's
    // defaults hand them to the generic `encode`, whose `encode(to:)` comes back here for ever.
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { encoder.write(.integer(value), key: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder.markUnsupported() }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(KeyedWriter<NestedKey>(encoder: encoder.unsupported()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnkeyedWriter(encoder: encoder.unsupported())
    }

    mutating func superEncoder() -> any Encoder { encoder.unsupported() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.unsupported() }
}

private struct UnkeyedWriter: UnkeyedEncodingContainer {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(encoder: StreamingEncoder) { self.encoder = encoder }

    mutating func encodeNil() throws { try add(.null) }
    mutating func encode(_ value: String) throws { try add(.string(value)) }
    mutating func encode(_ value: Int) throws { try add(.int(value)) }
    mutating func encode(_ value: Bool) throws { try add(.bool(value)) }
    mutating func encode(_ value: Double) throws { try add(.double(value)) }

    // The other integer types, and `Float` (left to `JSONEncoder`): see `KeyedWriter`.
    mutating func encode(_ value: Int8) throws { try add(.integer(value)) }
    mutating func encode(_ value: Int16) throws { try add(.integer(value)) }
    mutating func encode(_ value: Int32) throws { try add(.integer(value)) }
    mutating func encode(_ value: Int64) throws { try add(.integer(value)) }
    mutating func encode(_ value: UInt) throws { try add(.integer(value)) }
    mutating func encode(_ value: UInt8) throws { try add(.integer(value)) }
    mutating func encode(_ value: UInt16) throws { try add(.integer(value)) }
    mutating func encode(_ value: UInt32) throws { try add(.integer(value)) }
    mutating func encode(_ value: UInt64) throws { try add(.integer(value)) }
    mutating func encode(_ value: Float) throws { encoder.markUnsupported() }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.encode(value, member: true, key: nil)
        count += 1
    }

    private mutating func add(_ scalar: Scalar) throws {
        encoder.write(scalar, key: nil)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(KeyedWriter<NestedKey>(encoder: encoder.unsupported()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { UnkeyedWriter(encoder: encoder.unsupported()) }
    mutating func superEncoder() -> any Encoder { encoder.unsupported() }
}

private struct SingleValueWriter: SingleValueEncodingContainer {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { encoder.write(.null, key: nil, member: false) }
    mutating func encode(_ value: String) throws { encoder.write(.string(value), key: nil, member: false) }
    mutating func encode(_ value: Int) throws { encoder.write(.int(value), key: nil, member: false) }
    mutating func encode(_ value: Bool) throws { encoder.write(.bool(value), key: nil, member: false) }
    mutating func encode(_ value: Double) throws { encoder.write(.double(value), key: nil, member: false) }

    // The other integer types, and `Float` (left to `JSONEncoder`): see `KeyedWriter`.
    mutating func encode(_ value: Int8) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: Int16) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: Int32) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: Int64) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: UInt) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: UInt8) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: UInt16) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: UInt32) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: UInt64) throws { encoder.write(.integer(value), key: nil, member: false) }
    mutating func encode(_ value: Float) throws { encoder.markUnsupported() }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encode(value, member: false, key: nil) }
}
