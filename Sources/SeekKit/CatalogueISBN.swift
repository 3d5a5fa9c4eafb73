import SeekCore

// Reading ISBNs out of catalogue text, for providers: a field as a catalogue writes it may hold
// labels, qualifiers, several ISBNs, a price or an add-on code, in any script's digits. SeekCore's
// `Identifiers` then only checks and converts the ISBNs found.

extension Identifiers {
    /// Identifiers with every valid ISBN in `fields`, read as catalogues write them (`add(isbnsIn:)`).
    public init(isbnsIn fields: [String], other: [String: String] = [:]) {
        self.init(other: other)
        // One insertion for all the fields, so a record with hundreds of ISBN fields stays linear; the
        // ISBNs gathered in an array first (a lazy sequence here was iterated through witness tables).
        var found: [String] = []
        for field in fields { found += ISBN.occurrences(in: field) }
        add(isbns: found)
    }

    /// Adds every valid ISBN in a field as catalogues write it (see `ISBN.extract(from:)`): one or
    /// several, with labels and qualifiers. An ISBN-10 is kept as written and its ISBN-13 added;
    /// anything else is ignored.
    public mutating func add(isbnsIn field: String) {
        add(isbns: ISBN.occurrences(in: field))
    }
}

extension ISBN {
    /// Every valid ISBN in `text` as catalogues write it, each as an ISBN-13 (an ISBN-10 converted), in
    /// order of appearance and without duplicates.
    ///
    /// Reads what a librarian would: labels ("ISBN", "ISBN-13:", "urn:isbn:"), hyphens, dashes, dots and
    /// spaces between the parts, digits of any script, a check "x", and stops at qualifiers ("(pbk.)"),
    /// a Korean add-on code, a price or a list separator. A number whose check digit fails is no ISBN,
    /// and neither is an ISMN (979-0).
    public static func extract(from text: String) -> [String] {
        Identifiers(isbnsIn: [text]).isbn13
    }

    /// Every valid ISBN in `text`, in order of appearance (repeats included), as its digits: thirteen,
    /// or the ten it was written as. Linear in the text's length.
    static func occurrences(in text: String) -> [String] {
        if let bare = bareOccurrence(in: text) { return bare }
        var reader = ExtractionReader()
        for scalar in text.unicodeScalars {
            reader.read(scalar.isASCII ? UInt8(truncatingIfNeeded: scalar.value) : folded(scalar))
        }
        reader.finish()
        return reader.found
    }

    /// What the reader finds in a field that is one bare number, as most are: thirteen ASCII digits, or
    /// nine and a digit or "X" (either case) last; nil for any other field, which the reader reads.
    /// Such a field is one token to the reader, so it finds that number when its check digit holds
    /// and nothing when it fails (tested against the reader); this answer skips the reader's state
    /// machine, which cost 4.5 K instructions a field (issue 30).
    static func bareOccurrence(in text: String) -> [String]? {
        let units = text.utf8
        guard units.count == 13 || units.count == 10 else { return nil }
        var values: [UInt8] = []
        values.reserveCapacity(13)
        for (index, unit) in units.enumerated() {
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(unit) {
                values.append(unit - UInt8(ascii: "0"))
            } else if units.count == 10, index == 9, unit == UInt8(ascii: "X") || unit == UInt8(ascii: "x") {
                values.append(10)
            } else {
                return nil
            }
        }
        return ISBN.isValid13(values: values) || ISBN.isValid10(values: values) ? [ISBN.text(values)] : []
    }

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
        /// Each valid ISBN read, as its digits: thirteen, or the ten it was written as.
        private(set) var found: [String] = []

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
            guard ISBN.isValid13(values: values) || ISBN.isValid10(values: values) else { return false }
            found.append(ISBN.text(values))
            return true
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
