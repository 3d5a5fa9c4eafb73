/// Bytes appended at the end of memory this value alone owns: the output of Seek's JSON writers.
/// It cannot be copied, so no append makes the uniqueness check and the calls around it that each
/// `Array` append makes (those were a third of writing a search document, and 70 instructions of
/// each of the 2,000 appends a miss's stored answers made, issue 30).
///
/// SAFETY: `storage` holds `capacity` bytes, allocated here and freed in `deinit` only (the value
/// cannot be copied, so it is freed once); the first `used` are initialised. Every write is at
/// `used ..< used + n` after `grow(toHold: n)` made `capacity - used >= n`; reads are of `0 ..< used`.
/// `written` and `withWritten` lend those bytes until the next append, which may move them.
@usableFromInline
package struct GrowingBytes: ~Copyable {
    @usableFromInline var storage: UnsafeMutablePointer<UInt8>
    @usableFromInline var used = 0
    @usableFromInline var capacity: Int

    /// Empty, with room for `capacity` bytes before the first growth.
    package init(capacity: Int = 4096) {
        self.capacity = max(16, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// How many bytes are written.
    package var count: Int { used }

    /// The bytes written so far; valid until the next append.
    package var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: used) }

    /// `body` given the bytes written so far.
    @inlinable
    package func withWritten<Result>(_ body: (ByteView) throws -> Result) rethrows -> Result {
        try body(ByteView(UnsafeBufferPointer(start: storage, count: used)))
    }

    /// The bytes written so far, decoded as UTF-8.
    package func makeString() -> String { String(decoding: written, as: UTF8.self) }

    /// A view's bytes, as they are.
    @inlinable
    package mutating func append(contentsOf run: ByteView) { append(contentsOf: run.buffer) }

    /// The decimal digits of `value`, with a `-` when it is negative; no `String` made for it.
    @inlinable
    package mutating func appendDecimal(_ value: Int) {
        // Int.min has 19 digits; with the sign, 20 bytes.
        if capacity - used < 20 { grow(toHold: 20) }
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        let sign = value < 0 ? 1 : 0
        if sign == 1 { storage[used] = UInt8(ascii: "-") }
        magnitude = value.magnitude
        var index = used + sign + digits
        repeat {
            index -= 1
            storage[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        used += sign + digits
    }

    /// One byte. Always inlined: the optimizer left it a call in the writers' larger functions, 23
    /// instructions for each of the 6,000 bytes a miss's stored answers append one at a time (issue 52).
    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if used == capacity { grow(toHold: 1) }
        storage[used] = byte
        used += 1
    }

    @inlinable
    package mutating func append(contentsOf run: UnsafeBufferPointer<UInt8>) {
        guard let base = run.baseAddress, !run.isEmpty else { return }
        if capacity - used < run.count { grow(toHold: run.count) }
        (storage + used).initialize(from: base, count: run.count)
        used += run.count
    }

    /// A literal's UTF-8, as it is.
    @inlinable
    package mutating func append(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A string's UTF-8, as it is (no escaping).
    @inlinable
    package mutating func append(contentsOf text: String) {
        text.withUTF8Bytes { append(contentsOf: $0) }
    }

    /// A string's UTF-8 as JSON string text, without its quotes: the runs with nothing to escape,
    /// found eight bytes at a time, copied whole; a quote, a backslash and control characters
    /// escaped, `\n`, `\r` and `\t` in their short forms, backspace and form feed too when
    /// `shortBackspaceAndFormFeed` (the search document's writer), else as `\u00XX` (the stored
    /// answers, `JSONEncoder`'s layout).
    @inlinable
    package mutating func appendJSONEscaped(_ text: String, shortBackspaceAndFormFeed: Bool) {
        text.withUTF8Bytes { utf8 in
            var start = 0
            while true {
                let index = WordScan.firstControl(or: UInt8(ascii: "\""), UInt8(ascii: "\\"), in: utf8, from: start)
                append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                guard index < utf8.count else { break }
                appendEscape(of: utf8[index], shortBackspaceAndFormFeed: shortBackspaceAndFormFeed)
                start = index + 1
            }
        }
    }

    @usableFromInline
    mutating func appendEscape(of byte: UInt8, shortBackspaceAndFormFeed: Bool) {
        switch byte {
        case UInt8(ascii: "\""): append(#"\""#)
        case UInt8(ascii: "\\"): append(#"\\"#)
        case UInt8(ascii: "\n"): append(#"\n"#)
        case UInt8(ascii: "\r"): append(#"\r"#)
        case UInt8(ascii: "\t"): append(#"\t"#)
        case 0x08 where shortBackspaceAndFormFeed: append(#"\b"#)
        case 0x0C where shortBackspaceAndFormFeed: append(#"\f"#)
        default:
            append(#"\u00"#)
            append(Self.hexDigits[Int(byte >> 4)])
            append(Self.hexDigits[Int(byte & 0xF)])
        }
    }

    @usableFromInline static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Room for `more` bytes after those written, at least doubling what there is.
    @usableFromInline
    mutating func grow(toHold more: Int) {
        let (needed, overflow) = used.addingReportingOverflow(more)
        precondition(!overflow, "more bytes than memory holds")
        let larger = max(needed, capacity > Int.max / 2 ? Int.max : capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: storage, count: used)
        storage.deallocate()
        storage = moved
        capacity = larger
    }
}
