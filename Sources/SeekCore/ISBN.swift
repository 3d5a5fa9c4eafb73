/// ISBN helpers: cleaning, check-digit validation and ISBN-10 → ISBN-13 conversion. Reading ISBNs out
/// of catalogue text is SeekKit's (`ISBN.extract(from:)`, `Identifiers(isbnsIn:)`).
///
/// They work on Unicode scalars and UTF-8 code units: every item of every page goes through them, and
/// `Character` properties (`wholeNumberValue`, grapheme breaking) cost far more than the check digits.
public enum ISBN {
    /// Removes hyphens, spaces and a leading "ISBN" label ("ISBN", "ISBN:", "ISBN-13:", "ISBN 10");
    /// uppercases a trailing x.
    public static func clean(_ raw: String) -> String {
        // Most ISBNs arrive as bare digits (an "X" last for some ISBN-10s): nothing to remove or
        // uppercase, and no Unicode property to look up (issue 30: 17 K instructions an ISBN before).
        isBare(raw) ? raw : cleanedInFull(raw)
    }

    /// `clean` of any text: labels, separators and white space removed, letters uppercased.
    static func cleanedInFull(_ raw: String) -> String {
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

    /// Whether `text` is ASCII digits and upper-case "X"s only, which `clean` gives back as they are.
    private static func isBare(_ text: String) -> Bool {
        !text.utf8.isEmpty && text.utf8.allSatisfy { digit($0) != nil || $0 == UInt8(ascii: "X") }
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

    /// Whether `isbn` is exactly ten characters, nine ASCII digits and a digit or "X", with a valid check
    /// digit. 0000000000, a placeholder, is not an ISBN.
    public static func isValid10(_ isbn: String) -> Bool {
        guard isbn.utf8.count == 10 else { return false }
        var values: [UInt8] = []
        for (index, unit) in isbn.utf8.enumerated() {
            if let digit = digit(unit) {
                values.append(digit)
            } else if unit == UInt8(ascii: "X"), index == 9 {
                values.append(10)
            } else {
                return false
            }
        }
        return isValid10(values: values)
    }

    /// Whether `isbn` is thirteen ASCII digits starting 978 or 979 (but not 979-0, the ISMN of printed
    /// music) with a valid check digit.
    public static func isValid13(_ isbn: String) -> Bool {
        // Read in one pass without an array of digits: a merge checks every ISBN a row unites.
        guard isbn.utf8.count == 13 else { return false }
        var sum = 0
        var prefix = 0
        for (index, unit) in isbn.utf8.enumerated() {
            guard let digit = digit(unit) else { return false }
            if index < 4 { prefix = prefix * 10 + Int(digit) }
            sum += index % 2 == 0 ? Int(digit) : Int(digit) * 3
        }
        // 978 or 979, but not 979-0 (the ISMN of printed music).
        guard (9780...9789).contains(prefix) || (9791...9799).contains(prefix) else { return false }
        return sum % 10 == 0
    }

    /// The ISBN-13 of a valid ISBN-10, or nil.
    public static func isbn13(from isbn10: String) -> String? {
        guard isValid10(isbn10) else { return nil }
        return text(isbn13Values(from: isbn10.utf8.prefix(9).compactMap(digit)))
    }

    /// One ISBN (10 or 13, with or without hyphens, spaces and an "ISBN" label) in ASCII digits, as a
    /// verified ISBN-13, or nil if it is not valid. For text as catalogues write it — qualifiers, several
    /// ISBNs, other scripts' digits — use SeekKit's `ISBN.extract(from:)`.
    public static func normalized(_ raw: String) -> String? {
        let cleaned = clean(raw)
        if isValid13(cleaned) { return cleaned }
        return isbn13(from: cleaned)
    }

    /// Appends each of `values` that `list` does not hold yet, in order. A set answers once the list is
    /// long, so a field with thousands of ISBNs stays linear.
    static func appendUnique(_ values: some Sequence<String>, to list: inout [String]) {
        var seen: Set<String>?
        for value in values {
            if seen == nil, list.count > 16 { seen = Set(list) }
            if seen != nil {
                if seen?.insert(value).inserted == true { list.append(value) }
            } else if !list.contains(value) {
                list.append(value)
            }
        }
    }

    // MARK: - Values

    /// Whether digit values (0–9, 10 for "X") are a valid ISBN-10: ten of them, only the last possibly 10,
    /// not all zero, with a valid check digit.
    package static func isValid10(values: [UInt8]) -> Bool {
        guard values.count == 10, values.dropLast().allSatisfy({ $0 <= 9 }), values.contains(where: { $0 != 0 })
        else { return false }
        var sum = 0
        for (index, value) in values.enumerated() {
            sum += Int(value) * (10 - index)
        }
        return sum % 11 == 0
    }

    /// Whether digit values are a valid ISBN-13: thirteen digits, 978 or 979 but not 979-0, with a valid
    /// check digit.
    package static func isValid13(values: [UInt8]) -> Bool {
        guard values.count == 13, values.allSatisfy({ $0 <= 9 }),
              values.starts(with: [9, 7, 8]) || values.starts(with: [9, 7, 9]),
              !values.starts(with: [9, 7, 9, 0])
        else { return false }
        return checksum13(values) == 0
    }

    /// The ISBN-13 digits for the first nine digits of an ISBN-10.
    private static func isbn13Values(from stem: some Sequence<UInt8>) -> [UInt8] {
        let digits: [UInt8] = [9, 7, 8] + stem
        return digits + [UInt8((10 - checksum13(digits)) % 10)]
    }

    /// The text of digit values, 10 as "X".
    package static func text(_ values: [UInt8]) -> String {
        String(decoding: values.map { $0 <= 9 ? UInt8(ascii: "0") + $0 : UInt8(ascii: "X") }, as: UTF8.self)
    }

    private static func digit(_ unit: UInt8) -> UInt8? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(unit) ? unit - UInt8(ascii: "0") : nil
    }

    /// The weighted sum mod 10 of ISBN-13 digits (0 for a valid ISBN-13).
    private static func checksum13(_ digits: [UInt8]) -> Int {
        var sum = 0
        for (index, digit) in digits.enumerated() {
            sum += index % 2 == 0 ? Int(digit) : Int(digit) * 3
        }
        return sum % 10
    }
}
