import Foundation
import SeekCore

/// Text folded for matching one record against another (a library's titles and authors against a
/// search's): lowercased letters and digits only, diacritics and widths folded.
public enum MatchText {
    /// Lowercased letters and digits only, diacritics folded. ASCII text takes a fast path, and so
    /// does text of ASCII, Hangul syllables and CJK ideographs (Aladin's titles and authors).
    public static func normalise(_ text: String) -> String {
        if text.isASCII {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count)
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): bytes.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte + 32)
                default: break
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return normalisedHangulOrCJK(text) ?? normalisedByFoundation(text)
    }

    /// `normalise` of text whose scalars are all ASCII, Hangul syllables or CJK unified ideographs;
    /// nil for any other. Folding leaves those syllables and ideographs as they are (the tests check
    /// every one against Foundation), so only ASCII changes: Foundation's folding cost about 12 K
    /// instructions a string, more than half of a miss's merge when the answers differ (issue 30).
    static func normalisedHangulOrCJK(_ text: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x61...0x7A, 0x30...0x39, 0xAC00...0xD7A3, 0x4E00...0x9FFF: scalars.append(scalar)
            case 0x41...0x5A: scalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value + 32)))
            case 0...0x7F: continue
            default: return nil
            }
        }
        return String(scalars)
    }

    /// `normalise` through Foundation's folding, for any text.
    package static func normalisedByFoundation(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        return String(folded.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }
}
