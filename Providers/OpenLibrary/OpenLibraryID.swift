import Foundation
import SeekCore
import SeekKit

/// An Open Library id (`OL27448W`, `OL7353617M`, `OL26320A`) and the kind of record it names.
struct OpenLibraryID: Hashable, Sendable {
    /// The record kinds, by the letter that ends their ids.
    enum Kind: Character, Sendable, CaseIterable {
        case work = "W"
        case edition = "M"
        case author = "A"

        /// The path folder the records live under (`/works/OL1W.json`).
        var folder: String {
            switch self {
            case .work: "works"
            case .edition: "books"
            case .author: "authors"
            }
        }

        /// The record's `type.key`.
        var recordType: String {
            switch self {
            case .work: "/type/work"
            case .edition: "/type/edition"
            case .author: "/type/author"
            }
        }
    }

    let value: String
    let kind: Kind

    /// Parses a bare id (`OL27448W`, as in 2013 search data) or a key path (`/works/OL27448W`),
    /// accepting only the given kinds; nil for anything else (`ia:…` keys, other paths, junk).
    init?(parsing text: String, kinds: [Kind]) {
        let trimmed = text.trimmed()
        let parsed = trimmed.utf8.allSatisfy({ $0 < 0x80 }) ? Self(asciiText: trimmed, kinds: kinds) : Self(anyText: trimmed, kinds: kinds)
        guard let parsed else { return nil }
        self = parsed
    }

    /// `init(parsing:kinds:)` of trimmed text, on Characters.
    init?(anyText text: String, kinds: [Kind]) {
        var candidate = Substring(text)
        if let slash = candidate.lastIndex(of: "/") {
            candidate = candidate[candidate.index(after: slash)...]
        }
        let upper = candidate.uppercased()
        guard upper.hasPrefix("OL"), let last = upper.last, let kind = Kind(rawValue: last), kinds.contains(kind)
        else { return nil }
        let digits = upper.dropFirst(2).dropLast()
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        self.value = upper
        self.kind = kind
    }

    /// `init(parsing:kinds:)` of trimmed ASCII text, on its bytes: every search result's key is parsed,
    /// and `Character` indexing and uppercasing cost 6.5 K instructions a key (issue 30). In ASCII text
    /// each byte is a Character, so the two read alike (tested on keys of every shape).
    init?(asciiText text: String, kinds: [Kind]) {
        var bytes = Array(text.utf8)
        if let slash = bytes.lastIndex(of: UInt8(ascii: "/")) { bytes.removeSubrange(...slash) }
        for index in bytes.indices where (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) {
            bytes[index] -= 0x20
        }
        guard bytes.count >= 4, bytes.count <= 18, bytes.starts(with: [UInt8(ascii: "O"), UInt8(ascii: "L")]),
              let last = bytes.last, let kind = Kind(rawValue: Character(Unicode.Scalar(last))), kinds.contains(kind),
              bytes.dropFirst(2).dropLast().allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        self.value = String(decoding: bytes, as: UTF8.self)
        self.kind = kind
    }

    /// The record's path, without the `.json` extension (`/works/OL27448W`).
    var path: String { "/\(kind.folder)/\(value)" }
}

extension Array where Element == String {
    /// Trimmed, non-empty, first occurrence kept (compared case-insensitively), order kept.
    func uniquedTrimmed() -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for raw in self {
            let text = raw.trimmed()
            guard !text.isEmpty, seen.insert(text.lowercased()).inserted else { continue }
            result.append(text)
        }
        return result
    }
}

extension String {
    /// The first four-digit year in a free-form date ("November 15, 1977" → 1977), if any.
    var firstYear: Int? {
        let characters = Array(self)
        var index = 0
        while index < characters.count {
            guard characters[index].isASCII, characters[index].isNumber else {
                index += 1
                continue
            }
            var end = index
            while end < characters.count, characters[end].isASCII, characters[end].isNumber { end += 1 }
            if end - index == 4, let year = Int(String(characters[index..<end])) { return year }
            index = end
        }
        return nil
    }
}
