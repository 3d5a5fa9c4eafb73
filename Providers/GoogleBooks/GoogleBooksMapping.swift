import Foundation
import SeekCore
import SeekKit

/// Turns Google Books `books#volume` objects (a search's `items`, or a detail body) into items and details.
/// Every member is optional: a `fields` mask drops whatever it does not name (reference §2, trap 10).
enum GoogleBooksMapping {
    // MARK: - Items

    /// An item keyed by the volume id (case kept: ids differ only by case); nil without an id.
    static func item(_ volume: JSONValue) -> Item? {
        guard let id = text(volume["id"]), GoogleBooksProvider.isVolumeID(id) else { return nil }
        let info = volume["volumeInfo"]
        var identifiers = Identifiers(other: ["googleVolume": id])
        identifiers.add(isbns: isbns(info?["industryIdentifiers"]))
        // The language the merger reads (`pt-BR` as given): a translation is another book unless an ISBN says so.
        identifiers.other["language"] = text(info?["language"])
        let title = text(info?["title"])
        var item = Item(
            id: ItemID(provider: GoogleBooksProvider.id, value: id),
            kind: .book,
            title: title ?? id,
            subtitle: text(info?["subtitle"]),
            creators: unique(strings(info?["authors"])),
            year: year(text(info?["publishedDate"])),
            identifiers: identifiers,
            images: images(info?["imageLinks"]))
        // A `fields` mask may drop both links: the volume's page by its id, which Google serves for every volume.
        item.address = (text(info?["canonicalVolumeLink"]) ?? text(info?["infoLink"])).flatMap(webAddress)
            ?? URLText("https://books.google.com/books?id=" + id)
        return item
    }

    static func detail(_ volume: JSONValue) -> ItemDetail? {
        guard let item = item(volume) else { return nil }
        let info = volume["volumeInfo"]
        var attributes: [String: String] = [:]
        attributes["language"] = text(info?["language"])
        attributes["printType"] = text(info?["printType"])
        attributes["previewLink"] = text(info?["previewLink"]).flatMap(webAddress)?.text
        attributes["infoLink"] = text(info?["infoLink"]).flatMap(webAddress)?.text
        let others = typedIdentifiers(info?["industryIdentifiers"], type: "OTHER")
        // Library ids of scanned books (`BL:A0018116962`, `UOM:39015047697910`): never ISBNs (trap 2).
        if !others.isEmpty { attributes["otherIdentifiers"] = others.joined(separator: ", ") }
        let issns = typedIdentifiers(info?["industryIdentifiers"], type: "ISSN")
        if !issns.isEmpty { attributes["issn"] = issns.joined(separator: ", ") }
        let access = volume["accessInfo"]
        if access?["publicDomain"] == .bool(true) { attributes["publicDomain"] = "true" }
        attributes["viewability"] = text(access?["viewability"])
        attributes["epub"] = text(access?["epub"]?["downloadLink"]).flatMap(webAddress)?.text
        attributes["pdf"] = text(access?["pdf"]?["downloadLink"]).flatMap(webAddress)?.text
        attributes["saleability"] = text(volume["saleInfo"]?["saleability"])
        attributes["buyLink"] = text(volume["saleInfo"]?["buyLink"]).flatMap(webAddress)?.text
        let pages = [info?["pageCount"], info?["printedPageCount"]].lazy.compactMap { $0?.intValue }.first { $0 > 1 }
        return ItemDetail(
            item: item,
            description: text(info?["description"]).map(plainText).flatMap(nonEmpty),
            contributors: item.creators.map { Contributor(name: $0, role: "author") },
            subjects: unique(strings(info?["categories"])),
            publishers: text(info?["publisher"]).map { [$0] } ?? [],
            publishDate: text(info?["publishedDate"]),
            pageCount: pages,
            attributes: attributes)
    }

    // MARK: - Identifiers

    /// The ISBNs of `industryIdentifiers`: only entries typed `ISBN_10` or `ISBN_13`, never `OTHER` or
    /// `ISSN`, and never the all-zero numbers Google puts on records that have none (trap 1).
    static func isbns(_ list: JSONValue?) -> [String] {
        var found: [String] = []
        for entry in list?.arrayValue ?? [] {
            guard let type = text(entry["type"]), type == "ISBN_10" || type == "ISBN_13",
                  let value = text(entry["identifier"]) else { continue }
            let cleaned = ISBN.clean(value)
            guard !isPlaceholder(cleaned) else { continue }
            found.append(cleaned)
        }
        return found
    }

    /// `0000000000` and `978000000000x`: check-digit-valid numbers that name no book.
    static func isPlaceholder(_ isbn: String) -> Bool {
        let digits = isbn.hasPrefix("978") || isbn.hasPrefix("979") ? isbn.dropFirst(3).dropLast() : isbn.dropLast()
        return !digits.isEmpty && digits.allSatisfy { $0 == "0" }
    }

    static func typedIdentifiers(_ list: JSONValue?, type wanted: String) -> [String] {
        (list?.arrayValue ?? []).compactMap { entry in
            text(entry["type"]) == wanted ? text(entry["identifier"]) : nil
        }
    }

    // MARK: - Dates

    /// The year of a `publishedDate`: its first run of exactly four digits, between 1000 and 2999, so
    /// `2004`, `2004-10`, `2004-10-01`, `1954?`, `c1954` and `[1954]` all give theirs; nil otherwise.
    static func year(_ date: String?) -> Int? {
        guard let date else { return nil }
        var run = 0
        var value = 0
        for byte in date.utf8 {
            if byte >= 0x30 && byte <= 0x39 {
                run += 1
                if run <= 4 { value = value * 10 + Int(byte - 0x30) }
                continue
            }
            if run == 4, (1000...2999).contains(value) { return value }
            run = 0
            value = 0
        }
        return run == 4 && (1000...2999).contains(value) ? value : nil
    }

    // MARK: - Images

    /// The cover sizes, smallest first, and the `imageLinks` members that stand for each (first present
    /// wins): `smallThumbnail` is zoom 5, `thumbnail` 1, `small` 2, `medium` 3, `large` 4, `extraLarge` 6.
    static let imagePreferences: [(ImageSize, [String])] = [
        (.small, ["smallThumbnail", "thumbnail"]),
        (.medium, ["thumbnail", "small"]),
        (.large, ["medium", "large", "small"]),
        (.original, ["extraLarge", "large"]),
    ]

    /// The covers of `imageLinks`, over https and without the page-curl decoration (trap 5). A search
    /// item has two sizes at most; a detail up to six.
    static func images(_ links: JSONValue?) -> [ImageSize: ImageReference] {
        guard let links = links?.objectValue else { return [:] }
        var images: [ImageSize: ImageReference] = [:]
        for (size, names) in imagePreferences {
            for name in names {
                guard let raw = links[name]?.stringValue, let address = cover(raw) else { continue }
                images[size] = ImageReference(address: address, size: size)
                break
            }
        }
        return images
    }

    /// A cover URL made https, `edge=curl` dropped.
    static func cover(_ raw: String) -> URLText? {
        var text = raw.trimmed()
        text = text.replacingAll("&edge=curl", with: "").replacingAll("?edge=curl&", with: "?")
        return webAddress(text)
    }

    /// An absolute web URL, `http://` made `https://` (Google serves every page and image over both).
    static func webAddress(_ raw: String) -> URLText? {
        var text = raw.trimmed()
        if text.lowercased().hasPrefix("http://") { text = "https://" + text.dropFirst(7) }
        return URLText(web: text)
    }

    // MARK: - Text

    /// A description as plain text: a detail's comes as HTML (`<p>`, `<br>`, `<b>`), a search's as text.
    /// Paragraph and line breaks become line breaks, other tags go, the common entities are decoded.
    static func plainText(_ html: String) -> String {
        guard html.contains("<") || html.contains("&") else { return html }
        var out = ""
        var tag: String?
        for character in html {
            if var open = tag {
                if character == ">" {
                    let name = open.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/ ")).prefix { $0.isLetter }
                    if ["br", "p", "div", "li"].contains(String(name)), !out.hasSuffix("\n") { out.append("\n") }
                    tag = nil
                } else {
                    open.append(character)
                    tag = open.count > 200 ? nil : open
                }
            } else if character == "<" {
                tag = ""
            } else {
                out.append(character)
            }
        }
        for (entity, replacement) in entities { out = out.replacingAll(entity, with: replacement) }
        return out
    }

    static let entities: [(String, String)] = [
        ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&nbsp;", " "), ("&amp;", "&"),
    ]

    /// A string member, trimmed; nil when absent, empty or no string.
    static func text(_ value: JSONValue?) -> String? {
        value?.stringValue.flatMap(nonEmpty)
    }

    static func strings(_ value: JSONValue?) -> [String] {
        (value?.arrayValue ?? []).compactMap(text)
    }

    static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmed()
        return trimmed.isEmpty ? nil : trimmed
    }

    static func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }
}
