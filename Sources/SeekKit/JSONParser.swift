import Foundation
import SeekCore
import SeekSupport

/// Why a body is not JSON, and where: the byte offset of the first problem.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// Parses one complete JSON text (RFC 8259; a leading UTF-8 byte-order mark is skipped).
    ///
    /// Providers read loosely typed APIs through this rather than `JSONDecoder`: decoding `JSONValue`
    /// with a `Decoder` must guess each value's type and throw an error for every wrong guess, which
    /// made untyped reading of a GIPHY page several times slower than the request's own overhead.
    /// Nesting deeper than `maxDepth` is an error, not a stack overflow.
    public init(parsing data: Data, maxDepth: Int = 512) throws(JSONParseError) {
        let result = ByteView.reading(data) { bytes -> Result<JSONValue, JSONParseError> in
            var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
            do throws(JSONParseError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
        }
        self = try result.get()
    }
}

/// A single-pass recursive-descent JSON reader over a byte buffer (SeekSupport's `ByteView`, valid
/// while the parser is: it is made inside `ByteView.reading` and ends there).
@usableFromInline
struct JSONParser {
    private let bytes: ByteView
    private let maxDepth: Int
    @usableFromInline private(set) var position = 0
    private var depth = 0
    /// The members of the objects being read, innermost last.
    private var members: [(key: String, value: JSONValue)] = []

    init(bytes: ByteView, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
        guard position < bytes.count else { throw fail("empty body") }
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw fail("unexpected data after the JSON value") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let byte = peek() else { throw fail("unexpected end of data") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            defer { depth -= 1 }
            guard depth <= maxDepth else { throw fail("nested deeper than \(maxDepth) levels") }
            return byte == UInt8(ascii: "{") ? try parseObject() : try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected character '\(Self.printable(byte))'")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        position += 1  // {
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            return .object([:])
        }
        // The members are gathered on a stack the whole parse shares, then put in a dictionary made
        // to their count at once: growing it member by member rehashed every key several times.
        let base = members.count
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
            position += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                var object = [String: JSONValue](minimumCapacity: members.count - base)
                for index in base..<members.count { object[members[index].key] = members[index].value }  // the last of a repeated key wins
                members.removeSubrange(base...)
                return .object(object)
            case nil: throw fail("unexpected end of data in an object")
            default: throw fail("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        position += 1  // [
        var array: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(array)
            case nil: throw fail("unexpected end of data in an array")
            default: throw fail("expected ',' or ']' in an array")
            }
        }
    }

    // MARK: Strings

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while let byte = bytes.byte(at: position) {
            if byte == UInt8(ascii: "\"") {
                let text = bytes.string(start..<position)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("unescaped control character in a string") }
            position += 1
        }
        var buffer = bytes.array(start..<position)
        while let byte = bytes.byte(at: position) {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0..<0x20:
                throw fail("unescaped control character in a string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw fail("unterminated string")
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        position += 1  // backslash
        guard let byte = peek() else { throw fail("unterminated string") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate pairs with a following `\uDC00`–`\uDFFF`; alone it is replaced.
                if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                    let mark = position
                    position += 2
                    let low = try hexQuad()
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        scalar = 0xFFFD
                        position = mark
                    }
                } else {
                    scalar = 0xFFFD
                }
            } else if (0xDC00...0xDFFF).contains(scalar) {
                scalar = 0xFFFD
            }
            buffer.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
        default:
            position -= 1
            throw fail("invalid escape '\\\(Self.printable(byte))'")
        }
    }

    private mutating func hexQuad() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit in a \\u escape")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    // MARK: Numbers and literals

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, read as a Double.
    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw fail("expected a digit") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek(), Self.isDigit(next) { throw fail("leading zero in a number") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let next = peek(), Self.isDigit(next) else { throw fail("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let next = peek(), Self.isDigit(next) else { throw fail("expected a digit in the exponent") }
            skipDigits()
        }
        let text = bytes.string(start..<position)
        guard let value = Double(text), value.isFinite else {
            position = start
            throw fail("number out of range")
        }
        return value
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw fail("unexpected end of data") }
        guard bytes.matches(word, at: position) else { throw fail("invalid literal") }
        position += count
    }

    // MARK: Scanning

    private func peek() -> UInt8? { bytes.byte(at: position) }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { position += 1 }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: position, reason: reason) }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func printable(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
    }
}

// MARK: - Value by value (`JSONReader`)
//
// The steps a `JSONReader` takes through a document. Each checks what `parseValue` checks, with the
// same reasons at the same offsets, so a body is malformed, and reported, alike however it is read.

extension JSONParser {
    /// Skips the byte-order mark and white space before the document's value.
    @usableFromInline
    mutating func beginDocument() throws(JSONParseError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        skipWhitespace()
        guard position < bytes.count else { throw fail("empty body") }
    }

    /// Checks that nothing but white space follows the document's value.
    @usableFromInline
    mutating func endDocument() throws(JSONParseError) {
        skipWhitespace()
        guard position == bytes.count else { throw fail("unexpected data after the JSON value") }
    }

    @usableFromInline
    var nextKind: JSONValue.Kind? {
        guard let byte = peek() else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: return nil
        }
    }

    @usableFromInline
    mutating func readValue() throws(JSONParseError) -> JSONValue { try parseValue() }

    @usableFromInline
    mutating func skipValue() throws(JSONParseError) { _ = try parseValue() }

    /// The string here, or nil (the value skipped) when it is another kind of value.
    @usableFromInline
    mutating func readString() throws(JSONParseError) -> String? {
        if peek() == UInt8(ascii: "\"") { return try parseString() }
        try skipValue()
        return nil
    }

    /// Enters the object or array opening here with `opening`; false, the value skipped, when the
    /// value is anything else. An entered container is left with `leaveContainer`.
    @usableFromInline
    mutating func enterContainer(_ opening: UInt8) throws(JSONParseError) -> Bool {
        guard peek() == opening else {
            try skipValue()
            return false
        }
        depth += 1
        guard depth <= maxDepth else { throw fail("nested deeper than \(maxDepth) levels") }
        position += 1
        skipWhitespace()
        return true
    }

    @usableFromInline
    mutating func leaveContainer() { depth -= 1 }

    /// Consumes `closing` when the container just entered is empty.
    @usableFromInline
    mutating func closesEmpty(_ closing: UInt8) -> Bool {
        guard peek() == closing else { return false }
        position += 1
        return true
    }

    /// Reads a member's key and its `:`, leaving the reader at the value; the key's position in
    /// `names`, or nil for another name.
    @usableFromInline
    mutating func memberKey(_ names: JSONFieldNames) throws(JSONParseError) -> Int? {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
        let matched = try parseKey(names)
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
        position += 1
        skipWhitespace()
        return matched
    }

    /// A key without escapes is matched on the document's bytes, without a `String` made for it.
    private mutating func parseKey(_ names: JSONFieldNames) throws(JSONParseError) -> Int? {
        let start = position + 1
        var index = start
        while let byte = bytes.byte(at: index) {
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                return names.position(of: bytes, in: start..<index)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        // Escapes, a control character or no closing quote: read as any string is, errors and all.
        let key = try parseString()
        return ByteView.reading(key) { names.position(of: $0, in: 0..<$0.count) }
    }

    /// After a member's value: true when another member follows, false when the object closed.
    @usableFromInline
    mutating func afterMember() throws(JSONParseError) -> Bool {
        try afterValue(closing: UInt8(ascii: "}"), container: "an object")
    }

    @usableFromInline
    mutating func beforeElement() { skipWhitespace() }

    /// After an element: true when another element follows, false when the array closed.
    @usableFromInline
    mutating func afterElement() throws(JSONParseError) -> Bool {
        try afterValue(closing: UInt8(ascii: "]"), container: "an array")
    }

    /// A `,` (true) or the container's `closing` (false) after one of its values, with the reasons
    /// `parseObject` and `parseArray` give.
    private mutating func afterValue(closing: UInt8, container: StaticString) throws(JSONParseError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            position += 1
            return true
        case closing:
            position += 1
            return false
        case nil: throw fail("unexpected end of data in \(container)")
        default: throw fail("expected ',' or '\(Character(UnicodeScalar(closing)))' in \(container)")
        }
    }
}
