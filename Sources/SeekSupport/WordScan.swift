import Foundation

/// Searches of UTF-8 bytes eight at a time, with the classic "has a byte less than n" and "has a
/// zero byte" word tests (exact for whether any byte of a word matches): JSON writers look for what
/// they must escape, and Aladin's answers for what must be rewritten before they are JSON.
///
/// SAFETY: a word is loaded (`loadUnaligned`, so no alignment is assumed) only from `base + index`
/// with `count - index >= 8`, or from `base + (count - 8)` with `count >= 8`: always eight bytes
/// inside the buffer. The byte-at-a-time tails read `base[index]` with `index < count`. The buffers
/// are the callers', borrowed for the call; no pointer is kept.
@usableFromInline
package enum WordScan {
    /// `firstControl(or:_:in:from:)` over a view's bytes.
    @inlinable @inline(__always)
    package static func firstControl(or first: UInt8, _ second: UInt8, in bytes: ByteView, from start: Int) -> Int {
        firstControl(or: first, second, in: bytes.buffer, from: start)
    }

    /// Where the first control character, `first` or `second` in `data` is, counted from its first
    /// byte, at or after `start`; `data.count` when there is none.
    @inlinable
    package static func firstControl(or first: UInt8, _ second: UInt8, in data: Data, from start: Int) -> Int {
        ByteView.reading(data) { firstControl(or: first, second, in: $0.buffer, from: start) }
    }

    /// Whether every byte of a view is printable ASCII, 0x20 through 0x7E.
    @inlinable
    package static func isPrintableASCII(_ bytes: ByteView) -> Bool { isPrintableASCII(bytes.buffer) }

    /// Whether every byte of `text`'s UTF-8 is printable ASCII, 0x20 through 0x7E.
    @inlinable
    package static func isPrintableASCII(_ text: String) -> Bool {
        text.withUTF8Bytes { isPrintableASCII($0) }
    }

    /// Where the first byte at or after `start` is a control character (below 0x20), `first` or
    /// `second`; `bytes.count` when there is none. Inlined, so that the JSON writers' constant bytes
    /// fold into the word tests.
    @inlinable @inline(__always)
    package static func firstControl(or first: UInt8, _ second: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let count = bytes.count
        var index = max(0, start)
        while count - index >= 8 {
            if holdsControl(or: first, second, UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { break }
            index += 8
        }
        // Fewer than eight bytes left: the buffer's last eight as one word, which holds them (most strings
        // a miss writes are short, and their last bytes a byte at a time were a third of the scan).
        if count - index < 8, index < count, count >= 8,
           !holdsControl(or: first, second, UnsafeRawPointer(base + (count - 8)).loadUnaligned(as: UInt64.self))
        {
            return count
        }
        while index < count {
            let byte = base[index]
            if byte < 0x20 || byte == first || byte == second { return index }
            index += 1
        }
        return count
    }

    /// Whether every byte is printable ASCII, 0x20 through 0x7E: most upstream text is, and is then
    /// kept as it is after this one pass.
    @inlinable
    package static func isPrintableASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while count - index >= 8 {
            if holdsUnprintable(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { return false }
            index += 8
        }
        // The rest, fewer than eight: the buffer's last eight bytes as one word (those before `index` passed).
        if index < count, count >= 8 {
            return !holdsUnprintable(UnsafeRawPointer(base + (count - 8)).loadUnaligned(as: UInt64.self))
        }
        while index < count {
            let byte = base[index]
            if byte < 0x20 || byte >= 0x7F { return false }
            index += 1
        }
        return true
    }

    /// Whether any of the eight bytes in `word` is below 0x20 or at or above 0x7F (adding one sets the
    /// high bit of 0x7F; a carry comes only from 0xFF, which is caught itself).
    @inlinable @inline(__always)
    static func holdsUnprintable(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highBits
        let deleteOrHigh = ((word &+ ones) | word) & highBits
        return (control | deleteOrHigh) != 0
    }

    /// Whether any of the eight bytes in `word` is a control character, `first` or `second`.
    @inlinable @inline(__always)
    static func holdsControl(or first: UInt8, _ second: UInt8, _ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highBits
        let firsts = word ^ (ones &* UInt64(first))
        let seconds = word ^ (ones &* UInt64(second))
        let firstFound = (firsts &- ones) & ~firsts & highBits
        let secondFound = (seconds &- ones) & ~seconds & highBits
        return (control | firstFound | secondFound) != 0
    }
}
