/// ISBN helpers: cleaning, check-digit validation and ISBN-10 → ISBN-13 conversion.
///
/// They work on UTF-8 code units: every item of every page goes through them, and `Character`
/// properties (`wholeNumberValue`, grapheme breaking) cost far more than the check digits.
public enum ISBN {
    /// Removes hyphens, spaces and a leading "ISBN" label ("ISBN", "ISBN:", "ISBN-13:", "ISBN 10");
    /// uppercases a trailing x.
    public static func clean(_ raw: String) -> String {
        var units = Substring(raw).unicodeScalars.drop { $0.properties.isWhitespace }
        if units.count >= 4, String(String.UnicodeScalarView(units.prefix(4))).uppercased() == "ISBN" {
            units = withoutFormLabel(units.dropFirst(4))
        }
        var kept = String.UnicodeScalarView()
        for scalar in units where !scalar.properties.isWhitespace && scalar != "-" && scalar != ":" {
            kept.append(scalar)
        }
        let text = String(kept)
        // Only ASCII matters to validity; other text is uppercased as a whole, like any string.
        guard text.isASCII else { return text.uppercased() }
        return String(decoding: text.utf8.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    /// The text after "ISBN" without a "10" or "13" that names the form ("-13:", " 10 "): one followed
    /// by a colon or a space, which a number's own first digits never are.
    private static func withoutFormLabel(_ units: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView {
        let rest = units.drop { $0 == "-" || $0.properties.isWhitespace }
        guard rest.starts(with: "10".unicodeScalars) || rest.starts(with: "13".unicodeScalars),
              let next = rest.dropFirst(2).first, next == ":" || next.properties.isWhitespace
        else { return units }
        return rest.dropFirst(2)
    }

    public static func isValid10(_ isbn: String) -> Bool {
        let units = Array(isbn.utf8)
        guard units.count == 10 else { return false }
        var sum = 0
        for (index, unit) in units.enumerated() {
            let value: Int
            if let digit = digit(unit) {
                value = digit
            } else if unit == UInt8(ascii: "X"), index == 9 {
                value = 10
            } else {
                return false
            }
            sum += value * (10 - index)
        }
        return sum % 11 == 0
    }

    public static func isValid13(_ isbn: String) -> Bool {
        let digits = isbn.utf8.compactMap(digit)
        guard digits.count == 13, isbn.utf8.count == 13 else { return false }
        guard digits.starts(with: [9, 7, 8]) || digits.starts(with: [9, 7, 9]) else { return false }
        return checksum13(digits) == 0
    }

    /// The ISBN-13 of a valid ISBN-10, or nil.
    public static func isbn13(from isbn10: String) -> String? {
        guard isValid10(isbn10) else { return nil }
        let stem = [9, 7, 8] + isbn10.utf8.prefix(9).compactMap(digit)
        let check = (10 - checksum13(stem) % 10) % 10
        return String(decoding: (stem + [check]).map { UInt8(ascii: "0") + UInt8($0) }, as: UTF8.self)
    }

    /// Any ISBN (10 or 13, with or without hyphens) as a verified ISBN-13, or nil if it is not valid.
    public static func normalized(_ raw: String) -> String? {
        let cleaned = clean(raw)
        if isValid13(cleaned) { return cleaned }
        return isbn13(from: cleaned)
    }

    private static func digit(_ unit: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(unit) ? Int(unit - UInt8(ascii: "0")) : nil
    }

    private static func checksum13(_ digits: [Int]) -> Int {
        var sum = 0
        for (index, digit) in digits.enumerated() {
            sum += index % 2 == 0 ? digit : digit * 3
        }
        return sum % 10
    }
}
