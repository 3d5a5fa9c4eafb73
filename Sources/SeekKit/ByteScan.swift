import Foundation
import SeekSupport

/// Searches of bytes eight at a time, for a provider that checks an answer before it reads it (Aladin's
/// bodies, for what must be rewritten before they are JSON). The scans are SeekSupport's `WordScan`.
public enum ByteScan {
    /// Where the first byte at or after `start` of `data` (counted from its first byte) is a control
    /// character (below 0x20), `first` or `second`; `data.count` when there is none.
    public static func firstControl(or first: UInt8, _ second: UInt8, in data: Data, from start: Int) -> Int {
        WordScan.firstControl(or: first, second, in: data, from: start)
    }

    /// Whether every byte of `text`'s UTF-8 is printable ASCII, 0x20 through 0x7E.
    public static func isPrintableASCII(_ text: String) -> Bool {
        WordScan.isPrintableASCII(text)
    }
}
