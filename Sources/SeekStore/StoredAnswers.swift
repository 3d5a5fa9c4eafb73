import Foundation
import SeekCore
import SeekKit

/// An answer the response cache stores, in its models' `Codable` layout: written by
/// `StoredAnswerEncoder`, read back by `JSONDecoder`. Both run the models' own (synthesized)
/// `encode(to:)` and `init(from:)`, so a field added to a model is stored without another edit,
/// except `Item`'s: items are written by hand (`Output.item`), and the tests that compare it with
/// `encode(to:)` and `JSONEncoder` fail until a new field is written there too.
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

/// `Encodable` values as JSON in one pass, straight to bytes: the layout `JSONEncoder` writes (URLs
/// as absolute strings, nil optionals left out, a dictionary with non-string keys as an array of
/// alternating keys and values), without the value tree it builds first: `JSONEncoder` took a quarter
/// of a busy server's CPU encoding answers to store (issue 30); this takes a twelfth of its time,
/// with items written by hand (`Output.item`; BENCHMARKS.md, issues 29 and 30). A shape it does not
/// handle (nested containers, `Date`, `Data`, a non-finite number) is encoded by `JSONEncoder` instead.
enum StoredAnswerEncoder {
    /// - Parameter itemsByHand: write each `Item` with `Output.item` (the default) rather than through its
    ///   `encode(to:)`; the same bytes, which the tests compare.
    static func encode(_ value: some Encodable, itemsByHand: Bool = true) -> Data {
        let encoder = StreamingEncoder(itemsByHand: itemsByHand)
        do {
            try encoder.encodeValue(value)
            if !encoder.unsupported { return Data(buffer: encoder.output.pointee.bytes.written) }
        } catch {}
        return (try? JSONEncoder().encode(value)) ?? Data("null".utf8)
    }
}

/// The bytes written so far and the open containers. A struct with mutating methods, so that each
/// write is one exclusive access to the encoder's `output` rather than one per appended byte run
/// (the runtime's exclusivity checks took a third of the time otherwise).
private struct Output: ~Copyable {
    var bytes = GrowingBytes(capacity: 8192)
    /// Closing brackets of the open containers, innermost last, and whether each has a member yet.
    var closers: [UInt8] = []
    var hasMembers: [Bool] = []
    /// Set when a value needs something this encoder does not write; `JSONEncoder` is used instead.
    var unsupported = false
    /// How many containers were open when the value being encoded began: it may open one more.
    var valueDepth = 0

    /// A string with quotes, backslashes and control characters escaped in `JSONEncoder`'s forms.
    mutating func string(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        write(escaped: string)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ number: some BinaryInteger) {
        bytes.append(contentsOf: number.description)
    }

    /// An `Int` (a year, a width) in decimal, without the `String` its `description` builds.
    mutating func integer(_ number: Int) {
        JSONWriter.withDecimal(number) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ number: Double) {
        guard number.isFinite else {
            unsupported = true
            return
        }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            bytes.append(contentsOf: String(Int64(number)))
        } else {
            bytes.append(contentsOf: number.description)
        }
    }

    mutating func bool(_ value: Bool) { bytes.append(value ? "true" : "false") }
    mutating func null() { bytes.append("null") }

    /// Opens a container for the value that began at `depth`, unless it already opened one (asking twice is allowed).
    mutating func open(_ opening: UInt8, _ closing: UInt8, depth: Int) {
        guard closers.count == depth else { return }
        bytes.append(opening)
        closers.append(closing)
        hasMembers.append(false)
    }

    /// Closes the containers opened since `depth`.
    mutating func close(to depth: Int) {
        while closers.count > depth {
            bytes.append(closers.removeLast())
            hasMembers.removeLast()
        }
    }

    /// A comma unless this is the container's first member.
    mutating func beginMember() {
        guard let last = hasMembers.indices.last else { return }
        if hasMembers[last] { bytes.append(UInt8(ascii: ",")) }
        hasMembers[last] = true
    }

    mutating func beginMember(key: String) {
        beginMember()
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `string`'s characters escaped, without quotes, in `JSONEncoder`'s forms.
    mutating func write(escaped string: String) {
        bytes.appendJSONEscaped(string, shortBackspaceAndFormFeed: false)
    }
}

/// `Item`s written field by field: the bytes their synthesized `encode(to:)` gives through
/// `StreamingEncoder` (tests compare the two byte for byte, and both with `JSONEncoder`, on an item
/// with every field set), for a fraction of the cost. A stored search answer is mostly items, and
/// the generic containers, optionals and type look-ups were most of writing one: 0.49 ms of a miss's
/// CPU (issue 30, BENCHMARKS.md).
extension Output {
    mutating func item(_ item: Item) {
        literal(#"{"id":""#)
        write(escaped: item.id.provider)
        bytes.append(UInt8(ascii: ":"))
        write(escaped: item.id.value)
        literal(#"","kind":"#)
        string(item.kind.rawValue)
        literal(#","title":"#)
        string(item.title)
        if let subtitle = item.subtitle {
            literal(#","subtitle":"#)
            string(subtitle)
        }
        literal(#","creators":"#)
        strings(item.creators)
        if let year = item.year {
            literal(#","year":"#)
            integer(year)
        }
        literal(#","identifiers":{"isbn13":"#)
        strings(item.identifiers.isbn13)
        literal(#","isbn10":"#)
        strings(item.identifiers.isbn10)
        literal(#","other":{"#)
        var first = true
        for (scheme, value) in item.identifiers.other {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            string(scheme)
            bytes.append(UInt8(ascii: ":"))
            string(value)
        }
        // As `Dictionary.encode(to:)` writes keys that are neither strings nor integers: an array of
        // alternating keys and values, in the dictionary's order.
        literal(#"}},"images":["#)
        first = true
        for (size, image) in item.images {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            string(size.rawValue)
            bytes.append(UInt8(ascii: ","))
            self.image(image)
        }
        bytes.append(UInt8(ascii: "]"))
        if let address = item.address {
            literal(#","url":"#)
            string(address.text)
        }
        if let owned = item.owned {
            literal(#","owned":{"id":""#)
            write(escaped: owned.id.provider)
            bytes.append(UInt8(ascii: ":"))
            write(escaped: owned.id.value)
            literal(#"","formats":"#)
            strings(owned.formats)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func image(_ image: ImageReference) {
        literal(#"{"url":"#)
        string(image.address.text)
        literal(#","size":"#)
        string(image.size.rawValue)
        if let width = image.width {
            literal(#","width":"#)
            integer(width)
        }
        if let height = image.height {
            literal(#","height":"#)
            integer(height)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Punctuation and member names, written as they are: one append for `,"name":` instead of one
    /// a byte (the names are ASCII without anything to escape).
    private mutating func literal(_ text: StaticString) {
        bytes.append(text)
    }

    private mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

/// The `Encoder` behind `StoredAnswerEncoder`. Containers write as they are given values; the
/// containers a value opened are closed when its `encode(to:)` returns.
private final class StreamingEncoder: Encoder {
    /// The output, behind a pointer the encoder alone owns: a stored `var` of a class is checked for
    /// exclusive access at run time on every write, which took a quarter of the encoder's time
    /// (BENCHMARKS.md, issue 30). The encoder is used on one thread, for one value, and never escapes.
    let output: UnsafeMutablePointer<Output>
    /// Whether `Item`s are written by `Output.item` rather than their `encode(to:)`.
    let itemsByHand: Bool

    init(itemsByHand: Bool = true) {
        self.itemsByHand = itemsByHand
        output = .allocate(capacity: 1)
        output.initialize(to: Output())
    }

    deinit {
        output.deinitialize(count: 1)
        output.deallocate()
    }


    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var unsupported: Bool {
        get { output.pointee.unsupported }
        set { output.pointee.unsupported = newValue }
    }

    func encodeValue<Value: Encodable>(_ value: Value) throws {
        if Value.self == String.self, let string = value as? String {
            output.pointee.string(string)
        } else if itemsByHand, Value.self == Item.self, let item = value as? Item {
            output.pointee.item(item)
        } else if Value.self == URL.self, let url = value as? URL {
            output.pointee.string(url.absoluteString)
        } else if Value.self == Int.self, let number = value as? Int {
            output.pointee.integer(number)
        } else if Value.self == Date.self || Value.self == Data.self || Value.self == Decimal.self {
            output.pointee.unsupported = true
        } else {
            let outer = output.pointee.valueDepth
            let start = output.pointee.bytes.count
            output.pointee.valueDepth = output.pointee.closers.count
            try value.encode(to: self)
            // A value that wrote nothing (no container, no single value) is `{}` to JSONEncoder.
            if output.pointee.bytes.count == start { output.pointee.unsupported = true }
            output.pointee.close(to: output.pointee.valueDepth)
            output.pointee.valueDepth = outer
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        output.pointee.open(UInt8(ascii: "{"), UInt8(ascii: "}"), depth: output.pointee.valueDepth)
        return KeyedEncodingContainer(KeyedWriter<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        output.pointee.open(UInt8(ascii: "["), UInt8(ascii: "]"), depth: output.pointee.valueDepth)
        return UnkeyedWriter(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueWriter(encoder: self) }
}

private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        encoder.output.pointee.beginMember(key: key.stringValue)
        encoder.output.pointee.null()
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        encoder.output.pointee.beginMember(key: key.stringValue)
        encoder.output.pointee.string(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        encoder.output.pointee.beginMember(key: key.stringValue)
        encoder.output.pointee.integer(value)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        encoder.output.pointee.beginMember(key: key.stringValue)
        encoder.output.pointee.bool(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        encoder.output.pointee.beginMember(key: key.stringValue)
        encoder.output.pointee.double(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.output.pointee.beginMember(key: key.stringValue)
        try encoder.encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.unsupported = true
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(encoder: StreamingEncoder()))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.unsupported = true
        return UnkeyedWriter(encoder: StreamingEncoder())
    }

    mutating func superEncoder() -> any Encoder {
        encoder.unsupported = true
        return StreamingEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.unsupported = true
        return StreamingEncoder()
    }
}

private struct UnkeyedWriter: UnkeyedEncodingContainer {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(encoder: StreamingEncoder) { self.encoder = encoder }

    mutating func encodeNil() throws {
        encoder.output.pointee.beginMember()
        encoder.output.pointee.null()
        count += 1
    }

    mutating func encode(_ value: String) throws {
        encoder.output.pointee.beginMember()
        encoder.output.pointee.string(value)
        count += 1
    }

    mutating func encode(_ value: Int) throws {
        encoder.output.pointee.beginMember()
        encoder.output.pointee.integer(value)
        count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.output.pointee.beginMember()
        try encoder.encodeValue(value)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder.unsupported = true
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(encoder: StreamingEncoder()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.unsupported = true
        return UnkeyedWriter(encoder: StreamingEncoder())
    }

    mutating func superEncoder() -> any Encoder {
        encoder.unsupported = true
        return StreamingEncoder()
    }
}

private struct SingleValueWriter: SingleValueEncodingContainer {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { encoder.output.pointee.null() }
    mutating func encode(_ value: String) throws { encoder.output.pointee.string(value) }
    mutating func encode(_ value: Int) throws { encoder.output.pointee.integer(value) }
    mutating func encode(_ value: Bool) throws { encoder.output.pointee.bool(value) }
    mutating func encode(_ value: Double) throws { encoder.output.pointee.double(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}
