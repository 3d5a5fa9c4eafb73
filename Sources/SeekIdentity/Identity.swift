import Foundation
import SeekCore

/// What the merger knows of one book for telling whether two records are the same one: its typed
/// identifiers, normalised once, and its guarded title key (issue 48).
///
/// The title key is the title's main part (before ":", " - ", "(" or "["), folded (case, diacritics,
/// full-width forms; Hangul and CJK as they are), punctuation dropped, "&" read as "and", a leading
/// article dropped, and volume markers with their numbers taken out into `volumes`. Creators are
/// compared by family name (the part before a comma, else the last word; a Korean or Chinese name
/// whole) and, when both give one, the first initial of the given names.
struct BookIdentity {
    /// Typed identifiers that join rows by themselves (ISBNs left out for a part).
    var keys: [IdentityKey] = []
    /// Whether the record had any ISBN-13 (a part's container ISBNs do not count).
    var hasISBN = false
    /// The title's key, numbers and flags, behind one reference shared by every record of a merge
    /// with the very same title text (`IdentityMemo`): a copy of an identity retains it once.
    var titleKey = TitleKey.none
    var creators: [CreatorKey] = []
    var year: Int?
    /// The language the source gave (`identifiers.other["language"]`), lowercased; nil when unknown.
    var language: String?
    /// A chapter, entry or section: never identified by its container's ISBN, never joined by title.
    var isPart = false

    // The title's fields (`TitleFields` says what each is), read through the shared `titleKey`.
    var title: String { titleKey.fields.title }
    var volumes: [Int] { titleKey.fields.volumes }
    var mainSeries: [Int] { titleKey.fields.mainSeries }
    var restSeries: [Int] { titleKey.fields.restSeries }
    var subtitle: String { titleKey.fields.subtitle }
    var titleWordEnds: [Int] { titleKey.fields.titleWordEnds }
    var boxSet: Bool { titleKey.fields.boxSet }
    var generic: Bool { titleKey.fields.generic }
    var displayTitle: String { titleKey.fields.displayTitle }

    init() {}

    /// What `scanIdentifiers` says of a record besides its keys.
    struct Scan {
        var isPart = false
        var hasISBN = false
        /// The language the source gave, as two letters; nil when unknown.
        var language: String?
    }

    init(_ item: Item, keys withKeys: Bool = true) {
        var keys: [IdentityKey] = []
        let scan = Self.scanIdentifiers(item) { key in if withKeys { keys.append(key) } }
        var memo = IdentityMemo()
        self.init(item, scan: scan, rough: 0, memo: &memo)
        self.keys = keys
    }

    /// The identity of `item` whose identifiers `scanIdentifiers` read already (without its keys), its
    /// title and creators taken from `memo` when another record of the merge had the very same text
    /// (the sources of one book often give it the very same title and names).
    init(_ item: Item, scan: Scan, rough: UInt64, memo: inout IdentityMemo) {
        guard item.kind == .book else {
            self.init()
            return
        }
        self.init(title: item.title, subtitle: item.subtitle, creators: item.creators, year: item.year, scan: scan, rough: rough, memo: &memo)
    }

    /// The identity of a book of these fields (`init(_:scan:rough:memo:)`): the merge passes the fields
    /// it reads where they lie rather than a copy of the whole record.
    init(title: String, subtitle: String?, creators names: [String], year: Int?, scan: Scan, rough: UInt64, memo: inout IdentityMemo) {
        if let known = memo.title(rough: rough, title, subtitle: subtitle) {
            titleKey = known
        } else {
            var fields = TitleFields()
            fields.readTitle(title, subtitle: subtitle, scratch: &memo.scratch)
            titleKey = TitleKey(fields)
            memo.remember(titleKey, rough: rough, title, subtitle: subtitle)
        }
        isPart = scan.isPart
        hasISBN = scan.hasISBN
        language = scan.language
        self.year = year
        let namesHash = IdentityMemo.hash(names)
        if let known = memo.creators(hash: namesHash, names) {
            creators = known
        } else {
            creators = CreatorKey.keys(names, scratch: &memo.scratch.folded)
            memo.remember(creators, hash: namesHash, names)
        }
    }

    /// Calls `body` with each typed identifier of `item` (its ISBN-13s unless it is a part), and says
    /// whether it is a part, whether it has an ISBN-13 of its own and what language its source gave.
    /// Most schemes (`aladinItemId`, `giphy`) are passed over by their first letter.
    static func scanIdentifiers(_ item: Item, _ body: (IdentityKey) -> Void) -> Scan {
        guard item.kind == .book else { return Scan() }
        var language: String?
        var isPart = false
        for (name, value) in item.identifiers.other {
            guard let scheme = IdentifierScheme(name) else { continue }
            switch scheme {
            case .doi: if let doi = Self.doi(value) { body(.doi(doi)) }
            case .oclc:
                for number in Self.list(value) { if let oclc = Self.oclc(number) { body(.oclc(oclc)) } }
            case .lccn:
                for number in value.split(whereSeparator: { $0 == "," || $0 == ";" }) { if let lccn = Self.lccn(number) { body(.lccn(lccn)) } }
            case .openLibraryWork:
                if let id = Self.openLibrary(value, suffix: "W") { body(.openLibraryWork(id)) }
            case .openLibraryEdition:
                if let id = Self.openLibrary(value, suffix: "M") { body(.openLibraryEdition(id)) }
            case .googleVolume:
                // Google's volume ids are case-sensitive: kept as given.
                let id = value.trimmed()
                if !id.isEmpty, id.utf8.count <= 64 { body(.googleVolume(id)) }
            case .language: language = Self.language(value)
            case .type: isPart = Self.isPartType(value)
            }
        }
        guard !isPart else { return Scan(isPart: true, hasISBN: false, language: language) }
        for isbn in item.identifiers.isbn13 {
            if let number = isbnNumber(isbn) { body(.isbn(number)) }
        }
        return Scan(isPart: false, hasISBN: !item.identifiers.isbn13.isEmpty, language: language)
    }

    /// An ISBN-13's digits as a number (nil for anything else).
    private static func isbnNumber(_ isbn: String) -> UInt64? {
        var value: UInt64 = 0
        var count = 0
        for byte in isbn.utf8 {
            guard byte >= 0x30, byte <= 0x39, count < 13 else { return nil }
            value = value * 10 + UInt64(byte - 0x30)
            count += 1
        }
        return count == 13 ? value : nil
    }

    // MARK: Blocking

    /// A coarse hash of the title, equal for any two records whose title keys are equal (and for some
    /// that are not): the main title's words, folded, without a leading article, markers, numbers,
    /// Roman numerals or number words. Records are compared in detail only within such a block, so
    /// most records are never read further than this one pass over their title's bytes. 0: no title.
    static func roughTitle(_ title: String) -> UInt64 {
        if let rough = roughASCIIOrCJK(title) { return rough }
        let main = split(bracketsRemoved(title).text).main
        return roughHash(TitleWords.words(of: main), comma: main.utf8.contains(0x2C))
    }

    /// The rough hash of words already folded, as `roughTitle` forms it.
    static func roughHash(_ words: [String], comma: Bool) -> UInt64 {
        var hasher = RoughHasher()
        for word in words { hasher.add(word.utf8) }
        return hasher.finish(invertedArticle: comma)
    }

    /// `roughTitle` over the UTF-8 of ASCII text with `TitleBytes.latin` letters and marks, Hangul, kana
    /// and CJK ideographs; nil for other text.
    /// Each word is hashed as its bytes are read: no word is copied.
    static func roughASCIIOrCJK(_ title: String) -> UInt64? {
        let bytes = title.utf8.span
        var hasher = RoughHasher()
        var word = RoughHasher.Word()
        var depth = 0
        var sawText = false
        var comma = false
        var previousSpace = true
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            // Lower-case letters, most of a title's bytes, first: what the ASCII case below does with them.
            if byte &- 0x61 < 26 {
                index += 1
                if depth == 0 {
                    word.append(byte); sawText = true
                    previousSpace = false
                }
                continue
            }
            if byte < 0x80 {
                index += 1
                switch byte {
                case 0x28, 0x5B: depth += 1; hasher.add(&word); continue
                case 0x29, 0x5D: depth = max(0, depth - 1); hasher.add(&word); previousSpace = true; continue
                default: break
                }
                if depth > 0 { continue }
                switch byte {
                case 0x61...0x7A, 0x30...0x39:
                    word.append(byte); sawText = true
                case 0x41...0x5A:
                    word.append(byte + 32); sawText = true
                case 0x27:
                    // An elided article (`l'`, `d'`) is a word of its own; otherwise the apostrophe joins.
                    if word.isElidedArticle { hasher.add(&word) }
                case 0x26:
                    hasher.add(&word)
                    var and = RoughHasher.Word()
                    for letter in "and".utf8 { and.append(letter) }
                    hasher.add(&and)
                case 0x3A, 0x3B:
                    hasher.add(&word)
                    if sawText { return hasher.finish(invertedArticle: comma) }
                case 0x2D, 0x7E:
                    hasher.add(&word)
                    if sawText, previousSpace, index < bytes.count, bytes[index] == 0x20 { return hasher.finish(invertedArticle: comma) }
                case 0x2C:
                    comma = true
                    hasher.add(&word)
                default:
                    hasher.add(&word)
                }
                previousSpace = byte == 0x20
                continue
            }
            if byte < 0xE0 {
                // Latin letters with diacritics are their ASCII letter, combining marks nothing.
                guard let folded = TitleBytes.latin(bytes, at: index, end: bytes.count) else { return nil }
                index += 2
                if depth > 0 { continue }
                if folded != 0 {
                    word.append(folded)
                    sawText = true
                }
                previousSpace = false
                continue
            }
            // Three-byte sequences: Hangul syllables, kana and CJK ideographs are text; an en or em
            // dash, a right quotation mark, full-width brackets and 【】 are what ASCII's are.
            guard byte >= 0xE2, byte <= 0xEF, index + 2 < bytes.count else { return nil }
            let second = bytes[index + 1], third = bytes[index + 2]
            index += 3
            switch (byte, second, third) {
            case (0xE4...0xE9, _, _), (0xEA...0xED, _, _):
                if depth > 0 { continue }
                word.append(byte); word.append(second); word.append(third)
                sawText = true
            case (0xE2, 0x80, 0x93), (0xE2, 0x80, 0x94):
                hasher.add(&word)
                if depth == 0, sawText, previousSpace, index < bytes.count, bytes[index] == 0x20 {
                    return hasher.finish(invertedArticle: comma)
                }
            case (0xE2, 0x80, 0x99):
                if word.isElidedArticle { hasher.add(&word) }
            case (0xEF, 0xBC, 0x88), (0xE3, 0x80, 0x90):
                depth += 1
                hasher.add(&word)
            case (0xEF, 0xBC, 0x89), (0xE3, 0x80, 0x91):
                depth = max(0, depth - 1)
                hasher.add(&word)
            case (0xEF, 0xBC, 0x9A):
                hasher.add(&word)
                if depth == 0, sawText { return hasher.finish(invertedArticle: comma) }
            case (0xE3, 0x81...0x83, _):
                guard let kana = TitleBytes.scalar(bytes, at: index - 3, end: bytes.count) else { return nil }
                if depth > 0 { continue }
                if kana == .letters {
                    word.append(byte); word.append(second); word.append(third)
                    sawText = true
                } else {
                    hasher.add(&word)
                }
            default:
                return nil
            }
            previousSpace = false
        }
        hasher.add(&word)
        return hasher.finish(invertedArticle: comma)
    }

    // MARK: Title

    /// Reads the title key, numbers, subtitle and flags: by bytes (`TitleBytes`) when the text allows.
    mutating func readTitle(_ text: String, subtitle: String?) {
        var fields = TitleFields()
        fields.readTitle(text, subtitle: subtitle)
        titleKey = TitleKey(fields)
    }

    /// `readTitle` by words of `String`s, for any text.
    mutating func readTitleWords(_ text: String, subtitle: String?) {
        var fields = TitleFields()
        fields.readTitleWords(text, subtitle: subtitle)
        titleKey = TitleKey(fields)
    }

    /// The title as words, for explanations ("lord of the rings").
    static func displayTitle(_ item: Item) -> String {
        var words = TitleWords.words(of: split(bracketsRemoved(item.title).text).main)
        if words.count > 1, let first = words.first, articles.contains(code(first)) { words.removeFirst() }
        return words.joined(separator: " ")
    }

    /// The text without its bracketed groups (`해리포터(Harry Potter)`, `(양장본 HardCover)`,
    /// `(Harry Potter, #1)`: glosses and edition notes), and those groups' text.
    static func bracketsRemoved(_ title: String) -> (text: String, notes: String) {
        var hasBracket = false
        for byte in title.utf8 where byte == 0x28 || byte == 0x5B || byte == 0xEF || byte == 0xE3 {
            hasBracket = true
            break
        }
        guard hasBracket else { return (title, "") }
        var text = String.UnicodeScalarView()
        var notes = String.UnicodeScalarView()
        var depth = 0
        var sawText = false
        for scalar in title.unicodeScalars {
            switch scalar {
            case "(", "[", "\u{FF08}", "\u{3010}":
                depth += 1
                notes.append(" ")
            case ")", "]", "\u{FF09}", "\u{3011}":
                depth = max(0, depth - 1)
                if depth == 0 { text.append(" ") }
            default:
                if depth > 0 {
                    notes.append(scalar)
                } else {
                    text.append(scalar)
                    if !sawText, scalar.isTextual { sawText = true }
                }
            }
        }
        // A title that is all brackets keeps them as its text.
        return sawText ? (String(text), String(notes)) : (title, "")
    }

    /// The title's main part and its subtitle: split at the first ":" (or full-width "："), ";" (Project
    /// Gutenberg's `Moby Dick; Or, The Whale`), or at " - " (or an en or em dash, or "~", between
    /// spaces), after some text.
    static func split(_ title: String) -> (main: Substring, rest: Substring) {
        let utf8 = title.utf8
        var index = utf8.startIndex
        var previous: UInt8 = 0x20
        var sawText = false
        while index < utf8.endIndex {
            let byte = utf8[index]
            let next = utf8.index(after: index)
            if byte < 0x80 {
                switch byte {
                case 0x3A, 0x3B:  // : ;
                    if sawText { return (title[..<index], title[next...]) }
                case 0x2D, 0x7E:  // - ~
                    if sawText, previous == 0x20, next < utf8.endIndex, utf8[next] == 0x20 { return (title[..<index], title[next...]) }
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
                    sawText = true
                default:
                    break
                }
                previous = byte
                index = next
                continue
            }
            // A scalar beyond ASCII: full-width colon, en or em dash between spaces, or text.
            let scalarIndex = String.Index(index, within: title.unicodeScalars) ?? index
            let scalar = title.unicodeScalars[scalarIndex]
            let after = title.unicodeScalars.index(after: scalarIndex)
            switch scalar {
            case "\u{FF1A}":
                if sawText { return (title[..<scalarIndex], title[after...]) }
            case "\u{2013}", "\u{2014}":
                if sawText, previous == 0x20, after < title.endIndex, title.utf8[after] == 0x20 {
                    return (title[..<scalarIndex], title[after...])
                }
            default:
                if scalar.isTextual { sawText = true }
            }
            previous = 0x80
            index = after
        }
        return (Substring(title), "")
    }

    // MARK: Numbers and box sets

    static func sortedUnique(_ numbers: [Int]) -> [Int] {
        guard numbers.count > 1 else { return numbers }
        var sorted = numbers.sorted()
        var index = 1
        while index < sorted.count {
            if sorted[index] == sorted[index - 1] { sorted.remove(at: index) } else { index += 1 }
        }
        return sorted
    }

    enum NumberKind { case volume, series }

    /// A marker and its number at `index` (`vol 2`, `part ii`, `book one`, `# 3`, `2권`, `제2권`, `vol2`):
    /// the number, what kind it is and how many words it took.
    static func number(in words: [String], at index: Int) -> (Int, NumberKind, Int)? {
        let word = words[index]
        if let glued = gluedNumber(word) { return glued }
        // Every marker is short: a longer word is looked up in no set.
        guard word.utf8.count <= 8 else { return nil }
        let wordCode = code(word)
        let kind: NumberKind
        if volumeMarkers.contains(wordCode) {
            kind = .volume
        } else if seriesMarkers.contains(wordCode) {
            kind = .series
        } else {
            return nil
        }
        guard index + 1 < words.count, let number = value(of: words[index + 1]) else { return nil }
        return (number, kind, 2)
    }

    /// `2권`, `제2권`, `第2巻`, `vol2`, `상` (upper), `하` (lower): a number with its marker in one word.
    static func gluedNumber(_ word: String) -> (Int, NumberKind, Int)? {
        guard !word.utf8.isEmpty else { return nil }
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            // `vol2`, `v2`, `no2`, `pt2`, `bk2`: ASCII letters then digits.
            return gluedASCII(word.utf8)
        }
        if word.utf8.count == 3 {
            let wordCode = code(word)
            if upperCodes.contains(wordCode) { return (1001, .volume, 1) }
            if middleCodes.contains(wordCode) { return (1002, .volume, 1) }
            if lowerCodes.contains(wordCode) { return (1003, .volume, 1) }
        }
        var scalars = Substring(word).unicodeScalars[...]
        if let first = scalars.first, first == "제" || first == "第" { scalars = scalars.dropFirst() }
        guard let last = scalars.last, cjkVolumeSuffixes.contains(last) else { return nil }
        let digits = scalars.dropLast()
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0.value >= 0x30 && $0.value <= 0x39 }) else { return nil }
        return (digits.reduce(0) { $0 * 10 + Int($1.value - 0x30) }, .volume, 1)
    }

    /// `vol2`, `v2`, `no2`, `pt2`, `bk2`: a word of ASCII letters then up to four digits, as a volume or
    /// series number (both readings of a title use it).
    static func gluedASCII(_ bytes: some Collection<UInt8>) -> (Int, NumberKind, Int)? {
        guard let first = bytes.first, first == 0x76 || first == 0x6E || first == 0x70 || first == 0x62 else { return nil }
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
        case 0x76_6F6C, 0x76, 0x70_74: return (number, .volume, 1)  // vol, v, pt
        case 0x6E_6F, 0x62_6B: return (number, .series, 1)  // no, bk
        default: return nil
        }
    }

    /// A number as a word: digits, a Roman numeral (up to 39) or an English number word up to twenty.
    static func value(of word: String) -> Int? {
        if word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return word.utf8.count <= 6 ? Int(word) : nil }
        if let number = numberWords[word] { return number }
        return roman(word)
    }

    private static func roman(_ word: String) -> Int? {
        guard !word.isEmpty, word.count <= 7 else { return nil }
        var total = 0
        var previous = 0
        for character in word.reversed() {
            let digit: Int
            switch character {
            case "i": digit = 1
            case "v": digit = 5
            case "x": digit = 10
            default: return nil
            }
            if digit < previous { total -= digit } else { total += digit; previous = digit }
        }
        return total > 0 && total < 40 ? total : nil
    }

    static func isBoxSet(_ words: [String]) -> Bool {
        var previous: UInt64 = 0
        for word in words {
            let wordCode = code(word)
            if wordCode == 0 {
                if longBoxWords.contains(word) || (previous == completeCode && longBoxWords.contains(word)) { return true }
            } else if boxWords.contains(wordCode) {
                return true
            } else if wordCode == setCode || wordCode == setsCode, previous == boxCode || previous == boxedCode {
                return true
            } else if previous == completeCode, completedSets.contains(wordCode) {
                return true
            }
            // `전5권`: complete in five volumes.
            if word.utf8.count > 6, word.utf8.first == 0xEC, word.hasPrefix("전"), word.hasSuffix("권") { return true }
            previous = wordCode
        }
        return false
    }

    /// A word's UTF-8 packed into a number when it has at most 8 bytes (0 for a longer one): the word
    /// lists are looked up by number, not by hashing and comparing strings.
    static func code(_ word: some StringProtocol) -> UInt64 { code(bytes: word.utf8) }

    /// `code` of UTF-8 bytes.
    static func code(bytes: some Collection<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        var count = 0
        for byte in bytes {
            count += 1
            if count > 8 { return 0 }
            value = value << 8 | UInt64(byte)
        }
        return value
    }

    static func codes(_ words: [String]) -> WordCodes {
        WordCodes(words.map { code($0) }.filter { $0 != 0 })
    }

    /// Whether the text names a range of volumes: `1-3`, `1–7`, `1~3권` (numbers under 100, so that
    /// years such as `1962-2012` are no range).
    static func hasRange(_ text: String) -> Bool {
        var current: Int?
        var lower: Int?
        var afterDash = false
        func closes(_ upper: Int) -> Bool {
            guard afterDash, let lower else { return false }
            return lower < 100 && upper < 100 && lower < upper
        }
        // Only text with a digit can name a range.
        var hasDigit = false
        for byte in text.utf8 where byte >= 0x30 && byte <= 0x39 {
            hasDigit = true
            break
        }
        guard hasDigit else { return false }
        for scalar in text.unicodeScalars {
            if ("0"..."9").contains(scalar) {
                current = min((current ?? 0) * 10 + Int(scalar.value - 0x30), 999)
                continue
            }
            if let number = current {
                if closes(number) { return true }
                afterDash = false
                lower = number
                current = nil
            }
            if lower != nil, !afterDash, scalar == "-" || scalar == "\u{2013}" || scalar == "~" || scalar == "\u{301C}" {
                afterDash = true
            } else if scalar != " " {
                lower = nil
                afterDash = false
            }
        }
        return current.map(closes) ?? false
    }

    // MARK: Identifiers

    /// A language as two letters: `en-US` → `en`, ISO 639-2 `ger` → `de`; nil when empty.
    static func language(_ value: String) -> String? {
        let bytes = value.utf8.span
        if bytes.count == 2, bytes[0] &- 0x61 < 26, bytes[1] &- 0x61 < 26 { return value }
        let code = String(value.trimmed().lowercased().prefix { $0.isLetter })
        guard code.count >= 2 else { return nil }
        if code.count == 2 { return code }
        return languageCodes[code] ?? String(code.prefix(2))
    }

    private static let languageCodes: [String: String] = [
        "eng": "en", "kor": "ko", "fre": "fr", "fra": "fr", "ger": "de", "deu": "de", "spa": "es", "ita": "it", "jpn": "ja",
        "chi": "zh", "zho": "zh", "rus": "ru", "por": "pt", "dut": "nl", "nld": "nl", "swe": "sv", "pol": "pl", "ara": "ar",
        "heb": "he", "gre": "el", "ell": "el", "lat": "la", "tur": "tr", "hin": "hi", "cze": "cs", "ces": "cs", "dan": "da",
        "fin": "fi", "nor": "no", "hun": "hu", "english": "en", "korean": "ko", "french": "fr", "german": "de",
    ]

    /// Several values in one field (`"123, 456"`).
    private static func list(_ value: String) -> [Substring] {
        value.split { $0 == "," || $0 == ";" || $0 == " " }
    }

    /// A DOI lowercased, without a resolver or `doi:` prefix; nil unless it starts `10.`.
    static func doi(_ value: String) -> String? {
        // Printable ASCII without spaces (nearly every DOI) read by bytes: nothing to trim, `A`–`Z` lowered.
        let bytes = value.utf8.span
        var printable = true
        for index in 0..<bytes.count where bytes[index] <= 0x20 || bytes[index] >= 0x7F {
            printable = false
            break
        }
        if printable {
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count)
            for index in 0..<bytes.count {
                let byte = bytes[index]
                text.append(byte &- 0x41 < 26 ? byte + 32 : byte)
            }
            var start = 0
            for prefix in doiPrefixes where text.count - start >= prefix.count && text[start..<start + prefix.count].elementsEqual(prefix) {
                start += prefix.count
            }
            guard text.count - start > 4, text[start] == 0x31, text[start + 1] == 0x30, text[start + 2] == 0x2E else { return nil }
            return String(decoding: text[start...], as: UTF8.self)
        }
        var text = Substring(value.trimmed().lowercased())
        for prefix in ["https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"] where text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
        }
        text = Substring(text.trimmed())
        return text.hasPrefix("10.") && text.count > 4 ? String(text) : nil
    }

    /// `doi`'s resolver and `doi:` prefixes, in the order they are taken off.
    private static let doiPrefixes: [[UInt8]] = ["https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"]
        .map { Array($0.utf8) }

    /// An OCLC number as digits without leading zeros (`ocm01234567`, `(OCoLC)1234567` → `1234567`).
    static func oclc(_ value: Substring) -> String? {
        let digits = value.drop { !$0.isASCIIDigit }.prefix { $0.isASCIIDigit }.drop { $0 == "0" }
        return digits.isEmpty ? nil : String(digits)
    }

    /// An LCCN without spaces, hyphens and case (`n 78-890351` → `n78890351`).
    static func lccn(_ value: Substring) -> String? {
        let kept = value.lowercased().filter { $0.isASCIIDigit || ("a"..."z").contains($0) }
        return kept.contains(where: \.isASCIIDigit) ? kept : nil
    }

    /// An Open Library id (`/works/OL45804W`, `OL45804W`) uppercased; nil unless it ends in `suffix`.
    static func openLibrary(_ value: String, suffix: Character) -> String? {
        // Printable ASCII (nearly every id) read by bytes: the last part between slashes, uppercased.
        let bytes = value.utf8.span
        var start = 0, end = 0, partStart = 0, printable = true
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte >= 0x80 { printable = false; break }
            if byte == 0x2F {
                if index > partStart { start = partStart; end = index }
                partStart = index + 1
            }
        }
        if printable, let last = suffix.asciiValue {
            if bytes.count > partStart { start = partStart; end = bytes.count }
            guard end - start > 3 else { return nil }
            var id: [UInt8] = []
            id.reserveCapacity(end - start)
            for index in start..<end {
                let byte = bytes[index]
                id.append(byte &- 0x61 < 26 ? byte - 32 : byte)
            }
            guard id[0] == 0x4F, id[1] == 0x4C, id[id.count - 1] == last else { return nil }
            return String(decoding: id, as: UTF8.self)
        }
        let id = value.split(separator: "/").last.map { $0.uppercased() } ?? ""
        guard id.hasPrefix("OL"), id.last == suffix, id.count > 3 else { return nil }
        return id
    }

    // MARK: Word lists

    static let articles: WordCodes = codes([
        "the", "a", "an", "le", "la", "les", "l", "der", "die", "das", "el", "los", "las", "il", "lo", "gli", "un", "une",
        "ein", "eine", "de", "het", "een", "o", "os", "as", "uma", "um",
    ])
    static let volumeMarkers: WordCodes = codes([
        "vol", "vols", "volume", "volumes", "v", "part", "parts", "pt", "tome", "tomo", "band", "bd", "teil", "parte", "partie",
        "권", "부", "편", "巻", "卷",
    ])
    static let seriesMarkers: WordCodes = codes(["book", "books", "bk", "no", "nr", "number", "#", "livre", "libro", "episode", "ep", "issue"])
    static let upperCodes = codes(["상", "上"]), middleCodes = codes(["중", "中"]), lowerCodes = codes(["하", "下"])
    static let setCode = code("set"), setsCode = code("sets"), boxCode = code("box"), boxedCode = code("boxed")
    static let completeCode = code("complete")
    static let completedSets = codes(["series", "set", "works", "novels"])
    static let longBoxWords: Set<String> = ["collection", "collections", "tetralogy", "anthology", "시리즈세트"]
    static let cjkVolumeSuffixes: Set<Unicode.Scalar> = ["권", "부", "편", "호", "巻", "卷", "冊", "号"]
    static let boxWords: WordCodes = codes(["boxset", "boxed", "trilogy", "quartet", "omnibus", "세트", "전집", "박스", "합본"])
    static let numberCodes: WordCodes = codes(Array(numberWords.keys))
    static let numberWords: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
        "eighteen": 18, "nineteen": 19, "twenty": 20, "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
        "sixth": 6, "seventh": 7,
    ]
    /// Titles many books share: a key made of one of them needs creators and year to join.
    static let genericTitles: Set<String> = [
        "poems", "poetry", "selectedpoems", "collectedpoems", "newandselectedpoems", "works", "selectedworks", "collectedworks",
        "completeworks", "essays", "selectedessays", "collectedessays", "stories", "shortstories", "selectedstories",
        "collectedstories", "introduction", "anintroduction", "preface", "foreword", "afterword", "index", "contents", "letters",
        "selectedletters", "novels", "plays", "writings", "selectedwritings", "diary", "journal", "journals", "memoirs",
        "autobiography", "notes", "untitled", "unknown", "book", "bible", "holybible", "dictionary", "encyclopedia", "atlas",
        "handbook", "history", "proceedings", "abstracts", "chapter", "conclusion", "references", "bibliography", "appendix",
        "glossary", "epilogue", "prologue", "miscellany", "fables", "tales", "sonnets", "lyrics", "songs", "speeches",
        "sermons", "lectures", "documents", "reports", "report", "annualreport", "catalogue", "catalog", "manual", "guide",
        "시", "시집", "소설", "수필", "산문", "서문", "서론", "결론", "일기", "편지", "단편집", "작품집", "전집", "선집",
    ]
    /// Single words that are a generic title alone.
    static let genericWords: Set<String> = ["selected", "collected", "complete", "essentials", "basics", "fundamentals", "overview"]

    /// Whether a title key read by bytes may be in `genericTitles` (bit 1) or `genericWords` (bit 2),
    /// by a hash of its UTF-8: no false "no" (the sets' texts are NFC, as such a key is), so only a
    /// "maybe" needs the sets' `String` hashing.
    static func mayBeGeneric(_ title: String) -> UInt8 { genericHashes.value(of: genericHash(title)) }

    private static let genericHashes = CodeTable(
        genericTitles.map { (genericHash($0), UInt8(1)) } + genericWords.map { (genericHash($0), UInt8(2)) }, combining: true)

    /// FNV-1a of the UTF-8, never 0.
    private static func genericHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash == 0 ? 1 : hash
    }
    /// Crossref's (and others') types of a part of a book.
    static let partTypes: Set<String> = [
        "book-chapter", "book-section", "book-part", "reference-entry", "book-track", "component", "chapter", "section",
        "entry", "part",
    ]
    private static let partTypeBytes: [[UInt8]] = partTypes.map { Array($0.utf8) }

    /// `partTypes.contains(value.lowercased())`: ASCII compared byte by byte, folding `A`–`Z`, without
    /// a lowercased copy or a hash (nearly every record has a type); other text lowercased as before.
    static func isPartType(_ value: String) -> Bool {
        let bytes = value.utf8.span
        for index in 0..<bytes.count where bytes[index] >= 0x80 { return partTypes.contains(value.lowercased()) }
        for type in partTypeBytes where type.count == bytes.count {
            var index = 0
            while index < type.count {
                let byte = bytes[index]
                guard type[index] == (byte &- 0x41 < 26 ? byte + 32 : byte) else { break }
                index += 1
            }
            if index == type.count { return true }
        }
        return false
    }
}

/// A title's key, numbers and flags as `BookIdentity.readTitle` reads them.
struct TitleFields {
    /// The title key; empty when the title has no letters or digits.
    var title = ""
    /// Volume or part numbers that split one work (`Vol. 2`, `Part II`, `2권`, `上`), sorted.
    var volumes: [Int] = []
    /// Series positions (`Book 2`, `#2`) found in the main title: they must agree too.
    var mainSeries: [Int] = []
    /// Series positions found only after the main title (`(Harry Potter, #1)`): they must not disagree.
    var restSeries: [Int] = []
    /// The subtitle's key (from the title after ":" or " - ", and the subtitle field); empty when none.
    var subtitle = ""
    /// Where each word of the title key ends in its UTF-8, for explanations ("lord of the rings").
    var titleWordEnds: [Int] = []
    /// A box set, collection, trilogy or range of volumes (`1-3`).
    var boxSet = false
    /// A short or generic title ("Poems", "Introduction"): joins only with creators and year.
    var generic = false
}

/// `TitleFields` behind one reference: the records of a merge with the very same title share one.
final class TitleKey: Sendable {
    let fields: TitleFields

    init(_ fields: TitleFields) { self.fields = fields }

    /// The fields of no title.
    static let none = TitleKey(TitleFields())
}

extension TitleFields {
    /// Reads the title key, numbers, subtitle and flags: by bytes (`TitleBytes`) when the text allows.
    mutating func readTitle(_ text: String, subtitle: String?) {
        var scratch = TitleScratch()
        readTitle(text, subtitle: subtitle, scratch: &scratch)
    }

    /// `readTitle` with the buffers of earlier reads.
    mutating func readTitle(_ text: String, subtitle: String?, scratch: inout TitleScratch) {
        if readTitleBytes(text, subtitle: subtitle, scratch: &scratch) { return }
        readTitleWords(text, subtitle: subtitle)
    }

    /// `readTitle` by words of `String`s, for any text.
    mutating func readTitleWords(_ text: String, subtitle: String?) {
        let (bare, notes) = BookIdentity.bracketsRemoved(text)
        let (main, rest) = BookIdentity.split(bare)
        var words = TitleWords.words(of: main)
        var restWords = rest.isEmpty ? [] : TitleWords.words(of: rest)
        if let subtitle, !subtitle.isEmpty { restWords += TitleWords.words(of: subtitle) }
        let noteWords = notes.isEmpty ? [] : TitleWords.words(of: notes)
        if words.count > 1, let first = words.first, BookIdentity.articles.contains(BookIdentity.code(first)) { words.removeFirst() }
        // A catalogue's inverted article: `Lord of the Rings, The`.
        if words.count > 1, let last = words.last, BookIdentity.articles.contains(BookIdentity.code(last)), main.utf8.contains(0x2C) { words.removeLast() }
        boxSet = BookIdentity.isBoxSet(words) || BookIdentity.isBoxSet(restWords) || BookIdentity.isBoxSet(noteWords) || BookIdentity.hasRange(text)
            || (subtitle.map(BookIdentity.hasRange) ?? false)
        var kept: [String] = []
        kept.reserveCapacity(words.count)
        var index = 0
        while index < words.count {
            if let (number, kind, length) = BookIdentity.number(in: words, at: index) {
                if kind == .volume { volumes.append(number) } else { mainSeries.append(number) }
                index += length
                continue
            }
            kept.append(words[index])
            index += 1
        }
        // A number ending the main title or its subtitle (`마법사의 돌. 2`) is a volume too; in the
        // main title it stays in the key as well.
        if kept.count > 1, let last = kept.last, last.utf8.count <= 3, let number = Int(last) { volumes.append(number) }
        var subtitleWords: [String] = []
        func readRest(_ source: [String], isNote: Bool) {
            var index = 0
            while index < source.count {
                if let (number, kind, length) = BookIdentity.number(in: source, at: index) {
                    if kind == .volume { volumes.append(number) } else { restSeries.append(number) }
                    index += length
                    continue
                }
                if !isNote { subtitleWords.append(source[index]) }
                index += 1
            }
        }
        if !restWords.isEmpty { readRest(restWords, isNote: false) }
        if !noteWords.isEmpty { readRest(noteWords, isNote: true) }
        if subtitleWords.count > 1, let last = subtitleWords.last, last.utf8.count <= 3, let number = Int(last) {
            volumes.append(number)
            subtitleWords.removeLast()
        }
        volumes = BookIdentity.sortedUnique(volumes)
        mainSeries = BookIdentity.sortedUnique(mainSeries)
        restSeries = BookIdentity.sortedUnique(restSeries)
        // A title that is nothing but a volume marker ("Volume 2") keeps its words.
        if kept.isEmpty { kept = words }
        title = kept.joined()
        var end = 0
        titleWordEnds = kept.map { word in
            end += word.utf8.count
            return end
        }
        self.subtitle = subtitleWords.isEmpty ? "" : subtitleWords.joined()
        generic = title.unicodeScalars.count <= 3 || BookIdentity.genericTitles.contains(title)
            || (kept.count == 1 && BookIdentity.genericWords.contains(title))
    }

    /// The title key as words, for explanations ("lord of the rings").
    var displayTitle: String {
        guard titleWordEnds.count > 1 else { return title }
        var spaced: [UInt8] = []
        spaced.reserveCapacity(title.utf8.count + titleWordEnds.count)
        appendDisplayTitle(to: &spaced)
        return String(decoding: spaced, as: UTF8.self)
    }

    /// Appends the title key as words (`displayTitle`) to `text`.
    func appendDisplayTitle(to text: inout [UInt8]) {
        let start = text.count
        text.append(contentsOf: title.utf8)
        // Spaces put in from the last word's end back, each before a word's end short of the title's.
        let count = text.count - start
        for end in titleWordEnds.reversed() where end < count { text.insert(0x20, at: start + end) }
    }
}

/// A typed identifier under which two records are one book, normalised.
enum IdentityKey: Hashable {
    /// An ISBN-13 as its number: hashing a number is cheaper than a string (Open Library works list hundreds).
    case isbn(UInt64)
    case doi(String)
    case oclc(String)
    case lccn(String)
    case openLibraryWork(String)
    case openLibraryEdition(String)
    /// A Google Books volume id (`googleVolume`, Calibre's `google`).
    case googleVolume(String)

    /// What `joinedBy` says: `isbn 9780618640157`, `doi 10.1000/x`, `openlibrary work OL27448W`.
    var explanation: String {
        switch self {
        case .isbn(let value): "isbn " + String(value)
        case .doi(let value): "doi " + value
        case .oclc(let value): "oclc " + value
        case .lccn(let value): "lccn " + value
        case .openLibraryWork(let value): "openlibrary work " + value
        case .openLibraryEdition(let value): "openlibrary edition " + value
        case .googleVolume(let value): "google volume " + value
        }
    }

    /// Whether the key names one edition (not a work): the keys `group=edition` joins by.
    var namesEdition: Bool {
        if case .openLibraryWork = self { return false }
        return true
    }
}

/// A creator as compared: the family name's last word, the first initial of the given names when
/// known, and every word of the name (for names given family first without a comma, `Rowling J K`).
struct CreatorKey: Hashable {
    var family: String
    var initial: Unicode.Scalar?
    var words: [String]

    /// The creators a source's list names: an entry with "/" or ";" in it names several.
    static func keys(_ names: [String]) -> [CreatorKey] {
        var scratch = TitleBytes(capacity: 0)
        return keys(names, scratch: &scratch)
    }

    /// `keys(_:)` with the buffer of earlier reads.
    static func keys(_ names: [String], scratch: inout TitleBytes) -> [CreatorKey] {
        var keys: [CreatorKey] = []
        for name in names.prefix(8) {
            if name.utf8.contains(where: { $0 == 0x2F || $0 == 0x3B }) {
                keys += name.split { $0 == "/" || $0 == ";" }.compactMap { CreatorKey(String($0)) }
            } else if let key = CreatorKey(name, scratch: &scratch) {
                keys.append(key)
            }
        }
        return keys
    }

    /// The key of one creator's name: by bytes (`TitleBytes`) when the text allows, else by words.
    init?(_ name: String) {
        var scratch = TitleBytes(capacity: 0)
        self.init(name, scratch: &scratch)
    }

    /// `init(_:)` with the buffer of earlier reads.
    init?(_ name: String, scratch: inout TitleBytes) {
        switch Self.readByBytes(name, scratch: &scratch) {
        case .some(.some(let key)): self = key
        case .some(.none): return nil
        case .none: self.init(words: name)
        }
    }

    /// The key of one creator's name read by words of `String`s, for any text.
    init?(words name: String) {
        var text = Substring(name)
        // Roles and dates in brackets: "한강 (지은이)", "Tolkien, J. R. R. (1892-1973)".
        if let open = text.utf8.firstIndex(where: { $0 == 0x28 || $0 == 0x5B }), open > text.startIndex {
            text = text[..<open]
        }
        var family: [String]
        var given: [String]
        let comma = text.utf8.firstIndex(of: 0x2C)
        let after = comma.map { TitleWords.words(of: text[text.utf8.index(after: $0)...]) } ?? []
        if let comma, !after.isEmpty, !Self.isSuffix(after) {
            family = TitleWords.words(of: text[..<comma])
            given = after
        } else {
            let words = TitleWords.words(of: comma.map { text[..<$0] } ?? text).filter { !Self.suffixes.contains($0) }
            if !text.utf8.allSatisfy({ $0 < 0x80 }), words.contains(where: TitleWords.isCJK) {
                // Korean, Chinese and Japanese names as they are: the whole name is the key.
                guard !words.isEmpty else { return nil }
                self.family = words.joined()
                self.initial = nil
                self.words = [self.family]
                return
            }
            family = words.suffix(1).map { $0 }
            given = Array(words.dropLast())
        }
        family.removeAll { Self.suffixes.contains($0) }
        given.removeAll { Self.suffixes.contains($0) }
        guard let last = family.last else { return nil }
        self.family = !text.utf8.allSatisfy({ $0 < 0x80 }) && family.contains(where: TitleWords.isCJK) ? family.joined() : last
        self.initial = given.first?.unicodeScalars.first
        self.words = given + family
    }

    /// `init(words:)` over UTF-8 bytes for names of ASCII, Hangul syllables and CJK ideographs: nil
    /// when the name is not for `TitleBytes`, else the key (itself nil for a name with no family name).
    static func readByBytes(_ name: String) -> CreatorKey?? {
        var scratch = TitleBytes(capacity: 0)
        return readByBytes(name, scratch: &scratch)
    }

    /// `readByBytes(_:)` into `folded`, a buffer of earlier reads; each word is made a `String` once.
    static func readByBytes(_ name: String, scratch folded: inout TitleBytes) -> CreatorKey?? {
        let text = name.utf8.span
        // Roles and dates in brackets ("한강 (지은이)", "Tolkien, J. R. R. (1892-1973)") are cut at the
        // first bracket, unless the name begins with it.
        var cut = text.count
        for index in 0..<text.count where text[index] == 0x28 || text[index] == 0x5B {
            if index > 0 { cut = index }
            break
        }
        var comma = -1
        var ascii = true
        for index in 0..<cut {
            let byte = text[index]
            if byte == 0x2C, comma < 0 { comma = index }
            if byte >= 0x80 { ascii = false }
        }
        folded.reset(capacity: cut + 8)
        // Given names, then family names: word positions in `folded`, suffixes (`Jr.`) left out.
        var given = 0..<0
        var family: Range<Int>
        if comma >= 0 {
            guard folded.fold(text, from: comma + 1, to: cut) else { return nil }
            let after = 0..<folded.words.count
            if !after.isEmpty, !after.allSatisfy({ suffixCodes.contains(folded.words[$0].code) }) {
                guard folded.fold(text, from: 0, to: comma) else { return nil }
                family = after.upperBound..<folded.words.count
                given = after
            } else {
                folded.reset(capacity: cut + 8)
                guard folded.fold(text, from: 0, to: comma) else { return nil }
                family = 0..<folded.words.count
            }
        } else {
            guard folded.fold(text, from: 0, to: cut) else { return nil }
            family = 0..<folded.words.count
        }
        let words = folded.words
        func isSuffix(_ position: Int) -> Bool { suffixCodes.contains(words[position].code) }
        func isCJK(_ position: Int) -> Bool { folded.bytes[words[position].start..<words[position].end].contains { $0 >= 0x80 } }
        func string(_ position: Int) -> String { String(decoding: folded.bytes[words[position].start..<words[position].end], as: UTF8.self) }
        var familyWords = family.filter { !isSuffix($0) }
        var givenCount = 0
        if given.isEmpty {
            // No comma (or only suffixes after it): the last word is the family name, or a Korean,
            // Chinese or Japanese name is the key whole.
            if !ascii, familyWords.contains(where: isCJK) {
                let whole = folded.string(familyWords)
                return .some(CreatorKey(family: whole, initial: nil))
            }
            givenCount = max(0, familyWords.count - 1)
        } else {
            let givenWords = given.filter { !isSuffix($0) }
            givenCount = givenWords.count
            familyWords = givenWords + familyWords
        }
        // `familyWords` now holds every word: the given names' first, then the family's.
        guard familyWords.count > givenCount, let last = familyWords.last else { return .some(nil) }
        var all: [String] = []
        all.reserveCapacity(familyWords.count)
        for position in familyWords { all.append(string(position)) }
        let familyPart = familyWords[givenCount...]
        let key = !ascii && familyPart.contains(where: isCJK) ? folded.string(Array(familyPart)) : string(last)
        return .some(CreatorKey(family: key, initial: givenCount > 0 ? all[0].unicodeScalars.first : nil, words: all))
    }

    private static let suffixCodes = BookIdentity.codes(Array(suffixes))

    init(family: String, initial: Unicode.Scalar?) {
        self.init(family: family, initial: initial, words: [family])
    }

    init(family: String, initial: Unicode.Scalar?, words: [String]) {
        self.family = family
        self.initial = initial
        self.words = words
    }

    /// Same family name and the same first initial when both give one; or each name's family name
    /// among the other's words (`Rowling J K` and `J. K. Rowling`, not `Henry James` and `James Joyce`).
    func agrees(with other: CreatorKey) -> Bool {
        if family == other.family {
            guard let mine = initial, let theirs = other.initial else { return true }
            return mine == theirs
        }
        return words.count > 1 && other.words.count > 1 && words.contains(other.family) && other.words.contains(family)
    }

    private static let suffixes: Set<String> = ["jr", "sr", "ii", "iii", "iv", "phd", "md", "dr", "prof", "sir", "ed", "eds", "editor", "trans"]

    private static func isSuffix(_ words: [String]) -> Bool {
        !words.isEmpty && words.allSatisfy { suffixes.contains($0) }
    }
}

/// Text as folded words: case, diacritics and full-width forms folded, letters and digits kept
/// (Hangul and CJK as they are), everything else a break; "&" is the word "and" and "#" a word of
/// its own. ASCII text, and text of ASCII, Hangul syllables and CJK ideographs, need no Foundation.
enum TitleWords {
    static func words(of text: some StringProtocol) -> [String] {
        if let words = byteWords(of: text) { return words }
        var words: [String] = []
        var word = String.UnicodeScalarView()
        func flush() {
            if !word.isEmpty {
                words.append(String(word))
                word = String.UnicodeScalarView()
            }
        }
        func add(_ scalar: Unicode.Scalar) {
            switch scalar.value {
            case 0x61...0x7A, 0x30...0x39, 0xAC00...0xD7A3, 0x4E00...0x9FFF:
                word.append(scalar)
            case 0x26:  // &
                flush()
                words.append("and")
            case 0x23:  // #
                flush()
                words.append("#")
            case 0x27, 0x2019:
                // An apostrophe joins ("philosopher's" → "philosophers"), but for an elided article
                // ("l'étranger" → "l" "etranger").
                if word.count == 1, let only = word.first, only == "l" || only == "d" { flush() }
            case 0...0x7F:
                flush()
            default:
                if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                    word.append(scalar)
                } else {
                    flush()
                }
            }
        }
        if let fast = fastFold(text) {
            for scalar in fast { add(scalar) }
        } else {
            let folded = String(text).folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
            for scalar in folded.unicodeScalars { add(scalar) }
        }
        flush()
        return words
    }

    /// `words(of:)` over UTF-8 alone, for text of ASCII and three-byte Hangul and CJK (`U+4000`–`U+DFFF`,
    /// which folding leaves as they are), with a right quotation mark as an apostrophe and an en or em
    /// dash as a break; nil for any other text.
    private static func byteWords(of text: some StringProtocol) -> [String]? {
        var words: [String] = []
        var word: [UInt8] = []
        word.reserveCapacity(24)
        func flush() {
            if !word.isEmpty {
                words.append(String(decoding: word, as: UTF8.self))
                word.removeAll(keepingCapacity: true)
            }
        }
        var pending = 0
        var lead: UInt8 = 0
        var second: UInt8 = 0
        for byte in text.utf8 {
            if pending > 0 {
                pending -= 1
                if pending == 1 {
                    second = byte
                    continue
                }
                switch lead {
                case 0xE4...0xED:
                    word.append(lead)
                    word.append(second)
                    word.append(byte)
                case 0xE2 where second == 0x80 && byte == 0x99:
                    if word.count == 1, let only = word.first, only == 0x6C || only == 0x64 { flush() }
                case 0xE2 where second == 0x80 && (byte == 0x93 || byte == 0x94):
                    flush()
                default:
                    return nil
                }
                continue
            }
            switch byte {
            case 0x61...0x7A, 0x30...0x39: word.append(byte)
            case 0x41...0x5A: word.append(byte + 32)
            case 0x26:
                flush()
                words.append("and")
            case 0x23:
                flush()
                words.append("#")
            case 0x27:
                if word.count == 1, let only = word.first, only == 0x6C || only == 0x64 { flush() }
            case 0...0x7F: flush()
            case 0xE2...0xED:
                lead = byte
                pending = 2
            default:
                return nil
            }
        }
        guard pending == 0 else { return nil }
        flush()
        return words
    }

    /// Text of ASCII, Hangul syllables and CJK ideographs lowercased as Foundation's folding would;
    /// nil for any other.
    private static func fastFold(_ text: some StringProtocol) -> String.UnicodeScalarView? {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x41...0x5A: scalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value + 32)))
            case 0...0x7F, 0xAC00...0xD7A3, 0x4E00...0x9FFF: scalars.append(scalar)
            default: return nil
            }
        }
        return scalars
    }

    /// Whether the word has Hangul, kana or CJK ideographs.
    static func isCJK(_ word: String) -> Bool {
        word.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x1100...0x11FF, 0x3040...0x30FF, 0x3130...0x318F, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xF900...0xFAFF: true
            default: false
            }
        }
    }
}

extension Unicode.Scalar {
    /// A letter or digit (ASCII without a property look-up).
    fileprivate var isTextual: Bool {
        if value < 0x80 { return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) }
        return properties.isAlphabetic || properties.numericType != nil
    }

    fileprivate var lowercasedASCII: Unicode.Scalar {
        (0x41...0x5A).contains(value) ? Unicode.Scalar(UInt8(truncatingIfNeeded: value + 32)) : self
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension BookIdentity {
    /// Whether the title keys of two records of different sources say they are one book under
    /// `grouping`: the guards of issue 48, each from a real failure. `nil`: they are not; else the
    /// creator's family name that agreed (empty when the join rests on title and year alone).
    func titleJoin(_ other: BookIdentity, grouping: ResultGrouping) -> String? {
        // The fields of one shared title (`TitleKey`) agree without being compared.
        let mine = titleKey, theirs = other.titleKey, sameTitle = mine === theirs
        guard !mine.fields.title.isEmpty, sameTitle || mine.fields.title == theirs.fields.title, !isPart, !other.isPart else { return nil }
        // Translations are different books unless an identifier says otherwise.
        if let language, let theirs = other.language, language != theirs { return nil }
        if !sameTitle {
            // Volume, part and series numbers agree; a box set never joins one volume.
            guard mine.fields.volumes == theirs.fields.volumes, mine.fields.mainSeries == theirs.fields.mainSeries,
                  mine.fields.boxSet == theirs.fields.boxSet
            else { return nil }
            if !mine.fields.restSeries.isEmpty, !theirs.fields.restSeries.isEmpty, mine.fields.restSeries != theirs.fields.restSeries { return nil }
            // Two subtitles that differ are two books ("Dune: House Atreides", "Dune: House Harkonnen"),
            // unless one begins the other.
            if !mine.fields.subtitle.isEmpty, !theirs.fields.subtitle.isEmpty, !mine.fields.subtitle.hasPrefix(theirs.fields.subtitle),
               !theirs.fields.subtitle.hasPrefix(mine.fields.subtitle) {
                return nil
            }
        }
        let yearGap: Int? = if let year, let theirs = other.year { abs(year - theirs) } else { nil }
        // A subtitle on one side only may name a part (Open Library's `The Lord of the Rings: The Two
        // Towers`, 1955) or be left out by the other source (`Quiet`): only records of one year join.
        if mine.fields.subtitle.isEmpty != theirs.fields.subtitle.isEmpty, let yearGap, yearGap > 0 { return nil }
        // group=edition: the title key joins only records of which one has no ISBN.
        if grouping == .edition, hasISBN, other.hasISBN { return nil }
        let family = agreeingFamily(other)
        let bothCreators = !creators.isEmpty && !other.creators.isEmpty
        // Creators that are given on both sides must agree.
        if bothCreators, family == nil { return nil }
        if generic {
            // "Poems", "Introduction": creators and year, both.
            guard let family, let yearGap, yearGap <= 1 else { return nil }
            return family
        }
        guard let family else {
            // No creators on one side: the same year, and a title long enough to be telling.
            guard let yearGap, yearGap == 0, title.unicodeScalars.count >= 8 else { return nil }
            return ""
        }
        switch grouping {
        case .work:
            // Editions of one work differ by decades (Open Library gives the first year, a shop
            // its printing's): with creators agreeing, the year does not split the work.
            return family
        case .edition:
            if let yearGap, yearGap > 1 { return nil }
            return family
        }
    }

    /// The family name of a creator both records credit (initials agreeing), else nil.
    func agreeingFamily(_ other: BookIdentity) -> String? {
        for mine in creators {
            for theirs in other.creators where mine.agrees(with: theirs) { return mine.family }
        }
        return nil
    }

    /// Whether an identifier join of these two records is refused: a box set against one volume,
    /// or volume numbers that disagree (Open Library lists a box set's ISBN under each volume's work).
    func refusesIdentifierJoin(_ other: BookIdentity) -> Bool {
        if boxSet != other.boxSet { return true }
        if !volumes.isEmpty, !other.volumes.isEmpty, volumes != other.volumes { return true }
        return false
    }

    /// Whether two records are different editions under `group=edition`: both have ISBN-13s and share none.
    func differentEdition(_ other: BookIdentity, isbns: [String], otherISBNs: [String]) -> Bool {
        guard hasISBN, other.hasISBN else { return false }
        return !isbns.contains(where: otherISBNs.contains)
    }
}

/// Hashes a title's words for `BookIdentity.roughTitle`: the words kept, each hashed alone (FNV-1a)
/// and the hashes combined in order, the first word left out when it is an article, and the last when
/// it is one after a comma (`Lord of the Rings, The`); words with digits, markers, Roman numerals and
/// number words never count. A title of nothing but such words hashes all its words.
struct RoughHasher {
    /// One word as its bytes are read: what `add` needs of it, without keeping the bytes.
    struct Word {
        fileprivate var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        /// The last 8 bytes packed: the word's `BookIdentity.code` while it has no more (`code`).
        private var packed: UInt64 = 0
        fileprivate var count = 0
        fileprivate var hasDigit = false

        /// The first 8 bytes packed (`BookIdentity.code`), 0 past 8.
        fileprivate var code: UInt64 { count <= 8 ? packed : 0 }

        mutating func append(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            count += 1
            packed = packed << 8 | UInt64(byte)
            if byte &- 0x30 < 10 { hasDigit = true }
        }

        /// Whether the word has 7 bytes at most, all `i`, `v` or `x` (a Roman numeral): read from the
        /// packed bytes once a word, not byte by byte.
        fileprivate var isShortRoman: Bool {
            guard count <= 7 else { return false }
            var rest = packed
            for _ in 0..<count {
                let byte = UInt8(truncatingIfNeeded: rest)
                guard byte == 0x69 || byte == 0x76 || byte == 0x78 else { return false }
                rest >>= 8
            }
            return true
        }

        /// `l` or `d` alone, before an apostrophe (`l'`, `d'`).
        var isElidedArticle: Bool { count == 1 && (code == 0x6C || code == 0x64) }
    }

    private var kept: UInt64 = 0xcbf2_9ce4_8422_2325
    private var beforeLast: UInt64 = 0xcbf2_9ce4_8422_2325
    private var all: UInt64 = 0xcbf2_9ce4_8422_2325
    private var words = 0
    private var keptWords = 0
    private var lastWasArticle = false

    /// Adds a word given as its bytes.
    mutating func add(_ bytes: some Collection<UInt8>) {
        var word = Word()
        for byte in bytes { word.append(byte) }
        add(&word)
    }

    /// Adds `word` (nothing when it is empty) and starts it again. Inlined: the empty check is most calls.
    @inline(__always)
    mutating func add(_ word: inout Word) {
        guard word.count > 0 else { return }
        addWord(&word)
    }

    private mutating func addWord(_ word: inout Word) {
        defer { word = Word() }
        words += 1
        all = Self.combine(all, word.hash)
        let kind = word.code != 0 ? Self.kinds.kind(of: word.code) : 0
        let article = kind & Self.article != 0
        if words == 1, article {
            lastWasArticle = true
            return
        }
        lastWasArticle = article
        if word.hasDigit { return }
        if word.code != 0, kind & Self.numbering != 0 || word.isShortRoman { return }
        beforeLast = kept
        kept = Self.combine(kept, word.hash)
        keptWords += 1
    }

    /// What a word is, as bits: an article, or a marker or number word (which a rough title leaves out).
    private static let article: UInt8 = 1, numbering: UInt8 = 2
    private static let kinds = WordKinds([
        (BookIdentity.articles, article), (BookIdentity.volumeMarkers, numbering), (BookIdentity.seriesMarkers, numbering),
        (BookIdentity.numberCodes, numbering),
    ])

    func finish(invertedArticle: Bool) -> UInt64 {
        guard words > 0 else { return 0 }
        let value = keptWords == 0 ? all : (invertedArticle && lastWasArticle && words > 1 ? beforeLast : kept)
        return value == 0 ? 1 : value
    }

    private static func combine(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        (hash ^ word) &* 0x100_0000_01b3 &+ 0x9e37_79b9
    }
}

/// Several sets of word codes in one table, each with its bits: one look-up tells which sets a word is in.
struct WordKinds: Sendable {
    private let table: CodeTable

    init(_ sets: [(WordCodes, UInt8)]) {
        var kinds: [UInt64: UInt8] = [:]
        for (codes, kind) in sets {
            for code in codes.table.codes where code != 0 { kinds[code, default: 0] |= kind }
        }
        table = CodeTable(kinds.sorted { $0.key < $1.key })
    }

    /// The bits of every set `code` is in; 0 when none.
    func kind(of code: UInt64) -> UInt8 { table.value(of: code) }
}

/// A small fixed set of word codes (`BookIdentity.code`): a look-up is a multiply and a probe or two,
/// no `Hasher`, for the many words that are in none of the lists.
struct WordCodes: Sendable {
    fileprivate let table: CodeTable

    init(_ codes: [UInt64]) {
        table = CodeTable(Array(Set(codes)).sorted().map { ($0, 1) })
    }

    func contains(_ code: UInt64) -> Bool { code != 0 && table.value(of: code) != 0 }
}

/// Nonzero codes with a nonzero byte each, in an open-addressing table a quarter full at most.
private struct CodeTable: Sendable {
    /// Each slot's code; 0: empty.
    let codes: [UInt64]
    private let values: [UInt8]
    private let shift: UInt64

    /// `combining`: a code given more than once keeps its values or'ed together (else the first).
    init(_ entries: [(UInt64, UInt8)], combining: Bool = false) {
        var size = 16
        while size < entries.count * 4 { size *= 2 }
        var codes = [UInt64](repeating: 0, count: size)
        var values = [UInt8](repeating: 0, count: size)
        let shift = UInt64(64 - size.trailingZeroBitCount)
        for (code, value) in entries where code != 0 {
            var slot = Int(truncatingIfNeeded: (code &* 0x9e37_79b9_7f4a_7c15) >> shift)
            while codes[slot] != 0, codes[slot] != code { slot = (slot + 1) & (size - 1) }
            if codes[slot] == code {
                if combining { values[slot] |= value }
                continue
            }
            codes[slot] = code
            values[slot] = value
        }
        self.codes = codes
        self.values = values
        self.shift = shift
    }

    /// The value kept with `code`; 0 when it is not kept (or is 0).
    func value(of code: UInt64) -> UInt8 {
        let mask = codes.count - 1
        var slot = Int(truncatingIfNeeded: (code &* 0x9e37_79b9_7f4a_7c15) >> shift)
        while true {
            let kept = codes[slot]
            if kept == code { return kept == 0 ? 0 : values[slot] }
            if kept == 0 { return 0 }
            slot = (slot + 1) & mask
        }
    }
}

/// What one merge has read of titles and creators, by their text: titles found by their rough hash
/// (`BookIdentity.roughTitle`, read for every record already), creators' lists by a hash of their
/// names' lengths and end bytes, both compared in full; no `String` hashing (which normalises Unicode).
struct IdentityMemo {
    private struct Title {
        let title: String
        let subtitle: String?
        let key: TitleKey
    }

    private struct Creators {
        let names: [String]
        let keys: [CreatorKey]
    }

    /// Buffers for reading titles by bytes, kept from one title to the next.
    var scratch = TitleScratch()
    private var titleSlots = MemoSlots()
    private var titles: [Title] = []
    private var creatorSlots = MemoSlots()
    private var creatorLists: [Creators] = []

    /// The title read for this very text, if any.
    func title(rough: UInt64, _ title: String, subtitle: String?) -> TitleKey? {
        titleSlots.find(rough) { titles[$0].title == title && titles[$0].subtitle == subtitle }.map { titles[$0].key }
    }

    mutating func remember(_ key: TitleKey, rough: UInt64, _ title: String, subtitle: String?) {
        titleSlots.insert(rough)
        titles.append(Title(title: title, subtitle: subtitle, key: key))
    }

    /// The creators read for these very names (`hash(_:)` of them), if any.
    func creators(hash: UInt64, _ names: [String]) -> [CreatorKey]? {
        creatorSlots.find(hash) { creatorLists[$0].names == names }.map { creatorLists[$0].keys }
    }

    mutating func remember(_ keys: [CreatorKey], hash: UInt64, _ names: [String]) {
        creatorSlots.insert(hash)
        creatorLists.append(Creators(names: names, keys: keys))
    }

    /// A list of names hashed by how many there are and each name's length and first and last bytes.
    static func hash(_ names: [String]) -> UInt64 {
        var value = UInt64(names.count)
        for name in names.prefix(4) {
            let utf8 = name.utf8
            value = value &* 0x100_0000_01b3 ^ UInt64(utf8.count) << 16 ^ UInt64(utf8.first ?? 0) << 8 ^ UInt64(utf8.last ?? 0)
        }
        return value
    }
}

/// An open-addressing table of entry numbers (0, 1, 2, … in the order they were added) by a 64-bit
/// hash the caller computes: a look-up is a multiply and a few probes, no `Hasher`. Grows at half full.
struct MemoSlots {
    /// Entry number + 1 in each slot; 0: empty.
    private var slots: [Int32] = []
    /// Each entry's hash.
    private var hashes: [UInt64] = []
    /// 64 minus the number of bits of a slot's index (Fibonacci hashing takes the product's top bits).
    private var shift: UInt64 = 64

    /// The first entry with `hash` that `matches`, if any.
    func find(_ hash: UInt64, matches: (Int) -> Bool) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: (hash &* 0x9e37_79b9_7f4a_7c15) >> shift)
        while true {
            let entry = Int(slots[slot]) - 1
            if entry < 0 { return nil }
            if hashes[entry] == hash, matches(entry) { return entry }
            slot = (slot + 1) & mask
        }
    }

    /// Adds the next entry, with `hash`.
    mutating func insert(_ hash: UInt64) {
        hashes.append(hash)
        if hashes.count * 2 > slots.count {
            // Twice as many slots (16 at first), every entry placed again.
            let size = max(16, slots.count * 2)
            slots = Array(repeating: 0, count: size)
            shift = UInt64(64 - size.trailingZeroBitCount)
            for entry in hashes.indices { place(hashes[entry], entry: entry) }
        } else {
            place(hash, entry: hashes.count - 1)
        }
    }

    private mutating func place(_ hash: UInt64, entry: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: (hash &* 0x9e37_79b9_7f4a_7c15) >> shift)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(truncatingIfNeeded: entry + 1)
    }
}

/// What an identifier's name in `Identifiers.other` says it is, read once: the names providers give
/// (`doi`, `openlibraryWork`, `crossrefType`) by one comparison of their bytes, any other spelling
/// (`OCLC number`, `ol_work`) by its letters and digits lowercased.
enum IdentifierScheme {
    case doi, oclc, lccn, openLibraryWork, openLibraryEdition, googleVolume, language, type

    init?(_ name: String) {
        switch name {
        case "type", "crossrefType": self = .type
        case "openlibraryWork": self = .openLibraryWork
        case "language": self = .language
        case "doi": self = .doi
        case "oclc": self = .oclc
        case "openlibraryEdition": self = .openLibraryEdition
        case "lccn": self = .lccn
        case "googleVolume": self = .googleVolume
        default:
            // Only names that begin as a known one can be one: most others are never folded.
            guard let first = name.utf8.first else { return nil }
            switch first | 0x20 {
            case UInt8(ascii: "d"), UInt8(ascii: "o"), UInt8(ascii: "l"), UInt8(ascii: "t"), UInt8(ascii: "c"), UInt8(ascii: "w"),
                 UInt8(ascii: "i"), UInt8(ascii: "g"):
                guard let scheme = Self.spellings[Self.folded(name)] else { return nil }
                self = scheme
            default:
                return nil
            }
        }
    }

    private static let spellings: [String: IdentifierScheme] = [
        "doi": .doi, "oclc": .oclc, "oclcnumber": .oclc, "oclcnumbers": .oclc, "oclcid": .oclc, "lccn": .lccn,
        "openlibrarywork": .openLibraryWork, "olwork": .openLibraryWork, "openlibraryworkid": .openLibraryWork,
        "openlibraryedition": .openLibraryEdition, "oledition": .openLibraryEdition, "openlibraryeditionid": .openLibraryEdition,
        "googlevolume": .googleVolume, "google": .googleVolume, "googlebooks": .googleVolume,
        "language": .language, "lang": .language,
        "type": .type, "crossreftype": .type, "worktype": .type, "itemtype": .type,
    ]

    /// A scheme name as compared: lowercased ASCII letters and digits (`openlibraryWork`, `OCLC number`).
    static func folded(_ name: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): bytes.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): bytes.append(byte + 32)
            default: continue
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
