import Foundation
import SeekKit
import SeekCore

/// Turns Aladin `item` objects (`Version=20131101`) into items and details.
enum AladinMapping {
    // MARK: - Items

    /// An item keyed by its ISBN-13 when it has one (a 977 magazine EAN included), else by Aladin's itemId.
    static func item(_ object: [String: JSONValue]) -> Item? {
        let itemID = object["itemId"]?.stringValue.flatMap(digits)
        let isbn13 = object["isbn13"]?.stringValue.flatMap(digits).flatMap { $0.count == 13 ? $0 : nil }
        guard let key = isbn13 ?? itemID else { return nil }

        var identifiers = Identifiers()
        for field in ["isbn13", "isbn"] {
            if let isbn = text(object, field) { identifiers.add(isbnsIn: isbn) }
        }
        if let itemID { identifiers.other["aladinItemId"] = itemID }

        let (title, subtitle) = titles(
            text(object, "title") ?? "", subTitle: object["subInfo"]?["subTitle"]?.stringValue.map(decoded))
        return Item(
            id: ItemID(provider: AladinProvider.id, value: key),
            kind: .book,
            title: title.isEmpty ? key : title,
            subtitle: subtitle,
            creators: unique(contributors(text(object, "author") ?? "").map(\.name)),
            year: year(text(object, "pubDate")),
            identifiers: identifiers,
            images: covers(text(object, "cover")),
            url: text(object, "link").flatMap(webURL))
    }

    static func detail(_ object: [String: JSONValue]) -> ItemDetail? {
        guard let item = item(object) else { return nil }
        let subInfo = object["subInfo"]
        var attributes: [String: String] = [:]
        for field in ["priceSales", "priceStandard", "salesPoint", "categoryName", "mallType", "stockStatus",
                      "customerReviewRank", "bestRank", "mileage"]
        {
            attributes[field] = text(object, field)
        }
        attributes["seriesName"] = object["seriesInfo"]?["seriesName"]?.stringValue.map(decoded).flatMap(nonEmpty)
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
            description: text(object, "description"),
            contributors: contributors(text(object, "author") ?? ""),
            subjects: subjects(text(object, "categoryName")),
            publishers: text(object, "publisher").map { [$0] } ?? [],
            publishDate: text(object, "pubDate"),
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
        if let range = full.firstRange(of: " - ") {
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

    static func splitRole(_ part: String) -> (String, String)? {
        if part.hasSuffix(")"), let open = part.lastIndex(of: "("), open > part.startIndex,
           part[part.index(before: open)].isWhitespace
        {
            let role = part[part.index(after: open)..<part.index(before: part.endIndex)].trimmed()
            guard isRole(role) else { return nil }
            return (part[..<open].trimmed(), role)
        }
        if let space = part.lastIndex(of: " ") {
            let word = String(part[part.index(after: space)...])
            let name = part[..<space].trimmed()
            if trailingRoles.contains(word), !name.isEmpty { return (name, word) }
        }
        return nil
    }

    /// A role word: short Hangul (지은이, 옮긴이, 그림, 글, 감수, 엮은이, 글·그림, …).
    static func isRole(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 10 && text.unicodeScalars.allSatisfy { scalar in
            (0xAC00...0xD7A3).contains(scalar.value) || "·/ ,".unicodeScalars.contains(scalar)
        }
    }

    static func splitOutsideParentheses(_ line: String) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = line.startIndex
        for index in line.indices {
            switch line[index] {
            case "(": depth += 1
            case ")": depth = max(0, depth - 1)
            case "," where depth == 0:
                parts.append(line[start..<index])
                start = line.index(after: index)
            default: break
            }
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
        guard let cover, let url = webURL(cover) else { return [:] }
        // The path's last cover directory ("coversum", "cover500", …) names the size; the other
        // sizes swap it. Worked on the URL's text: `URLComponents` costs more than the whole item.
        let text = url.absoluteString
        guard let authority = text.firstRange(of: "://"),
              let pathStart = text[authority.upperBound...].firstIndex(of: "/") else {
            return [.large: ImageReference(url: url, size: .large)]
        }
        let pathEnd = text[pathStart...].firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
        var segments = text[pathStart..<pathEnd].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let position = segments.lastIndex(where: { coverDirectories.contains($0) }), position < segments.count - 1 else {
            return [.large: ImageReference(url: url, size: .large)]
        }
        var images: [ImageSize: ImageReference] = [:]
        for (size, directory, width) in coverSizes {
            segments[position] = directory
            let sized = String(text[..<pathStart]) + segments.joined(separator: "/") + String(text[pathEnd...])
            if let sizedURL = URL(string: sized) { images[size] = ImageReference(url: sizedURL, size: size, width: width) }
        }
        return images
    }

    // MARK: - Lenient values

    /// A field as trimmed plain text with HTML entities decoded; nil when empty.
    static func text(_ object: [String: JSONValue], _ key: String) -> String? {
        object[key]?.stringValue.map(decoded).flatMap(nonEmpty)
    }

    static func decoded(_ text: String) -> String { HTMLEntities.decode(text) }

    static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmed()
        return trimmed.isEmpty ? nil : trimmed
    }

    static func digits(_ text: String) -> String? {
        let trimmed = text.trimmed()
        return !trimmed.isEmpty && trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) ? trimmed : nil
    }

    static func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }

    static func webURL(_ text: String) -> URL? {
        guard let url = URL(string: text.trimmed()),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else { return nil }
        return url
    }
}
