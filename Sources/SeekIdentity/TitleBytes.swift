import SeekCore

/// `BookIdentity.readTitle` over UTF-8 bytes, for titles of ASCII, Latin letters with diacritics,
/// Hangul syllables, kana and CJK ideographs (nearly every title the sources give): the same title
/// key, numbers, subtitle and flags as the reading by words of `String`s, which stays for any other
/// text, without a `String` a word. The text is read where it lies (a `Span` of its UTF-8); its words
/// are folded into one buffer, named by their ranges, and compared by their first 8 bytes packed into
/// a number (`BookIdentity.code`). `IdentityTests` checks that both readings agree.
struct TitleBytes {
    /// One word: its bytes in `bytes`, and `BookIdentity.code` of them (0 for a word over 8 bytes).
    struct Word {
        var start: Int
        var end: Int
        var code: UInt64
        var count: Int { end - start }
    }

    /// Every word's folded bytes, one after another with nothing between.
    private(set) var bytes: [UInt8] = []
    /// The words read so far, in order.
    private(set) var words: [Word] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
        words.reserveCapacity(16)
    }

    /// Empties the buffers for another text, keeping their memory, with room for `capacity` bytes.
    mutating func reset(capacity: Int) {
        bytes.removeAll(keepingCapacity: true)
        words.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(capacity)
    }

    /// Appends the folded words of `text[start..<end]` (as `TitleWords.words(of:)` reads them); false
    /// when the text has anything but ASCII, `latin` letters and marks, Hangul syllables, kana, CJK
    /// ideographs, a right quotation mark, en and em dashes and the kana's dots.
    mutating func fold(_ text: Span<UInt8>, from start: Int, to end: Int) -> Bool {
        var wordStart = bytes.count
        var code: UInt64 = 0
        var index = start
        while index < end {
            let byte = text[index]
            index += 1
            switch byte {
            case 0x61...0x7A, 0x30...0x39:
                bytes.append(byte)
                code = code << 8 | UInt64(byte)
            case 0x41...0x5A:
                bytes.append(byte + 32)
                code = code << 8 | UInt64(byte + 32)
            case 0x26, 0x23:
                // "&" is the word "and", "#" a word of its own.
                flush(from: &wordStart, code: &code)
                if byte == 0x26 {
                    bytes.append(0x61); bytes.append(0x6E); bytes.append(0x64)
                    code = 0x61_6E64
                } else {
                    bytes.append(0x23)
                    code = 0x23
                }
                flush(from: &wordStart, code: &code)
            case 0x27:
                if elides(from: wordStart, code: code) { flush(from: &wordStart, code: &code) }
            case 0...0x7F:
                flush(from: &wordStart, code: &code)
            case 0xC0..<0xE0:
                guard let folded = Self.latin(text, at: index - 1, end: end) else { return false }
                if folded != 0 {
                    bytes.append(folded)
                    code = code << 8 | UInt64(folded)
                }
                index += 1
            default:
                guard let scalar = Self.scalar(text, at: index - 1, end: end) else { return false }
                switch scalar {
                case .letters:
                    let second = text[index], third = text[index + 1]
                    bytes.append(byte); bytes.append(second); bytes.append(third)
                    code = code << 24 | UInt64(byte) << 16 | UInt64(second) << 8 | UInt64(third)
                case .apostrophe:
                    if elides(from: wordStart, code: code) { flush(from: &wordStart, code: &code) }
                case .dash, .gap:
                    flush(from: &wordStart, code: &code)
                default:
                    return false
                }
                index += 2
            }
        }
        flush(from: &wordStart, code: &code)
        return true
    }

    /// Appends the folded words of `text`, if any.
    mutating func fold(_ text: String?) -> Bool {
        guard let text, !text.isEmpty else { return true }
        let span = text.utf8.span
        return fold(span, from: 0, to: span.count)
    }

    /// Ends the word begun at `start` (if it has bytes) and begins the next.
    private mutating func flush(from start: inout Int, code: inout UInt64) {
        let count = bytes.count - start
        if count > 0 { words.append(Word(start: start, end: bytes.count, code: count <= 8 ? code : 0)) }
        start = bytes.count
        code = 0
    }

    /// `l` or `d` alone, before an apostrophe (`l'`, `d'`).
    private func elides(from start: Int, code: UInt64) -> Bool {
        bytes.count - start == 1 && (code == 0x6C || code == 0x64)
    }

    /// The three-byte scalars the byte reading knows (`gap`: a break between words, as the kana's dots).
    enum Scalar { case letters, apostrophe, dash, colon, open, close, gap }

    /// The three-byte scalar whose lead byte is at `index` (within `end`), nil for any other.
    static func scalar(_ text: Span<UInt8>, at index: Int, end: Int) -> Scalar? {
        guard index + 2 < end else { return nil }
        let lead = text[index], second = text[index + 1], third = text[index + 2]
        guard lead & 0xF0 == 0xE0, second & 0xC0 == 0x80, third & 0xC0 == 0x80 else { return nil }
        switch (UInt32(lead & 0x0F) << 12) | (UInt32(second & 0x3F) << 6) | UInt32(third & 0x3F) {
        case 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0x3041...0x3096, 0x309D...0x309F, 0x30A1...0x30FA, 0x30FC...0x30FF: return .letters
        case 0x30A0, 0x30FB: return .gap
        case 0x2019: return .apostrophe
        case 0x2013, 0x2014: return .dash
        case 0xFF1A: return .colon
        case 0xFF08, 0x3010: return .open
        case 0xFF09, 0x3011: return .close
        default: return nil
        }
    }

    /// What the two-byte scalar at `index` (within `end`) folds to: its ASCII letter (`À`–`ſ`), 0 for
    /// a combining mark folding takes out, nil for any other (`ß`, `Ø`, `æ`: left to the words).
    static func latin(_ text: Span<UInt8>, at index: Int, end: Int) -> UInt8? {
        guard index + 1 < end else { return nil }
        let lead = text[index], second = text[index + 1]
        guard lead & 0xE0 == 0xC0, second & 0xC0 == 0x80 else { return nil }
        switch Int(lead & 0x1F) << 6 | Int(second & 0x3F) {
        case let value where value >= 0xC0 && value <= 0x17F:
            let folded = latinFolds[value - 0xC0]
            return folded == 0x2E ? nil : folded
        // Marks that are not letters (as `U+0345` and `U+0363`–`U+036F` are).
        case 0x300...0x344, 0x346...0x362: return 0
        default: return nil
        }
    }

    /// `U+00C0`–`U+017F` as Foundation's folding leaves them, `.` where that is not one ASCII letter.
    private static let latinFolds: [UInt8] = Array((
        "aaaaaa.ceeeeiiii.nooooo..uuuuy..aaaaaa.ceeeeiiii.nooooo..uuuuy.y"
        + "aaaaaaccccccccdd..eeeeeeeeeegggggggghh..iiiiiiiii...jjkk.llllll."
        + "...nnnnnn...oooooo..rrrrrrsssssssstttt..uuuuuuuuuuuuwwyyyzzzzzzs").utf8)

    /// Whether `word` is the text `literal`.
    func word(_ word: Word, is literal: [UInt8]) -> Bool {
        guard word.count == literal.count else { return false }
        var index = 0
        while index < literal.count {
            if bytes[word.start + index] != literal[index] { return false }
            index += 1
        }
        return true
    }

    /// The words at `positions` one after another, as a `String`: words that follow each other are
    /// one range of `bytes`, copied once.
    func string(_ positions: [Int]) -> String {
        guard let first = positions.first, let last = positions.last else { return "" }
        if last - first == positions.count - 1 {
            return String(decoding: bytes[words[first].start..<words[last].end], as: UTF8.self)
        }
        var joined: [UInt8] = []
        joined.reserveCapacity(bytes.count)
        for position in positions { joined.append(contentsOf: bytes[words[position].start..<words[position].end]) }
        return String(decoding: joined, as: UTF8.self)
    }

    /// The word's ASCII digits as a number (nil when it has anything else, or over `limit` digits).
    func digits(_ word: Word, limit: Int) -> Int? {
        guard word.count > 0, word.count <= limit else { return nil }
        var value = 0
        for index in word.start..<word.end {
            let byte = bytes[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}

extension BookIdentity {
    /// `readTitle` by bytes; false (and `self` unchanged) when the text is not for `TitleBytes`.
    mutating func readTitleBytes(_ text: String, subtitle: String?) -> Bool {
        var fields = TitleFields()
        guard fields.readTitleBytes(text, subtitle: subtitle) else { return false }
        titleKey = TitleKey(fields)
        return true
    }
}

/// The buffers of reading titles by bytes, kept from one title to the next so that their memory is
/// allocated once a merge (`IdentityMemo`), not once a title.
struct TitleScratch {
    var folded = TitleBytes(capacity: 0)
    /// Word positions of the title key, and of the subtitle's.
    var kept: [Int] = []
    var subtitleWords: [Int] = []
}

extension TitleFields {
    /// `readTitle` by bytes; false (and `self` unchanged) when the text is not for `TitleBytes`.
    mutating func readTitleBytes(_ text: String, subtitle: String?) -> Bool {
        var scratch = TitleScratch()
        return readTitleBytes(text, subtitle: subtitle, scratch: &scratch)
    }

    /// `readTitleBytes` with buffers of earlier reads.
    mutating func readTitleBytes(_ text: String, subtitle: String?, scratch: inout TitleScratch) -> Bool {
        let source = text.utf8.span
        scratch.folded.reset(capacity: source.count + (subtitle?.utf8.count ?? 0) + 8)
        var mainEnd = 0
        var comma = false
        let (brackets, mayHaveRange) = BookIdentity.bracketsAndRange(source)
        if brackets {
            // Brackets out (`bracketsRemoved`): their text goes to `notes`, a closing one leaves a space.
            var notes: [UInt8] = []
            var sawText = false
            // A title that is all brackets keeps them as its text: left to the reading by words.
            guard let bare = BookIdentity.bracketsRemoved(source, notes: &notes, sawText: &sawText), sawText else { return false }
            let span = bare.span
            guard BookIdentity.readMainAndRest(span, into: &scratch.folded, comma: &comma, mainEnd: &mainEnd), scratch.folded.fold(subtitle) else { return false }
            let restEnd = scratch.folded.words.count
            guard scratch.folded.fold(notes.span, from: 0, to: notes.count) else { return false }
            readWords(&scratch, main: 0..<mainEnd, rest: mainEnd..<restEnd, notes: restEnd..<scratch.folded.words.count, comma: comma)
        } else {
            guard BookIdentity.readMainAndRest(source, into: &scratch.folded, comma: &comma, mainEnd: &mainEnd), scratch.folded.fold(subtitle) else { return false }
            readWords(&scratch, main: 0..<mainEnd, rest: mainEnd..<scratch.folded.words.count, notes: scratch.folded.words.count..<scratch.folded.words.count, comma: comma)
        }
        if !boxSet, mayHaveRange, BookIdentity.hasRange(source) { boxSet = true }
        if !boxSet, let subtitle {
            let span = subtitle.utf8.span
            if BookIdentity.mayHaveRange(span), BookIdentity.hasRange(span) { boxSet = true }
        }
        return true
    }

    /// The rest of `readTitleWords` over words already folded: articles, box sets, volume and series
    /// numbers, the title key and the subtitle's.
    private mutating func readWords(_ scratch: inout TitleScratch, main all: Range<Int>, rest: Range<Int>, notes: Range<Int>, comma: Bool) {
        let folded = scratch.folded
        let words = folded.words
        var main = all
        if main.count > 1, BookIdentity.articles.contains(words[main.lowerBound].code) { main = main.lowerBound + 1..<main.upperBound }
        // A catalogue's inverted article: `Lord of the Rings, The`.
        if main.count > 1, BookIdentity.articles.contains(words[main.upperBound - 1].code), comma { main = main.lowerBound..<main.upperBound - 1 }
        boxSet = BookIdentity.isBoxSet(main, of: folded) || BookIdentity.isBoxSet(rest, of: folded) || BookIdentity.isBoxSet(notes, of: folded)
        scratch.kept.removeAll(keepingCapacity: true)
        var position = main.lowerBound
        while position < main.upperBound {
            if let (number, kind, length) = BookIdentity.number(at: position, before: main.upperBound, of: folded) {
                if kind == .volume { volumes.append(number) } else { mainSeries.append(number) }
                position += length
                continue
            }
            scratch.kept.append(position)
            position += 1
        }
        // A number ending the main title (`마법사의 돌. 2`) is a volume too, and stays in the key.
        if scratch.kept.count > 1, let last = scratch.kept.last, let number = folded.digits(words[last], limit: 3) { volumes.append(number) }
        scratch.subtitleWords.removeAll(keepingCapacity: true)
        for (range, isNote) in [(rest, false), (notes, true)] where !range.isEmpty {
            var position = range.lowerBound
            while position < range.upperBound {
                if let (number, kind, length) = BookIdentity.number(at: position, before: range.upperBound, of: folded) {
                    if kind == .volume { volumes.append(number) } else { restSeries.append(number) }
                    position += length
                    continue
                }
                if !isNote { scratch.subtitleWords.append(position) }
                position += 1
            }
        }
        if scratch.subtitleWords.count > 1, let last = scratch.subtitleWords.last, let number = folded.digits(words[last], limit: 3) {
            volumes.append(number)
            scratch.subtitleWords.removeLast()
        }
        volumes = BookIdentity.sortedUnique(volumes)
        mainSeries = BookIdentity.sortedUnique(mainSeries)
        restSeries = BookIdentity.sortedUnique(restSeries)
        // A title that is nothing but a volume marker ("Volume 2") keeps its words.
        if scratch.kept.isEmpty { scratch.kept.append(contentsOf: main) }
        title = folded.string(scratch.kept)
        titleWordEnds = []
        titleWordEnds.reserveCapacity(scratch.kept.count)
        var end = 0
        for position in scratch.kept {
            end += words[position].count
            titleWordEnds.append(end)
        }
        subtitle = folded.string(scratch.subtitleWords)
        // Generic titles are short: longer ones are looked up in no set.
        let length = title.utf8.count
        let maybe = length <= BookIdentity.longestGenericTitle ? BookIdentity.mayBeGeneric(title) : 0
        generic = (length <= 12 && title.unicodeScalars.count <= 3)
            || (maybe & 1 != 0 && BookIdentity.genericTitles.contains(title))
            || (scratch.kept.count == 1 && length <= 12 && maybe & 2 != 0 && BookIdentity.genericWords.contains(title))
    }

}

extension BookIdentity {
    /// Folds the main title and then its subtitle (`split`: at the first `:`, `;` or `：` after some
    /// text, or a ` - `, ` ~ ` or en or em dash between spaces); `mainEnd` is the main title's word count.
    fileprivate static func readMainAndRest(_ text: Span<UInt8>, into folded: inout TitleBytes, comma: inout Bool, mainEnd: inout Int) -> Bool {
        var mainTo = text.count, restFrom = text.count
        var previous: UInt8 = 0x20
        var seenText = false
        var index = 0
        split: while index < text.count {
            let byte = text[index]
            // Lower-case letters, most of a title's bytes, before the switch.
            if byte &- 0x61 < 26 {
                seenText = true
                previous = byte
                index += 1
                continue
            }
            if byte < 0x80 {
                let next = index + 1
                switch byte {
                case 0x3A, 0x3B:
                    if seenText { mainTo = index; restFrom = next; break split }
                case 0x2D, 0x7E:
                    if seenText, previous == 0x20, next < text.count, text[next] == 0x20 { mainTo = index; restFrom = next; break split }
                case 0x2C:
                    comma = true
                default:
                    if isAlphanumeric(byte) { seenText = true }
                }
                previous = byte
                index = next
                continue
            }
            if byte < 0xE0 {
                guard let folded = TitleBytes.latin(text, at: index, end: text.count) else { return false }
                if folded != 0 { seenText = true }
                previous = 0x80
                index += 2
                continue
            }
            let after = index + 3
            switch TitleBytes.scalar(text, at: index, end: text.count) {
            case .colon:
                if seenText { mainTo = index; restFrom = after; break split }
            case .dash:
                if seenText, previous == 0x20, after < text.count, text[after] == 0x20 { mainTo = index; restFrom = after; break split }
            case .letters:
                seenText = true
            case nil:
                return false
            default:
                break
            }
            previous = 0x80
            index = after
        }
        guard folded.fold(text, from: 0, to: mainTo) else { return false }
        mainEnd = folded.words.count
        return folded.fold(text, from: restFrom, to: text.count)
    }

    /// Whether the text has a bracket `bracketsRemoved` takes out (or a lead byte one may begin with),
    /// and `mayHaveRange` of it: both in one pass over the title, as every title asks both.
    fileprivate static func bracketsAndRange(_ text: Span<UInt8>) -> (brackets: Bool, mayHaveRange: Bool) {
        var brackets = false, digit = false, dash = false
        for index in 0..<text.count {
            let byte = text[index]
            // Lower-case letters, most of a title's bytes, are none of these.
            if byte &- 0x61 < 26 { continue }
            if byte >= 0x30, byte <= 0x39 {
                digit = true
            } else if byte == 0x28 || byte == 0x5B || byte == 0xEF {
                brackets = true
            } else if byte == 0x2D || byte == 0x7E || byte == 0xE2 {
                dash = true
            } else if byte == 0xE3 {
                brackets = true
                dash = true
            } else {
                continue
            }
            if brackets, digit, dash { break }
        }
        return (brackets, digit && dash)
    }

    /// `bracketsRemoved` over bytes: the text outside brackets (a closing one leaves a space), their
    /// text in `notes`; nil for a scalar `TitleBytes` does not know.
    fileprivate static func bracketsRemoved(_ source: Span<UInt8>, notes: inout [UInt8], sawText: inout Bool) -> [UInt8]? {
        var bare: [UInt8] = []
        bare.reserveCapacity(source.count)
        notes.reserveCapacity(source.count)
        var depth = 0
        var index = 0
        while index < source.count {
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
            if byte < 0xE0 {
                guard let folded = TitleBytes.latin(source, at: index, end: source.count) else { return nil }
                let second = source[index + 1]
                index += 2
                if depth > 0 {
                    notes.append(byte); notes.append(second)
                } else {
                    bare.append(byte); bare.append(second)
                    if folded != 0 { sawText = true }
                }
                continue
            }
            guard let scalar = TitleBytes.scalar(source, at: index, end: source.count) else { return nil }
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
    fileprivate static func mayHaveRange(_ text: Span<UInt8>) -> Bool {
        var digit = false, dash = false
        for index in 0..<text.count {
            let byte = text[index]
            if byte >= 0x30, byte <= 0x39 { digit = true } else if byte == 0x2D || byte == 0x7E || byte == 0xE2 || byte == 0xE3 { dash = true }
            if digit, dash { return true }
        }
        return false
    }

    /// `hasRange` over UTF-8: `1-3`, `1–7`, `1~3권`, `1〜3`, numbers under 100.
    static func hasRange(_ text: Span<UInt8>) -> Bool {
        var current: Int?
        var lower: Int?
        var afterDash = false
        func closes(_ upper: Int) -> Bool {
            guard afterDash, let lower else { return false }
            return lower < 100 && upper < 100 && lower < upper
        }
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte >= 0x30, byte <= 0x39 {
                current = min((current ?? 0) * 10 + Int(byte - 0x30), 999)
                index += 1
                continue
            }
            // One scalar: its bytes (its lead byte says how many).
            var length = 1
            if byte >= 0xF0 { length = 4 } else if byte >= 0xE0 { length = 3 } else if byte >= 0xC0 { length = 2 }
            var dash = byte == 0x2D || byte == 0x7E
            if length == 3, index + 2 < text.count {
                let second = text[index + 1], third = text[index + 2]
                dash = (byte == 0xE2 && second == 0x80 && third == 0x93) || (byte == 0xE3 && second == 0x80 && third == 0x9C)
            }
            index = min(index + length, text.count)
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

    /// `number(in:at:)` over the folded words before `end`.
    fileprivate static func number(at index: Int, before end: Int, of folded: TitleBytes) -> (Int, NumberKind, Int)? {
        let word = folded.words[index]
        // A glued number ends in a digit (`vol2`) or is not ASCII (`2권`, `상`).
        let last = folded.bytes[word.end - 1]
        if last >= 0x80 || (last >= 0x30 && last <= 0x39), let glued = gluedNumber(word, of: folded) { return glued }
        guard word.code != 0 else { return nil }
        let kind: NumberKind
        if volumeMarkers.contains(word.code) {
            kind = .volume
        } else if seriesMarkers.contains(word.code) {
            kind = .series
        } else {
            return nil
        }
        guard index + 1 < end, let number = value(of: folded.words[index + 1], of: folded) else { return nil }
        return (number, kind, 2)
    }

    /// `gluedNumber` over a folded word.
    private static func gluedNumber(_ word: TitleBytes.Word, of folded: TitleBytes) -> (Int, NumberKind, Int)? {
        let bytes = folded.bytes[word.start..<word.end]
        guard !bytes.isEmpty else { return nil }
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return gluedASCII(bytes)
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

    /// `value(of:)` over a folded word: digits, an English number word, a Roman numeral under 40.
    private static func value(of word: TitleBytes.Word, of folded: TitleBytes) -> Int? {
        let bytes = folded.bytes[word.start..<word.end]
        if bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return folded.digits(word, limit: 6) }
        if word.code != 0, let number = numberCodeValues[word.code] { return number }
        if word.code == 0, folded.word(word, is: seventeen) { return 17 }
        guard bytes.count <= 7 else { return nil }
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

    /// `isBoxSet` over the folded words in `range`.
    fileprivate static func isBoxSet(_ range: Range<Int>, of folded: TitleBytes) -> Bool {
        var previous: UInt64 = 0
        for index in range {
            let word = folded.words[index]
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
               code(bytes: folded.bytes[word.start..<word.start + 3]) == completeInCode,
               code(bytes: folded.bytes[word.end - 3..<word.end]) == volumeSuffixCode {
                return true
            }
            previous = word.code
        }
        return false
    }

    /// `longBoxWords` as literals, for comparing bytes.
    private static let longBoxWordList: [[UInt8]] = ["collection", "collections", "tetralogy", "anthology", "시리즈세트"].map { Array($0.utf8) }
    private static let seventeen = Array("seventeen".utf8)
    private static let numberCodeValues: [UInt64: Int] = Dictionary(
        numberWords.compactMap { word, value in word.utf8.count <= 8 ? (code(word), value) : nil }, uniquingKeysWith: { first, _ in first })
    private static let ordinalPrefixes = codes(["제", "第"])
    private static let cjkVolumeSuffixCodes = codes(cjkVolumeSuffixes.map { String($0) })
    private static let completeInCode = code("전"), volumeSuffixCode = code("권")
}
