import Foundation

/// Bytes borrowed for the length of one call (`reading`), read by position: what the JSON parser and
/// writers read documents and text through, so that no module but this one holds a pointer.
///
/// Every read is bounds-checked, as `Span`'s are (one unsigned comparison): the parser's own checks
/// come first, so in the loops that matter the compiler drops the second. A `Span` cannot be stored in
/// the parser's struct without the experimental lifetime feature, hence this type.
///
/// SAFETY: a view is made only by `reading(_:_:)` (and `GrowingBytes.withWritten`) over storage that
/// lives for the whole closure, and is valid only inside it: its users (the JSON parser, `JSONReader`,
/// which cannot be copied) are made inside the closure and end with it. A view must not be kept.
@usableFromInline
package struct ByteView: RandomAccessCollection {
    @usableFromInline let buffer: UnsafeBufferPointer<UInt8>

    @inlinable
    init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    /// `body` given `data`'s bytes.
    @inlinable
    package static func reading<Result>(_ data: Data, _ body: (ByteView) throws -> Result) rethrows -> Result {
        try data.withUnsafeBytes { raw in try body(ByteView(raw.assumingMemoryBound(to: UInt8.self))) }
    }

    /// `body` given `text`'s UTF-8, where it is stored.
    @inlinable
    package static func reading<Result>(_ text: String, _ body: (ByteView) throws -> Result) rethrows -> Result {
        try text.withUTF8Bytes { try body(ByteView($0)) }
    }

    /// `body` given `bytes`.
    @inlinable
    package static func reading<Result>(_ bytes: [UInt8], _ body: (ByteView) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { try body(ByteView($0)) }
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { buffer.count }
    @inlinable package var count: Int { buffer.count }

    /// The byte at `position`; a position outside the view traps, as an array's does.
    @inlinable
    package subscript(position: Int) -> UInt8 {
        precondition(UInt(bitPattern: position) < UInt(bitPattern: buffer.count), "byte position out of range")
        return buffer[position]
    }

    /// The byte at `position`, or nil outside the view: one check where a loop would test the position
    /// and then read it.
    @inlinable
    package func byte(at position: Int) -> UInt8? {
        UInt(bitPattern: position) < UInt(bitPattern: buffer.count) ? buffer[position] : nil
    }

    @inlinable
    package func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try body(buffer)
    }

    /// The bytes in `range` (checked) as a view of their own, counted from zero.
    @inlinable
    package func view(_ range: Range<Int>) -> ByteView {
        checkRange(range)
        return ByteView(UnsafeBufferPointer(rebasing: buffer[range]))
    }

    /// The bytes in `range` (checked) decoded as UTF-8, ill-formed sequences replaced.
    @inlinable
    package func string(_ range: Range<Int>) -> String {
        checkRange(range)
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)
    }

    /// The bytes in `range` (checked), copied.
    @inlinable
    package func array(_ range: Range<Int>) -> [UInt8] {
        checkRange(range)
        return Array(UnsafeBufferPointer(rebasing: buffer[range]))
    }

    /// Whether the bytes from `position` on start with `literal`'s (false when fewer are left).
    @inlinable
    package func matches(_ literal: StaticString, at position: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard position >= 0, position <= buffer.count - count else { return false }
        return literal.withUTF8Buffer { expected in
            for index in 0..<count where buffer[position + index] != expected[index] { return false }
            return true
        }
    }

    /// Whether the bytes in `range` (checked) are `bytes`.
    ///
    /// SAFETY: `memcmp` reads `range.count` bytes from both, after checking `bytes` has as many and
    /// `range` is inside the view.
    @inlinable
    package func equals(_ bytes: [UInt8], in range: Range<Int>) -> Bool {
        checkRange(range)
        guard bytes.count == range.count else { return false }
        guard let base = buffer.baseAddress, !bytes.isEmpty else { return true }  // both empty
        return bytes.withUnsafeBufferPointer { other in
            guard let otherBase = other.baseAddress else { return true }
            return memcmp(base + range.lowerBound, otherBase, range.count) == 0
        }
    }

    /// The little-endian integer of `T`'s size at `offset`; nil when it does not fit in the view.
    ///
    /// SAFETY: loads `MemoryLayout<T>.size` bytes at `offset`, after checking they are inside the
    /// view; `loadUnaligned` assumes no alignment.
    package func littleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T? {
        guard offset >= 0, offset <= buffer.count - MemoryLayout<T>.size else { return nil }
        return T(littleEndian: UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Where `needle` first occurs at or after `start`: `memchr` for its byte at `anchor` (pick a
    /// rare one), `memcmp` for the whole. nil when it does not occur, or `anchor` is not in `needle`.
    ///
    /// SAFETY: `memchr` reads from `base + offset + anchor` for `last - offset + 1` bytes, ending at
    /// `last + anchor < count` (`last = count - needle.count`, `anchor < needle.count`); `memcmp`
    /// compares `needle.count` bytes from `offset <= last`, so at most up to `count`.
    package func firstOffset(of needle: [UInt8], anchoredAt anchor: Int, from start: Int = 0) -> Int? {
        guard needle.indices.contains(anchor), let base = buffer.baseAddress, buffer.count >= needle.count else { return nil }
        let last = buffer.count - needle.count
        var offset = Swift.max(0, start)
        while offset <= last {
            guard let hit = memchr(base + offset + anchor, Int32(needle[anchor]), last - offset + 1) else { return nil }
            offset = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) - anchor
            if memcmp(base + offset, needle, needle.count) == 0 { return offset }
            offset += 1
        }
        return nil
    }

    @inlinable
    func checkRange(_ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "byte range out of range")
    }
}
