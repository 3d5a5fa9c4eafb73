import SeekCore
import SeekSupport
/// A value that writes itself as JSON, field by field, without reflection.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

/// JSON text written value by value, object keys in the order they are written.
///
/// Every search prints its results and appends a stats line with it: `JSONEncoder` spends
/// milliseconds there on reflection and dynamic casts, and writes object keys in a random order.
/// The layout is `JSONEncoder`'s with `.withoutEscapingSlashes` (`.pretty` adds `.prettyPrinted`:
/// two-space indents, `"key" : value`), so the text reads the same as before.
public struct JSONWriter: ~Copyable {
    public enum Style: Sendable { case compact, pretty }

    public let style: Style
    /// The UTF-8 written so far (SeekSupport's `GrowingBytes`: an append makes no uniqueness check).
    @usableFromInline var output = GrowingBytes(capacity: 4096)
    @usableFromInline var depth = 0
    /// Whether the open object or array already has a member, so the next one needs a comma.
    @usableFromInline var hasMembers = false

    public init(style: Style = .compact) {
        self.style = style
    }

    /// The JSON written so far.
    public var text: String { output.makeString() }

    /// `value` as one JSON document.
    public static func text(_ value: some JSONWritable, style: Style = .compact) -> String {
        var writer = JSONWriter(style: style)
        value.write(to: &writer)
        return writer.text
    }

    /// `body` given `value` as JSON in UTF-8 bytes and then `trailer`, where they were written, for a
    /// socket or a file: no `String` is made (a large document is not validated and copied again on its
    /// way out), and no array either, so a host copies the bytes once, into its own buffer. The bytes are
    /// valid only in `body`.
    package static func withUTF8<Result>(
        _ value: some JSONWritable, style: Style = .compact, trailer: String = "",
        _ body: (ByteView) throws -> Result
    ) rethrows -> Result {
        var writer = JSONWriter(style: style)
        value.write(to: &writer)
        writer.raw(trailer)
        return try writer.output.withWritten(body)
    }

    // MARK: Output

    @inlinable @inline(__always)
    mutating func append(_ byte: UInt8) { output.append(byte) }


    // MARK: Containers
    //
    // The generic and closure-taking members are inlinable so that documents in other modules get
    // specialised code instead of generic dispatch for every field.

    /// An object whose members `body` writes with `field`.
    @inlinable
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), body)
    }

    /// An array whose elements `body` writes with `element`.
    @inlinable
    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), body)
    }

    /// An array of `elements`, each written by `write`.
    @inlinable
    public mutating func array<Elements: Sequence>(_ elements: Elements, _ write: (inout JSONWriter, Elements.Element) -> Void) {
        array { writer in
            for element in elements { writer.element { write(&$0, element) } }
        }
    }

    /// One member of the open object. The key is one of the document's own names, a literal written
    /// as it is: half the strings of a search document are keys, and scanning each for characters to
    /// escape was a fifth of a cached search's time (issue 30). A key that would need escaping is a
    /// programming error (an assertion in debug builds); names that are data go through `field(named:)`.
    @inlinable
    public mutating func field(_ key: StaticString, _ value: some JSONWritable) {
        field(key) { value.write(to: &$0) }
    }

    /// One member of the open object, its value written by `body` (an object, an array, …).
    @inlinable
    public mutating func field(_ key: StaticString, _ body: (inout JSONWriter) -> Void) {
        beginMember()
        literalKey(key)
        body(&self)
    }

    /// One member of the open object whose name is data (a dictionary's key), escaped like any string.
    @inlinable
    public mutating func field(named key: String, _ value: some JSONWritable) {
        field(named: key) { value.write(to: &$0) }
    }

    /// One member of the open object whose name is data, its value written by `body`.
    @inlinable
    public mutating func field(named key: String, _ body: (inout JSONWriter) -> Void) {
        beginMember()
        string(key)
        keySeparator()
        body(&self)
    }

    /// One element of the open array.
    @inlinable
    public mutating func element(_ value: some JSONWritable) {
        element { value.write(to: &$0) }
    }

    /// One element of the open array, written by `body`.
    @inlinable
    public mutating func element(_ body: (inout JSONWriter) -> Void) {
        beginMember()
        body(&self)
    }

    // MARK: Scalars

    @inlinable
    public mutating func null() { raw("null") }

    @inlinable
    public mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    /// A whole number, its digits written straight into the output (no `String` made for it).
    public mutating func int(_ value: Int) {
        output.appendDecimal(value)
    }

    /// A number as `JSONEncoder` writes it: whole numbers below 2^53 without a fraction, others in
    /// Swift's shortest round-trip form; JSON has no NaN or infinity, so those are `null`.
    public mutating func double(_ value: Double) {
        if !value.isFinite {
            null()
        } else if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            int(Int(value))
        } else {
            raw(value.description)
        }
    }

    /// A string, with quotes, backslashes and control characters escaped (`/` and non-ASCII as is).
    public mutating func string(_ value: String) {
        append(UInt8(ascii: "\""))
        escapedBody(value)
        append(UInt8(ascii: "\""))
    }

    /// `first`, `separator` and `second` as one string, without joining them first (an item's id,
    /// `provider:value`, is written twice for every result). The separator is a literal that needs no
    /// escaping.
    public mutating func string(_ first: String, _ separator: StaticString, _ second: String) {
        append(UInt8(ascii: "\""))
        escapedBody(first)
        assert(!"\(separator)".utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }, "a separator literal that needs escaping")
        output.append(separator)
        escapedBody(second)
        append(UInt8(ascii: "\""))
    }

    /// The text of a string, escaped, without its quotes.
    private mutating func escapedBody(_ value: String) {
        output.appendJSONEscaped(value, shortBackspaceAndFormFeed: true)
    }

    /// Where the first byte at or after `start` that JSON text must escape (a control character, a
    /// quote or a backslash) is, or `utf8.count`: for any writer of JSON strings. Runs without one are
    /// crossed eight bytes at a time (a miss writes thousands of strings, and a byte-at-a-time scan was
    /// most of their cost).
    package static func nextEscapable(in utf8: ByteView, from start: Int) -> Int {
        WordScan.firstControl(or: UInt8(ascii: "\""), UInt8(ascii: "\\"), in: utf8, from: start)
    }

    // MARK: Layout

    /// `"key":` for a literal key (`field`), with the separator the style asks for.
    @usableFromInline
    mutating func literalKey(_ key: StaticString) {
        assert(!"\(key)".utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }, "a JSON key literal that needs escaping")
        append(UInt8(ascii: "\""))
        output.append(key)
        append(UInt8(ascii: "\""))
        keySeparator()
    }

    @inlinable
    mutating func keySeparator() {
        if style == .pretty { raw(" : ") } else { append(UInt8(ascii: ":")) }
    }

    @inlinable
    mutating func container(open: UInt8, close: UInt8, _ body: (inout JSONWriter) -> Void) {
        append(open)
        let outer = hasMembers
        hasMembers = false
        depth += 1
        body(&self)
        depth -= 1
        if style == .pretty {
            // JSONEncoder leaves an empty line in an empty container.
            raw(hasMembers ? "\n" : "\n\n")
            indent()
        }
        append(close)
        hasMembers = outer
    }

    @inlinable
    mutating func beginMember() {
        if hasMembers { append(UInt8(ascii: ",")) }
        hasMembers = true
        if style == .pretty {
            append(UInt8(ascii: "\n"))
            indent()
        }
    }

    @inlinable
    mutating func indent() {
        for _ in 0..<(2 * depth) { append(UInt8(ascii: " ")) }
    }

    @inlinable
    mutating func raw(_ text: String) {
        output.append(contentsOf: text)
    }
}

extension String: JSONWritable {
    @inlinable public func write(to writer: inout JSONWriter) { writer.string(self) }
}

extension ItemID: JSONWritable {
    /// The id's text (`description`, `provider:value`), written without building it.
    @inlinable public func write(to writer: inout JSONWriter) { writer.string(provider, ":", value) }
}

extension Int: JSONWritable {
    @inlinable public func write(to writer: inout JSONWriter) { writer.int(self) }
}

extension Double: JSONWritable {
    @inlinable public func write(to writer: inout JSONWriter) { writer.double(self) }
}

extension Bool: JSONWritable {
    @inlinable public func write(to writer: inout JSONWriter) { writer.bool(self) }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
    @inlinable public func write(to writer: inout JSONWriter) {
        if let self { self.write(to: &writer) } else { writer.null() }
    }
}

extension Array: JSONWritable where Element: JSONWritable {
    @inlinable public func write(to writer: inout JSONWriter) {
        writer.array(self) { writer, element in element.write(to: &writer) }
    }
}

extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
    /// Keys in sorted order, so the same dictionary always reads the same.
    @inlinable public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            for (key, value) in sorted(by: { $0.key < $1.key }) { writer.field(named: key, value) }
        }
    }
}
