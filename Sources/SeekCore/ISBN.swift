/// ISBN helpers: extraction from catalogue text, cleaning, check-digit validation and ISBN-10 → ISBN-13
/// conversion.
///
/// They work on Unicode scalars and UTF-8 code units: every item of every page goes through them, and
/// `Character` properties (`wholeNumberValue`, grapheme breaking) cost far more than the check digits.
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
        guard isbn.utf8.count == 13 else { return false }
        var values: [UInt8] = []
        for unit in isbn.utf8 {
            guard let digit = digit(unit) else { return false }
            values.append(digit)
        }
        return isValid13(values: values)
    }

    /// The ISBN-13 of a valid ISBN-10, or nil.
    public static func isbn13(from isbn10: String) -> String? {
        guard isValid10(isbn10) else { return nil }
        return text(isbn13Values(from: isbn10.utf8.prefix(9).compactMap(digit)))
    }

    /// One ISBN (10 or 13, with or without hyphens, spaces and an "ISBN" label) in ASCII digits, as a
    /// verified ISBN-13, or nil if it is not valid. For text as catalogues write it — qualifiers, several
    /// ISBNs, other scripts' digits — use ``extract(from:)``.
    public static func normalized(_ raw: String) -> String? {
        let cleaned = clean(raw)
        if isValid13(cleaned) { return cleaned }
        return isbn13(from: cleaned)
    }

    /// Every valid ISBN in `text` as catalogues write it, each as an ISBN-13 (an ISBN-10 converted), in
    /// order of appearance and without duplicates.
    ///
    /// Reads what a librarian would: labels ("ISBN", "ISBN-13:", "urn:isbn:"), hyphens, dashes, dots and
    /// spaces between the parts, digits of any script, a check "x", and stops at qualifiers ("(pbk.)"),
    /// a Korean add-on code, a price or a list separator. A number whose check digit fails is no ISBN,
    /// and neither is an ISMN (979-0).
    public static func extract(from text: String) -> [String] {
        var isbns: [String] = []
        appendUnique(occurrences(in: text).lazy.map(\.isbn13), to: &isbns)
        return isbns
    }

    /// One ISBN found in text: its ISBN-13, and the ISBN-10 it was written as, if it was.
    struct Occurrence {
        var isbn13: String
        var isbn10: String?
    }

    /// Every valid ISBN in `text`, in order of appearance (repeats included). Linear in the text's length.
    static func occurrences(in text: String) -> [Occurrence] {
        var reader = ExtractionReader()
        for scalar in text.unicodeScalars {
            reader.read(scalar.isASCII ? UInt8(truncatingIfNeeded: scalar.value) : folded(scalar))
        }
        reader.finish()
        return reader.found
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
    static func isValid10(values: [UInt8]) -> Bool {
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
    static func isValid13(values: [UInt8]) -> Bool {
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
    static func text(_ values: [UInt8]) -> String {
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

    // MARK: - Extraction

    /// A non-ASCII scalar as the ASCII code unit that stands for it in an ISBN, as NFKC would read it: a
    /// decimal digit of any script as its digit, a dash as "-", a full-width form as its ASCII letter
    /// or sign, a line separator as "\n", other white space as " "; anything else as 0.
    static func folded(_ scalar: Unicode.Scalar) -> UInt8 {
        switch scalar.value {
        case 0x2010...0x2014, 0x2212, 0xFE63: return UInt8(ascii: "-")
        case 0xFF01...0xFF5E: return UInt8(truncatingIfNeeded: scalar.value - 0xFEE0)
        case 0x0085, 0x2028, 0x2029: return UInt8(ascii: "\n")
        default: break
        }
        let properties = scalar.properties
        // A decimal digit's value is a whole number from 0 to 9 (Unicode's Nd category).
        if properties.numericType == .decimal, let value = properties.numericValue, (0...9).contains(value) {
            return UInt8(ascii: "0") + UInt8(value)
        }
        return properties.isWhitespace ? UInt8(ascii: " ") : 0
    }

    /// Reads ISBNs from ASCII code units (non-ASCII text folded first), one unit at a time.
    ///
    /// Digits joined by one hyphen or dot make a *token*, read whole ("978-0-306-40615-7"); a final "X"
    /// after a digit is a check digit. Tokens joined by a space (with at most one hyphen: "978 - 0") make
    /// a *chain*, which anything else ends: a letter, a colon, a comma, a bracket, a line break. In a
    /// chain, a token of 10 or 13 digits is read alone; shorter tokens are read together when they make
    /// up exactly 13 digits starting 978 or 979 in at most five parts ("979 10 90636 07 1") — rejected
    /// whole if the check digit fails — or else exactly 10 in at most four. So an add-on code after an
    /// ISBN ("… 3412-0 03810") stays out of it. "10" or "13" after an "ISBN" label, followed by a colon
    /// or a space, names the form and is dropped.
    struct ExtractionReader {
        private(set) var found: [Occurrence] = []

        /// Digits joined by single hyphens or dots: the first `min(count, 13)` digits are kept in `digits`
        /// from `start`.
        private struct Token {
            var start: Int
            var count = 0
            var groups = 1
        }

        /// The chain so far: its finished tokens, the one being read, and their digits.
        private var tokens: [Token] = []
        private var current: Token?
        private var digits: [UInt8] = []
        /// What came since the current token's last digit.
        private var gapLength = 0
        private var gapHyphens = 0
        private var gapDots = 0
        /// An "X" after a digit: a check digit unless a digit or letter follows.
        private var pendingX = false

        /// The last four letters read, uppercased, one per byte; "ISBN" when a label just ended.
        private var letters: UInt32 = 0
        private var label = LabelState.none

        private enum LabelState {
            case none
            /// After "ISBN" and any "-", ":" or spaces.
            case afterLabel
            /// After "ISBN" and "1".
            case one
            /// After "ISBN" and "1" followed by `second`: "10" or "13".
            case form(UInt8)
        }

        private static let isbnLetters = UInt32(0x49_53_42_4E)  // "ISBN"

        mutating func read(_ unit: UInt8) {
            if Self.isLetter(unit) {
                flushLabel()
                letters = letters << 8 | UInt32(unit & 0xDF)
                lex(unit)
                return
            }
            if letters == Self.isbnLetters { label = .afterLabel }
            letters = 0
            switch label {
            case .none:
                break
            case .afterLabel:
                if unit == UInt8(ascii: "1") { label = .one; return }
                if unit != UInt8(ascii: "-"), unit != UInt8(ascii: ":"), !Self.isSpace(unit) { label = .none }
            case .one:
                if unit == UInt8(ascii: "0") || unit == UInt8(ascii: "3") { label = .form(unit); return }
                flushLabel()
            case .form:
                if unit == UInt8(ascii: ":") || Self.isSpace(unit) {
                    label = .none  // "ISBN-13:": the digits named the form
                } else {
                    flushLabel()  // "ISBN 1000000001": they start the number
                }
            }
            lex(unit)
        }

        /// Ends the text.
        mutating func finish() {
            flushLabel()
            if pendingX {
                pendingX = false
                appendDigit(10)
            }
            endChain()
        }

        /// Digits held back after an "ISBN" label, read as digits after all.
        private mutating func flushLabel() {
            switch label {
            case .one:
                lex(UInt8(ascii: "1"))
            case .form(let second):
                lex(UInt8(ascii: "1"))
                lex(second)
            case .none, .afterLabel:
                break
            }
            label = .none
        }

        /// A space, a tab, a vertical tab or a form feed (a line break ends a chain).
        private static func isSpace(_ unit: UInt8) -> Bool {
            unit == UInt8(ascii: " ") || unit == UInt8(ascii: "\t") || unit == 0x0B || unit == 0x0C
        }

        private static func isLetter(_ unit: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(unit) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(unit)
        }

        private mutating func lex(_ unit: UInt8) {
            if pendingX {
                pendingX = false
                if Self.isLetter(unit) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(unit) {
                    endChain()  // "08X6…", "OSX": the X was a letter
                } else {
                    appendDigit(10)
                }
            }
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                appendDigit(unit - UInt8(ascii: "0"))
            case UInt8(ascii: "X"), UInt8(ascii: "x"):
                if current != nil, gap == .none || gap == .tight { pendingX = true } else { endChain() }
            case UInt8(ascii: "-"):
                gapHyphens += 1
                gapLength += 1
            case UInt8(ascii: "."):
                gapDots += 1
                gapLength += 1
            case _ where Self.isSpace(unit):
                gapLength += 1
            default:
                endChain()
            }
        }

        private enum Gap { case none, tight, loose, hard }

        private var gap: Gap {
            if gapLength == 0 { return .none }
            if gapLength == 1, gapHyphens == 1 || gapDots == 1 { return .tight }
            // A space, with at most one hyphen: "978 0", "978 - 0".
            if gapDots == 0, gapHyphens <= 1, gapLength <= 3 { return .loose }
            return .hard
        }

        private mutating func appendDigit(_ value: UInt8) {
            let kind = current == nil ? Gap.hard : gap
            switch kind {
            case .hard:
                endChain()
            case .loose:
                if let current { tokens.append(current) }
                current = nil
            case .none, .tight:
                break
            }
            var token = current ?? Token(start: digits.count)
            if kind == .tight { token.groups += 1 }
            token.count += 1
            if token.count <= 13 { digits.append(value) }
            current = token
            gapLength = 0
            gapHyphens = 0
            gapDots = 0
        }

        /// Reads the ISBNs of the chain and starts a new one.
        private mutating func endChain() {
            if let current { tokens.append(current) }
            current = nil
            gapLength = 0
            gapHyphens = 0
            gapDots = 0
            var index = 0
            while index < tokens.count {
                index = readISBN(at: index)
            }
            tokens.removeAll(keepingCapacity: true)
            digits.removeAll(keepingCapacity: true)
        }

        /// Reads the ISBN that starts at token `first`, if any; returns the token to go on from.
        private mutating func readISBN(at first: Int) -> Int {
            guard let token = tokens[safe: first] else { return first + 1 }
            if token.count == 10 || token.count == 13 {
                accept(first...first)
                return first + 1
            }
            var total = 0
            var groups = 0
            var ten: Int?
            var last = first
            while let next = tokens[safe: last] {
                total += next.count
                groups += next.groups
                // An ISBN-13 has five parts at most, an ISBN-10 four.
                if total > 13 || groups > 5 { break }
                if total == 10, groups <= 4 { ten = last }
                if total == 13 {
                    // Read whole, valid or not, if it starts as an ISBN-13 does.
                    let values = self.values(first...last)
                    if values.starts(with: [9, 7, 8]) || values.starts(with: [9, 7, 9]) {
                        accept(first...last)
                        return last + 1
                    }
                    break
                }
                last += 1
            }
            if let ten, accept(first...ten) { return ten + 1 }
            return first + 1
        }

        /// Adds the ISBN the tokens make up if it is valid; returns whether it was.
        @discardableResult
        private mutating func accept(_ range: ClosedRange<Int>) -> Bool {
            let values = values(range)
            if ISBN.isValid13(values: values) {
                found.append(Occurrence(isbn13: ISBN.text(values), isbn10: nil))
                return true
            }
            if ISBN.isValid10(values: values) {
                found.append(Occurrence(isbn13: ISBN.text(ISBN.isbn13Values(from: values.prefix(9))), isbn10: ISBN.text(values)))
                return true
            }
            return false
        }

        private func values(_ range: ClosedRange<Int>) -> [UInt8] {
            var values: [UInt8] = []
            for index in range {
                guard let token = tokens[safe: index] else { break }
                let end = min(token.start + min(token.count, 13), digits.count)
                if token.start < end { values += digits[token.start..<end] }
            }
            return values
        }
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
