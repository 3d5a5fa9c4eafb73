/// `BookIdentity.readTitle` over UTF-8 bytes, for titles of ASCII, Hangul syllables and CJK ideographs
/// (nearly every title the sources give): the same title key, numbers, subtitle and flags as the
/// reading by words of `String`s, which stays for any other text, without a `String` a word. The words
/// are folded into one buffer and named by their ranges, and compared by their first 8 bytes packed
/// into a number (`BookIdentity.code`). `IdentityTests` checks both readings agree.
struct TitleBytes {
    /// One word: its bytes in `bytes`, and `BookIdentity.code` of them (0 for a word over 8 bytes).
    struct Word {
        var start: Int
        var end: Int
        var code: UInt64
        var count: Int { end - start }
    }

    /// Every word's folded bytes, one after another.
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(64) }

    /// The folded words of `text` (as `TitleWords.words(of:)`), or nil when `text` has anything but
    /// ASCII, Hangul syllables, CJK ideographs, a right quotation mark and en and em dashes.
    mutating func words(of text: ArraySlice<UInt8>) -> [Word]? {
        var words: [Word] = []
        var current = WordBuilder(start: bytes.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            index += 1
            switch byte {
            case 0x61...0x7A, 0x30...0x39: current.append(byte, to: &bytes)
            case 0x41...0x5A: current.append(byte + 32, to: &bytes)
            case 0x26, 0x23:
                // "&" is the word "and", "#" a word of its own.
                current.flush(into: &words, bytes: bytes)
                if byte == 0x26 {
                    current.append(0x61, to: &bytes); current.append(0x6E, to: &bytes); current.append(0x64, to: &bytes)
                } else {
                    current.append(0x23, to: &bytes)
                }
                current.flush(into: &words, bytes: bytes)
            case 0x27: if current.elides(bytes) { current.flush(into: &words, bytes: bytes) }
            case 0...0x7F: current.flush(into: &words, bytes: bytes)
            default:
                guard let scalar = Self.scalar(text, at: index - 1) else { return nil }
                switch scalar {
                case .letters:
                    current.append(byte, to: &bytes); current.append(text[index], to: &bytes); current.append(text[index + 1], to: &bytes)
                case .apostrophe: if current.elides(bytes) { current.flush(into: &words, bytes: bytes) }
                case .dash: current.flush(into: &words, bytes: bytes)
                default: return nil
                }
                index += 2
            }
        }
        current.flush(into: &words, bytes: bytes)
        return words
    }

    /// The word being read by `words(of:)`.
    private struct WordBuilder {
        var start: Int
        var code: UInt64 = 0
        var count = 0

        mutating func append(_ byte: UInt8, to bytes: inout [UInt8]) {
            bytes.append(byte)
            code = code << 8 | UInt64(byte)
            count += 1
        }

        /// Ends the word (if any) and starts the next after it.
        mutating func flush(into words: inout [Word], bytes: [UInt8]) {
            if count > 0 { words.append(Word(start: start, end: start + count, code: count <= 8 ? code : 0)) }
            self = WordBuilder(start: bytes.count)
        }

        /// `l` or `d` alone, before an apostrophe (`l'`, `d'`).
        func elides(_ bytes: [UInt8]) -> Bool { count == 1 && (code == 0x6C || code == 0x64) }
    }

    /// The three-byte scalars the byte reading knows.
    enum Scalar { case letters, apostrophe, dash, colon, open, close }

    /// The three-byte scalar at `index` (its lead byte), nil for any other.
    static func scalar(_ text: ArraySlice<UInt8>, at index: Int) -> Scalar? {
        guard index + 2 < text.endIndex else { return nil }
        let lead = text[index], second = text[index + 1], third = text[index + 2]
        guard second & 0xC0 == 0x80, third & 0xC0 == 0x80 else { return nil }
        let value = (UInt32(lead & 0x0F) << 12) | (UInt32(second & 0x3F) << 6) | UInt32(third & 0x3F)
        guard lead & 0xF0 == 0xE0 else { return nil }
        switch value {
        case 0x4E00...0x9FFF, 0xAC00...0xD7A3: return .letters
        case 0x2019: return .apostrophe
        case 0x2013, 0x2014: return .dash
        case 0xFF1A: return .colon
        case 0xFF08, 0x3010: return .open
        case 0xFF09, 0x3011: return .close
        default: return nil
        }
    }

    /// Whether word `word` is the text `literal`.
    func word(_ word: Word, is literal: StaticString) -> Bool {
        guard word.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { literal in
            var index = 0
            while index < literal.count {
                if bytes[word.start + index] != literal[index] { return false }
                index += 1
            }
            return true
        }
    }

    /// The words' bytes one after another, as a `String`.
    func joined(_ words: some Sequence<Word>) -> String {
        var joined: [UInt8] = []
        for word in words { joined.append(contentsOf: bytes[word.start..<word.end]) }
        return String(decoding: joined, as: UTF8.self)
    }

    /// Whether every byte of the word is an ASCII digit.
    func isDigits(_ word: Word) -> Bool {
        word.count > 0 && bytes[word.start..<word.end].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The word's ASCII digits as a number (nil when it has anything else, or over `limit` digits).
    func digits(_ word: Word, limit: Int) -> Int? {
        guard word.count <= limit, isDigits(word) else { return nil }
        return bytes[word.start..<word.end].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}

extension BookIdentity {
    /// `readTitle` by bytes; false (and `self` unchanged) when the text is not for `TitleBytes`.
    mutating func readTitleBytes(_ text: String, subtitle: String?) -> Bool {
        let source = Array(text.utf8)[...]
        // Brackets out (`bracketsRemoved`): their text goes to `notes`, a closing one leaves a space.
        // Most titles have none, and are read where they lie.
        var bare = source
        var notes: [UInt8] = []
        var sawText = false
        if source.contains(where: { $0 == 0x28 || $0 == 0x5B || $0 == 0xEF || $0 == 0xE3 }) {
            guard let removed = Self.bracketsRemoved(source, notes: &notes, sawText: &sawText) else { return false }
            bare = removed[...]
        } else {
            var index = source.startIndex
            while index < source.endIndex {
                let byte = source[index]
                if byte < 0x80 {
                    if Self.isAlphanumeric(byte) { sawText = true; break }
                    index += 1
                    continue
                }
                guard let scalar = TitleBytes.scalar(source, at: index) else { return false }
                if scalar == .letters { sawText = true; break }
                index += 3
            }
        }
        // A title that is all brackets keeps them as its text: left to the reading by words.
        guard sawText else { return false }
        // Main title and subtitle (`split`).
        var main = bare, rest = bare[bare.endIndex...]
        var previous: UInt8 = 0x20
        var seenText = false
        var index = bare.startIndex
        split: while index < bare.endIndex {
            let byte = bare[index]
            if byte < 0x80 {
                let next = index + 1
                switch byte {
                case 0x3A, 0x3B:
                    if seenText { main = bare[..<index]; rest = bare[next...]; break split }
                case 0x2D, 0x7E:
                    if seenText, previous == 0x20, next < bare.endIndex, bare[next] == 0x20 {
                        main = bare[..<index]; rest = bare[next...]; break split
                    }
                default:
                    if Self.isAlphanumeric(byte) { seenText = true }
                }
                previous = byte
                index = next
                continue
            }
            let scalar = TitleBytes.scalar(bare, at: index)
            let after = index + 3
            switch scalar {
            case .colon:
                if seenText { main = bare[..<index]; rest = bare[after...]; break split }
            case .dash:
                if seenText, previous == 0x20, after < bare.endIndex, bare[after] == 0x20 {
                    main = bare[..<index]; rest = bare[after...]; break split
                }
            case .letters:
                seenText = true
            default:
                break
            }
            previous = 0x80
            index = after
        }
        var folded = TitleBytes()
        guard var words = folded.words(of: main) else { return false }
        var restWords: [TitleBytes.Word] = []
        if !rest.isEmpty {
            guard let read = folded.words(of: rest) else { return false }
            restWords = read
        }
        if let subtitle, !subtitle.isEmpty {
            guard let read = folded.words(of: Array(subtitle.utf8)[...]) else { return false }
            restWords += read
        }
        var noteWords: [TitleBytes.Word] = []
        if !notes.isEmpty {
            guard let read = folded.words(of: notes[...]) else { return false }
            noteWords = read
        }
        if words.count > 1, let first = words.first, Self.articles.contains(first.code) { words.removeFirst() }
        if words.count > 1, let last = words.last, Self.articles.contains(last.code), main.contains(0x2C) { words.removeLast() }
        boxSet = Self.isBoxSet(words, in: folded) || Self.isBoxSet(restWords, in: folded) || Self.isBoxSet(noteWords, in: folded)
            || Self.mayHaveRange(source) && Self.hasRange(source)
            || (subtitle.map { Self.mayHaveRange($0.utf8) && Self.hasRange(Array($0.utf8)[...]) } ?? false)
        var kept: [TitleBytes.Word] = []
        kept.reserveCapacity(words.count)
        var position = 0
        while position < words.count {
            if let (number, kind, length) = Self.number(in: words, at: position, of: folded) {
                if kind == .volume { volumes.append(number) } else { mainSeries.append(number) }
                position += length
                continue
            }
            kept.append(words[position])
            position += 1
        }
        if kept.count > 1, let last = kept.last, let number = folded.digits(last, limit: 3) { volumes.append(number) }
        var subtitleWords: [TitleBytes.Word] = []
        func readRest(_ source: [TitleBytes.Word], isNote: Bool) {
            var position = 0
            while position < source.count {
                if let (number, kind, length) = Self.number(in: source, at: position, of: folded) {
                    if kind == .volume { volumes.append(number) } else { restSeries.append(number) }
                    position += length
                    continue
                }
                if !isNote { subtitleWords.append(source[position]) }
                position += 1
            }
        }
        if !restWords.isEmpty { readRest(restWords, isNote: false) }
        if !noteWords.isEmpty { readRest(noteWords, isNote: true) }
        if subtitleWords.count > 1, let last = subtitleWords.last, let number = folded.digits(last, limit: 3) {
            volumes.append(number)
            subtitleWords.removeLast()
        }
        volumes = Self.sortedUnique(volumes)
        mainSeries = Self.sortedUnique(mainSeries)
        restSeries = Self.sortedUnique(restSeries)
        if kept.isEmpty { kept = words }
        title = folded.joined(kept)
        titleWordEnds = []
        titleWordEnds.reserveCapacity(kept.count)
        var end = 0
        for word in kept {
            end += word.count
            titleWordEnds.append(end)
        }
        self.subtitle = subtitleWords.isEmpty ? "" : folded.joined(subtitleWords)
        // Generic titles are short: longer ones are looked up in no set.
        let length = title.utf8.count
        generic = (length <= 12 && title.unicodeScalars.count <= 3) || (length <= Self.longestGenericTitle && Self.genericTitles.contains(title))
            || (kept.count == 1 && length <= 12 && Self.genericWords.contains(title))
        return true
    }

    /// `bracketsRemoved` over bytes: the text outside brackets (a closing one leaves a space), their
    /// text in `notes`; nil for a scalar `TitleBytes` does not know.
    private static func bracketsRemoved(_ source: ArraySlice<UInt8>, notes: inout [UInt8], sawText: inout Bool) -> [UInt8]? {
        var bare: [UInt8] = []
        bare.reserveCapacity(source.count)
        var depth = 0
        var index = source.startIndex
        while index < source.endIndex {
            let byte = source[index]
            if byte < 0x80 {
                index += 1
                switch byte {
                case 0x28, 0x5B:
                    depth += 1
                    notes.append(0x20)
                case 0x29, 0x5D:
                    depth = max(0, depth - 1)
                    if depth == 0 { bare.append(0x20) }
                default:
                    if depth > 0 {
                        notes.append(byte)
                    } else {
                        bare.append(byte)
                        if !sawText, isAlphanumeric(byte) { sawText = true }
                    }
                }
                continue
            }
            guard let scalar = TitleBytes.scalar(source, at: index) else { return nil }
            let second = source[index + 1], third = source[index + 2]
            index += 3
            switch scalar {
            case .open:
                depth += 1
                notes.append(0x20)
            case .close:
                depth = max(0, depth - 1)
                if depth == 0 { bare.append(0x20) }
            default:
                if depth > 0 {
                    notes.append(byte); notes.append(second); notes.append(third)
                } else {
                    bare.append(byte); bare.append(second); bare.append(third)
                    if scalar == .letters { sawText = true }
                }
            }
        }
        return bare
    }

    /// Whether the text has a digit and a dash or tilde (ASCII, or a three-byte one), which a range needs.
    private static func mayHaveRange(_ text: some Collection<UInt8>) -> Bool {
        var digit = false, dash = false
        for byte in text {
            if byte >= 0x30, byte <= 0x39 { digit = true } else if byte == 0x2D || byte == 0x7E || byte == 0xE2 || byte == 0xE3 { dash = true }
            if digit, dash { return true }
        }
        return false
    }

    /// `hasRange` over UTF-8: `1-3`, `1–7`, `1~3권`, numbers under 100.
    static func hasRange(_ text: ArraySlice<UInt8>) -> Bool {
        guard text.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        var current: Int?
        var lower: Int?
        var afterDash = false
        func closes(_ upper: Int) -> Bool {
            guard afterDash, let lower else { return false }
            return lower < 100 && upper < 100 && lower < upper
        }
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte >= 0x30, byte <= 0x39 {
                current = min((current ?? 0) * 10 + Int(byte - 0x30), 999)
                index += 1
                continue
            }
            // One scalar: its bytes (a lead byte says how many).
            var length = 1
            if byte >= 0xF0 { length = 4 } else if byte >= 0xE0 { length = 3 } else if byte >= 0xC0 { length = 2 }
            let end = min(index + length, text.endIndex)
            var dash = byte == 0x2D || byte == 0x7E
            if length == 3, end - index == 3 {
                let second = text[index + 1], third = text[index + 2]
                dash = (byte == 0xE2 && second == 0x80 && third == 0x93) || (byte == 0xE3 && second == 0x80 && third == 0x9C)
            }
            index = end
            if let number = current {
                if closes(number) { return true }
                afterDash = false
                lower = number
                current = nil
            }
            if lower != nil, !afterDash, dash {
                afterDash = true
            } else if !(length == 1 && byte == 0x20) {
                lower = nil
                afterDash = false
            }
        }
        return current.map(closes) ?? false
    }

    /// The longest of `genericTitles`, in bytes.
    static let longestGenericTitle = genericTitles.map(\.utf8.count).max() ?? 0

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// `number(in:at:)` over words in `folded`.
    private static func number(in words: [TitleBytes.Word], at index: Int, of folded: TitleBytes) -> (Int, NumberKind, Int)? {
        let word = words[index]
        // A glued number ends in a digit (`vol2`) or is not ASCII (`2권`, `상`).
        let last = folded.bytes[word.end - 1]
        if last >= 0x80 || (last >= 0x30 && last <= 0x39), let glued = gluedNumber(word, of: folded) { return glued }
        guard word.count <= 8 else { return nil }
        let kind: NumberKind
        if volumeMarkers.contains(word.code) {
            kind = .volume
        } else if seriesMarkers.contains(word.code) {
            kind = .series
        } else {
            return nil
        }
        guard index + 1 < words.count, let number = value(of: words[index + 1], of: folded) else { return nil }
        return (number, kind, 2)
    }

    /// `gluedNumber` over a word in `folded`.
    private static func gluedNumber(_ word: TitleBytes.Word, of folded: TitleBytes) -> (Int, NumberKind, Int)? {
        let bytes = folded.bytes[word.start..<word.end]
        guard let first = bytes.first else { return nil }
        if bytes.allSatisfy({ $0 < 0x80 }) {
            guard first == 0x76 || first == 0x6E || first == 0x70 || first == 0x62 else { return nil }
            var letters: UInt64 = 0
            var number = 0
            var digits = 0
            for byte in bytes {
                if digits == 0, byte >= 0x61, byte <= 0x7A {
                    letters = letters << 8 | UInt64(byte)
                    guard letters <= 0xFF_FFFF else { return nil }
                } else if byte >= 0x30, byte <= 0x39, digits < 4 {
                    digits += 1
                    number = number * 10 + Int(byte - 0x30)
                } else {
                    return nil
                }
            }
            guard digits > 0 else { return nil }
            switch letters {
            case code("vol"), code("v"), code("pt"): return (number, .volume, 1)
            case code("no"), code("bk"): return (number, .series, 1)
            default: return nil
            }
        }
        if word.count == 3 {
            if upperCodes.contains(word.code) { return (1001, .volume, 1) }
            if middleCodes.contains(word.code) { return (1002, .volume, 1) }
            if lowerCodes.contains(word.code) { return (1003, .volume, 1) }
        }
        // `제2권`, `第2巻`: an optional ordinal prefix, one to four digits, a volume suffix (three bytes each).
        var start = bytes.startIndex
        if bytes.count >= 3, ordinalPrefixes.contains(code(bytes: bytes[start..<start + 3])) { start += 3 }
        guard bytes.endIndex - start >= 4 else { return nil }
        let suffix = bytes.endIndex - 3
        guard cjkVolumeSuffixCodes.contains(code(bytes: bytes[suffix...])) else { return nil }
        let digits = bytes[start..<suffix]
        guard digits.count <= 4, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return (digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }, .volume, 1)
    }

    /// `value(of:)` over a word in `folded`.
    private static func value(of word: TitleBytes.Word, of folded: TitleBytes) -> Int? {
        if folded.isDigits(word) { return folded.digits(word, limit: 6) }
        if word.code != 0, let number = numberCodeValues[word.code] { return number }
        if word.code == 0, folded.word(word, is: "seventeen") { return 17 }
        let bytes = folded.bytes[word.start..<word.end]
        guard !bytes.isEmpty, bytes.count <= 7 else { return nil }
        var total = 0
        var previous = 0
        for byte in bytes.reversed() {
            let digit: Int
            switch byte {
            case 0x69: digit = 1
            case 0x76: digit = 5
            case 0x78: digit = 10
            default: return nil
            }
            if digit < previous { total -= digit } else { total += digit; previous = digit }
        }
        return total > 0 && total < 40 ? total : nil
    }

    /// `isBoxSet` over words in `folded`.
    private static func isBoxSet(_ words: [TitleBytes.Word], in folded: TitleBytes) -> Bool {
        var previous: UInt64 = 0
        for word in words {
            if word.code == 0 {
                if longBoxWordList.contains(where: { folded.word(word, is: $0) }) { return true }
            } else if boxWords.contains(word.code) {
                return true
            } else if word.code == setCode || word.code == setsCode, previous == boxCode || previous == boxedCode {
                return true
            } else if previous == completeCode, completedSets.contains(word.code) {
                return true
            }
            // `전5권`: complete in five volumes.
            if word.count > 6, folded.bytes[word.start] == 0xEC,
               code(bytes: folded.bytes[word.start..<word.start + 3]) == code("전"), code(bytes: folded.bytes[word.end - 3..<word.end]) == code("권") {
                return true
            }
            previous = word.code
        }
        return false
    }

    /// `longBoxWords` as literals, for comparing bytes.
    private static let longBoxWordList: [StaticString] = ["collection", "collections", "tetralogy", "anthology", "시리즈세트"]
    private static let numberCodeValues: [UInt64: Int] = Dictionary(
        numberWords.compactMap { word, value in word.utf8.count <= 8 ? (code(word), value) : nil }, uniquingKeysWith: { first, _ in first })
    private static let ordinalPrefixes = codes(["제", "第"])
    private static let cjkVolumeSuffixCodes = codes(cjkVolumeSuffixes.map { String($0) })
}
