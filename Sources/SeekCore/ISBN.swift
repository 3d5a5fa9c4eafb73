/// ISBN helpers: cleaning, check-digit validation and ISBN-10 → ISBN-13 conversion.
public enum ISBN {
    /// Removes hyphens, spaces and a leading "ISBN"; uppercases a trailing x.
    public static func clean(_ raw: String) -> String {
        var text = raw.trimmingPrefix(while: \.isWhitespace)
        if text.uppercased().hasPrefix("ISBN") { text = text.dropFirst(4) }
        return String(text.filter { !$0.isWhitespace && $0 != "-" && $0 != ":" }).uppercased()
    }

    public static func isValid10(_ isbn: String) -> Bool {
        let chars = Array(isbn)
        guard chars.count == 10 else { return false }
        var sum = 0
        for (index, char) in chars.enumerated() {
            let value: Int
            if let digit = char.wholeNumberValue, char.isASCII {
                value = digit
            } else if char == "X", index == 9 {
                value = 10
            } else {
                return false
            }
            sum += value * (10 - index)
        }
        return sum % 11 == 0
    }

    public static func isValid13(_ isbn: String) -> Bool {
        let digits = isbn.compactMap { $0.isASCII ? $0.wholeNumberValue : nil }
        guard digits.count == 13, isbn.count == 13 else { return false }
        guard isbn.hasPrefix("978") || isbn.hasPrefix("979") else { return false }
        return checksum13(digits) == 0
    }

    /// The ISBN-13 of a valid ISBN-10, or nil.
    public static func isbn13(from isbn10: String) -> String? {
        guard isValid10(isbn10) else { return nil }
        let stem = "978" + isbn10.prefix(9)
        let digits = stem.compactMap(\.wholeNumberValue)
        let check = (10 - checksum13(digits) % 10) % 10
        return stem + String(check)
    }

    /// Any ISBN (10 or 13, with or without hyphens) as a verified ISBN-13, or nil if it is not valid.
    public static func normalized(_ raw: String) -> String? {
        let cleaned = clean(raw)
        if isValid13(cleaned) { return cleaned }
        return isbn13(from: cleaned)
    }

    private static func checksum13(_ digits: [Int]) -> Int {
        var sum = 0
        for (index, digit) in digits.enumerated() {
            sum += index % 2 == 0 ? digit : digit * 3
        }
        return sum % 10
    }
}
