import Foundation
import SeekKit
import SeekCore

/// Turns Aladin `item` objects (`Version=20131101`) into items and details.
enum AladinMapping {
    // MARK: - Items

    /// An item keyed by its ISBN-13 when it has one (a 977 magazine EAN included), else by Aladin's itemId.
    static func item(_ object: AladinItem) -> Item? {
        let itemID = object.itemId?.stringValue.flatMap(digits)
        let isbn13 = object.isbn13?.stringValue.flatMap(digits).flatMap { $0.count == 13 ? $0 : nil }
        guard let key = isbn13 ?? itemID else { return nil }

        var identifiers = Identifiers()
        for field in [object.isbn13, object.isbn] {
            if let isbn = text(field) { identifiers.add(isbnsIn: isbn) }
        }
        if let itemID { identifiers.other["aladinItemId"] = itemID }

        let (title, subtitle) = titles(
            text(object.title) ?? "", subTitle: object.subInfo?["subTitle"]?.stringValue.map(decoded))
        var item = Item(
            id: ItemID(provider: AladinProvider.id, value: key),
            kind: .book,
            title: title.isEmpty ? key : title,
            subtitle: subtitle,
            creators: unique(contributors(text(object.author) ?? "").map(\.name)),
            year: year(text(object.pubDate)),
            identifiers: identifiers,
            images: covers(text(object.cover)))
        item.address = text(object.link).flatMap(URLText.init(web:))
        return item
    }

    static func detail(_ object: AladinItem) -> ItemDetail? {
        guard let item = item(object) else { return nil }
        let subInfo = object.subInfo
        var attributes: [String: String] = [:]
        for (name, value) in object.attributeMembers {
            attributes[name] = text(value)
        }
        attributes["seriesName"] = object.seriesInfo?["seriesName"]?.stringValue.map(decoded).flatMap(nonEmpty)
        attributes["originalTitle"] = subInfo?["originalTitle"]?.stringValue.map(decoded).flatMap(nonEmpty)
        attributes["ratingScore"] = subInfo?["ratingInfo"]?["ratingScore"]?.stringValue
        attributes["ratingCount"] = subInfo?["ratingInfo"]?["ratingCount"]?.stringValue
        attributes["ebookItemId"] = subInfo?["ebookList"]?[0]?["itemId"]?.stringValue
        attributes["paperBookItemId"] = subInfo?["paperBookList"]?[0]?["itemId"]?.stringValue
        if let used = subInfo?["usedList"]?.objectValue {
            let prices = used.values.compactMap { offer -> Int? in
                guard let count = offer["itemCount"]?.intValue, count > 0 else { return nil }
                return offer["minPrice"]?.intValue.flatMap { $0 > 0 ? $0 : nil }
            }
            attributes["usedMinPrice"] = prices.min().map(String.init)
        }
        return ItemDetail(
            item: item,
            description: text(object.description),
            contributors: contributors(text(object.author) ?? ""),
            subjects: subjects(text(object.categoryName)),
            publishers: text(object.publisher).map { [$0] } ?? [],
            publishDate: text(object.pubDate),
            pageCount: subInfo?["itemPage"]?.intValue.flatMap { $0 > 0 ? $0 : nil },
            attributes: attributes)
    }

    // MARK: - Titles, people, dates, subjects

    /// Aladin appends the subtitle to the title after `" - "` (and repeats it in `subInfo.subTitle` on lookups).
    static func titles(_ full: String, subTitle: String?) -> (String, String?) {
        let subTitle = subTitle.flatMap(nonEmpty)
        if let subTitle, full.hasSuffix(" - " + subTitle) {
            return (String(full.dropLast(subTitle.count + 3)).trimmed(), subTitle)
        }
        // Looked for in the bytes first: searching by Character cost more than the rest of the item,
        // and " - " is in few titles (a match in Characters is a match in bytes).
        if full.containsBytes(of: " - "), let range = full.firstRange(of: " - ") {
            let title = full[..<range.lowerBound].trimmed()
            let rest = full[range.upperBound...].trimmed()
            if !title.isEmpty, !rest.isEmpty { return (title, rest) }
        }
        return (full, subTitle)
    }

    /// People from Aladin's author line, roles kept: `"홍길동 (지은이), 김철수 (옮긴이)"`.
    ///
    /// A role in parentheses after a space covers every name since the previous role
    /// (`"A, B (지은이)"`); parentheses inside a name (`"새벽달(남수진)"`) are part of it.
    static func contributors(_ line: String) -> [Contributor] {
        var result: [Contributor] = []
        var pending: [String] = []
        for segment in splitOutsideParentheses(line) {
            let part = segment.trimmed()
            guard !part.isEmpty else { continue }
            if let (name, role) = splitRole(part) {
                if !name.isEmpty { pending.append(name) }
                result += pending.map { Contributor(name: $0, role: role) }
                pending = []
            } else {
                pending.append(part)
            }
        }
        return result + pending.map { Contributor(name: $0, role: nil) }
    }

    /// Roles of the old `Version=20070901` shape: `"김영한 지음"`.
    static let trailingRoles: Set<String> = ["지음", "옮김", "엮음", "편역", "감수", "그림"]

    /// A part's name and role: `"홍길동 (지은이)"` or `"김영한 지음"`; nil when it names no role.
    static func splitRole(_ part: String) -> (String, String)? {
        // On UTF-8 bytes: `(`, `)` and the space are ASCII, which never occurs inside another
        // character's encoding, and the scalar view cost half of an item's contributors (issue 30).
        // A role after a space other than ASCII's is left to the scalar path.
        let utf8 = part.utf8
        // An ASCII byte is a scalar of its own: ranges between them are whole scalars.
        func text(_ range: Range<String.Index>) -> String { String(Substring(utf8[range])) }
        if let last = utf8.indices.last, utf8[last] == UInt8(ascii: ")"),
           let open = utf8[..<last].lastIndex(of: UInt8(ascii: "(")), open > utf8.startIndex
        {
            let before = utf8[utf8.index(before: open)]
            guard before < 0x80 else { return splitRoleByScalars(part) }
            if before == 0x20 || (0x09...0x0D).contains(before) {
                let role = text(utf8.index(after: open)..<last).trimmed()
                guard isRole(role) else { return nil }
                return (text(utf8.startIndex..<open).trimmed(), role)
            }
        }
        if let space = utf8.lastIndex(of: UInt8(ascii: " ")) {
            let word = text(utf8.index(after: space)..<utf8.endIndex)
            let name = text(utf8.startIndex..<space).trimmed()
            if trailingRoles.contains(word), !name.isEmpty { return (name, word) }
        }
        return nil
    }

    /// `splitRole` on Unicode scalars, for any text (a role after a space other than ASCII's).
    static func splitRoleByScalars(_ part: String) -> (String, String)? {
        let scalars = part.unicodeScalars
        if scalars.last == ")", let open = scalars.lastIndex(of: "("), open > scalars.startIndex,
           scalars[scalars.index(before: open)].properties.isWhitespace
        {
            let role = String(scalars[scalars.index(after: open)..<scalars.index(before: scalars.endIndex)]).trimmed()
            guard isRole(role) else { return nil }
            return (String(scalars[..<open]).trimmed(), role)
        }
        if let space = scalars.lastIndex(of: " ") {
            let word = String(scalars[scalars.index(after: space)...])
            let name = String(scalars[..<space]).trimmed()
            if trailingRoles.contains(word), !name.isEmpty { return (name, word) }
        }
        return nil
    }

    /// A role word: short Hangul (지은이, 옮긴이, 그림, 글, 감수, 엮은이, 글·그림, …).
    static func isRole(_ text: String) -> Bool {
        // Every scalar allowed here is a character of its own, so counting scalars counts characters.
        !text.isEmpty && text.unicodeScalars.count <= 10 && text.unicodeScalars.allSatisfy { scalar in
            (0xAC00...0xD7A3).contains(scalar.value) || roleSeparators.contains(scalar)
        }
    }

    static let roleSeparators: [Unicode.Scalar] = ["·", "/", " ", ","]

    static func splitOutsideParentheses(_ line: String) -> [Substring] {
        // On UTF-8 code units: the three delimiters are ASCII, which never occurs inside another
        // character's encoding, and walking Characters cost more than the rest of the item.
        var parts: [Substring] = []
        var depth = 0
        let utf8 = line.utf8
        var start = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            switch utf8[index] {
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"): depth = max(0, depth - 1)
            case UInt8(ascii: ",") where depth == 0:
                parts.append(line[start..<index])
                start = utf8.index(after: index)
            default: break
            }
            index = utf8.index(after: index)
        }
        parts.append(line[start...])
        return parts
    }

    /// The year of `yyyy-MM-dd`.
    static func year(_ date: String?) -> Int? {
        guard let date, date.count >= 4, let year = Int(date.prefix(4)), (1000...2999).contains(year) else { return nil }
        return year
    }

    /// `"국내도서>소설/시/희곡>영미소설"` without the mall root: `["소설/시/희곡", "영미소설"]`.
    static func subjects(_ category: String?) -> [String] {
        guard let category else { return [] }
        let parts = category.split(separator: ">").map { $0.trimmed() }.filter { !$0.isEmpty }
        return Array(parts.dropFirst())
    }

    // MARK: - Covers

    /// Aladin keeps each cover in size directories next to each other: `coversum` (85px wide, the API's
    /// `Cover=Mid`), `cover` (200px, `Cover=Big`), `cover150` (`MidBig`) and `cover500` (500px, not an API
    /// option but served for every cover). A URL in one of them gives small, medium and large; any other
    /// cover URL is kept as the large image only.
    static let coverSizes: [(ImageSize, directory: String, width: Int)] = [
        (.small, "coversum", 85), (.medium, "cover", 200), (.large, "cover500", 500),
    ]
    static let coverDirectories: Set<String> = ["coversum", "cover", "cover150", "cover200", "cover500"]

    static func covers(_ cover: String?) -> [ImageSize: ImageReference] {
        guard let cover, let address = URLText(web: cover) else { return [:] }
        // The path's last cover directory ("coversum", "cover500", …) names the size; the other
        // sizes swap it. Worked on the URL's UTF-8 bytes: `URLComponents`, and even Character
        // indexing, cost more than the whole item.
        let text = Array(address.text.utf8)
        guard let directory = coverDirectoryRange(in: text) else {
            return [.large: ImageReference(address: address, size: .large)]
        }
        var images: [ImageSize: ImageReference] = [:]
        for (size, name, width) in coverSizes {
            var sized = Array(text[..<directory.lowerBound])
            sized.append(contentsOf: name.utf8)
            sized.append(contentsOf: text[directory.upperBound...])
            if let sizedAddress = URLText(String(decoding: sized, as: UTF8.self)) {
                images[size] = ImageReference(address: sizedAddress, size: size, width: width)
            }
        }
        return images
    }

    /// Where the last cover directory of a URL's path is; nil when there is none or it is the last segment.
    static func coverDirectoryRange(in text: [UInt8]) -> Range<Int>? {
        guard let authority = firstOccurrence(of: Array("://".utf8), in: text),
              let pathStart = text[(authority + 3)...].firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let pathEnd = text[pathStart...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? text.count
        // Segments between slashes, from the last: the last one is the file name.
        var end = pathEnd
        var isLast = true
        var index = pathEnd
        while index > pathStart {
            index -= 1
            guard text[index] == UInt8(ascii: "/") else { continue }
            let segment = (index + 1)..<end
            if coverDirectoryBytes.contains(where: { $0.elementsEqual(text[segment]) }) { return isLast ? nil : segment }
            isLast = false
            end = index
        }
        return nil
    }

    static let coverDirectoryBytes: [[UInt8]] = coverDirectories.map { Array($0.utf8) }

    static func firstOccurrence(of pattern: [UInt8], in text: [UInt8]) -> Int? {
        guard text.count >= pattern.count else { return nil }
        return (0...(text.count - pattern.count)).first { start in
            pattern.indices.allSatisfy { text[start + $0] == pattern[$0] }
        }
    }

    // MARK: - Lenient values

    /// A member as trimmed plain text with HTML entities decoded; nil when absent or empty.
    static func text(_ value: JSONValue?) -> String? {
        value?.stringValue.map(decoded).flatMap(nonEmpty)
    }

    static func decoded(_ text: String) -> String { HTMLEntities.decode(text) }

    static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmed()
        return trimmed.isEmpty ? nil : trimmed
    }

    static func digits(_ text: String) -> String? {
        let trimmed = text.trimmed()
        return !trimmed.isEmpty && trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) ? trimmed : nil
    }

    static func unique(_ names: [String]) -> [String] {
        guard names.count > 1 else { return names }  // most books have one author line name
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }
}
