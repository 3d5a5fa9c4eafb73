#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// `body` given the text's UTF-8 where it is stored, without the copy (and its retain and release)
    /// that `withUTF8` on a `var` makes; only a text that is not stored contiguously (a bridged one)
    /// is copied first. The JSON writers and the untrusted-text check read thousands of strings a
    /// search this way (issue 30).
    ///
    /// SAFETY: the buffer is the string's own storage (or a local copy's), borrowed for `body` only;
    /// `body` must not keep it, and every caller in this module reads it within `0..<count`.
    @inlinable
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var contiguous = self
        return try contiguous.withUTF8(body)
    }
}

/// Searches of one text for another on UTF-8 code units, as Foundation's `range(of:)` and
/// `replacingOccurrences(of:with:)` match (the `\n` of a `\r\n` matches too).
package enum UTF8Search {
    /// Whether `text` holds `target` (an empty target is held by every text).
    @inlinable
    package static func contains(_ text: String, _ target: String) -> Bool {
        guard !target.isEmpty else { return true }
        return text.withUTF8Bytes { source in target.withUTF8Bytes { firstOccurrence(of: $0, in: source, from: 0) != nil } }
    }

    /// `text` with every occurrence of `target` replaced by `replacement`; nil when there is none (and
    /// then nothing was built).
    package static func replacingAll(in text: String, _ target: String, with replacement: String) -> String? {
        guard !target.isEmpty else { return nil }
        let replaced: [UInt8]? = text.withUTF8Bytes { source in
            target.withUTF8Bytes { pattern in
                guard var index = firstOccurrence(of: pattern, in: source, from: 0) else { return nil }
                var result: [UInt8] = []
                result.reserveCapacity(source.count)
                var copied = 0
                while true {
                    // SAFETY: `copied <= index <= source.count - pattern.count`: `index` is a match
                    // `firstOccurrence` found at or after `copied`.
                    result.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied..<index]))
                    result.append(contentsOf: replacement.utf8)
                    copied = index + pattern.count
                    guard let next = firstOccurrence(of: pattern, in: source, from: copied) else { break }
                    index = next
                }
                // SAFETY: `copied` is the end of a match, at most `source.count`.
                result.append(contentsOf: UnsafeBufferPointer(rebasing: source[copied...]))
                return result
            }
        }
        return replaced.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Where `pattern` first starts in `source` at or after `start`. Candidates are found with
    /// `memchr`, many bytes at a time: redaction searches every URL and title of an answer for each
    /// secret, and almost none holds one (a byte-by-byte scan was 1 % of a miss, issue 30).
    ///
    /// SAFETY: `memchr` reads `lastStart - index + 1` bytes from `base + index`, which ends at
    /// `lastStart = source.count - pattern.count`, inside `source` (`index >= 0`); `memcmp` compares
    /// `pattern.count - 1` bytes after a candidate `<= lastStart`, so it ends at most at `source.count`,
    /// and after `patternBase`, which has `pattern.count` bytes. No pointer is kept.
    @inlinable
    package static func firstOccurrence(of pattern: UnsafeBufferPointer<UInt8>, in source: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let head = pattern.first, let patternBase = pattern.baseAddress, let base = source.baseAddress,
            pattern.count <= source.count
        else { return nil }
        let lastStart = source.count - pattern.count
        var index = Swift.max(0, start)
        while index <= lastStart {
            guard let found = memchr(base + index, Int32(head), lastStart - index + 1) else { return nil }
            let candidate = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            if pattern.count == 1 || memcmp(base + candidate + 1, patternBase + 1, pattern.count - 1) == 0 { return candidate }
            index = candidate + 1
        }
        return nil
    }
}
