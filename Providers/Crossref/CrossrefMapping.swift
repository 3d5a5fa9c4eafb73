import Foundation
import SeekCore
import SeekKit

/// Turns Crossref `work` objects into items and details.
///
/// The traps (reference §7): `title`, `subtitle` and `container-title` are arrays, possibly empty or `[""]`,
/// with JATS markup and indentation inside; `issued.date-parts` can be `[[null]]`; ISBNs repeat; and a part
/// of a book (a chapter, an entry, a section) carries the **book's** ISBN. A part is never identified by
/// that ISBN: it goes to the detail's `containerISBN` attribute, and the item keeps its DOI alone, so two
/// entries of one encyclopaedia stay two rows.
enum CrossrefMapping {
    /// Types of whole books, whose ISBNs are their own.
    static let wholeBookTypes: Set<String> = ["book", "monograph", "edited-book", "reference-book", "book-set", "book-series"]

    // MARK: - Items

    static func item(_ work: JSONValue) -> Item? {
        guard let doi = text(work["DOI"]).flatMap(doi) else { return nil }
        var identifiers = Identifiers(other: ["doi": doi])
        if isWholeBook(work) { identifiers.add(isbns: isbns(work)) }
        // What the merger reads: the work's type marks a part (never joined by its book's ISBN or title),
        // and its language keeps translations apart.
        identifiers.other["crossrefType"] = text(work["type"])
        identifiers.other["language"] = text(work["language"])
        let title = first(work["title"]) ?? first(work["container-title"]).map { "(untitled part of) " + $0 } ?? doi
        var item = Item(
            id: ItemID(provider: CrossrefProvider.id, value: doi),
            kind: .book,
            title: title,
            subtitle: first(work["subtitle"]),
            creators: unique(creators(work)),
            year: year(work),
            identifiers: identifiers)
        item.address = (text(work["URL"]) ?? text(work["resource"]?["primary"]?["URL"])).flatMap(URLText.init(web:))
            ?? URLText("https://doi.org/" + doi)
        return item
    }

    static func detail(_ work: JSONValue) -> ItemDetail? {
        guard let item = item(work) else { return nil }
        var attributes: [String: String] = [:]
        let type = text(work["type"])
        attributes["type"] = type
        attributes["language"] = text(work["language"])
        attributes["publisherLocation"] = text(work["publisher-location"])
        attributes["containerTitle"] = first(work["container-title"])
        attributes["publisherPage"] = text(work["resource"]?["primary"]?["URL"]).flatMap(URLText.init(web:))?.text
        if !isWholeBook(work) {
            let container = isbns(work)
            if !container.isEmpty { attributes["containerISBN"] = container.joined(separator: ", ") }
            // A part's `page` is its range within the book ("305-349"), not a page count.
            attributes["pages"] = text(work["page"])
        }
        let contributors = people(work["author"]) + people(work["editor"], role: "editor")
        let page = text(work["page"]).flatMap { Int($0) }
        return ItemDetail(
            item: item,
            description: text(work["abstract"]).map(plainText).flatMap(nonEmpty),
            contributors: contributors,
            subjects: unique(strings(work["subject"])),
            publishers: text(work["publisher"]).map { [$0] } ?? [],
            publishDate: date(work),
            pageCount: isWholeBook(work) ? page.flatMap { $0 > 1 ? $0 : nil } : nil,
            attributes: attributes)
    }

    /// Whether the work is a whole book (its ISBNs are its own), not a part of one or another kind of work.
    static func isWholeBook(_ work: JSONValue) -> Bool {
        text(work["type"]).map { wholeBookTypes.contains($0.lowercased()) } ?? false
    }

    // MARK: - Identifiers

    /// A DOI as Seek keys it: trimmed, a `doi:` or `https://doi.org/` prefix dropped, lower case (DOIs are
    /// case-insensitive); nil unless it is `10.` + a registrant, `/` and a suffix, without spaces or controls.
    static func doi(_ raw: String) -> String? {
        var text = raw.trimmed()
        for prefix in ["https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"]
        where text.lowercased().hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count))
            break
        }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("10."), lowered.utf8.count <= 300, let slash = lowered.firstIndex(of: "/"),
              lowered.distance(from: lowered.startIndex, to: slash) >= 7,  // `10.` and a registrant of 4+ digits
              lowered.index(after: slash) < lowered.endIndex,
              !lowered.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return lowered
    }

    /// `ISBN` and `isbn-type[].value`, de-duplicated (values repeat, once per print and electronic).
    static func isbns(_ work: JSONValue) -> [String] {
        var values = strings(work["ISBN"])
        values += (work["isbn-type"]?.arrayValue ?? []).compactMap { text($0["value"]) }
        var seen: Set<String> = []
        return values.map(ISBN.clean).filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    // MARK: - People and dates

    /// The authors' names, else the editors' (an edited book or encyclopaedia often names no author).
    static func creators(_ work: JSONValue) -> [String] {
        let authors = people(work["author"]).map(\.name)
        return authors.isEmpty ? people(work["editor"]).map(\.name) : authors
    }

    /// `author[]` or `editor[]`: `given family`, or an organisation's `name`.
    static func people(_ list: JSONValue?, role: String? = nil) -> [Contributor] {
        (list?.arrayValue ?? []).compactMap { person in
            let given = text(person["given"])
            let family = text(person["family"])
            let name = [given, family].compactMap { $0 }.joined(separator: " ")
            guard let shown = nonEmpty(name) ?? text(person["name"]) else { return nil }
            return Contributor(name: collapse(shown), role: role)
        }
    }

    /// The dates a work may carry, most telling first.
    static let dateFields = ["issued", "published", "published-print", "published-online", "created"]

    /// The first `date-parts` year among `dateFields`; a `[[null]]` counts as none.
    static func year(_ work: JSONValue) -> Int? {
        for field in dateFields {
            if let year = work[field]?["date-parts"]?[0]?[0]?.intValue, (1000...2999).contains(year) { return year }
        }
        return nil
    }

    /// The first full date among `dateFields`, as `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    static func date(_ work: JSONValue) -> String? {
        for field in dateFields {
            guard let parts = work[field]?["date-parts"]?[0]?.arrayValue, let year = parts.first?.intValue,
                  (1000...2999).contains(year) else { continue }
            var text = String(year)
            for part in parts.dropFirst().prefix(2) {
                guard let value = part.intValue, (1...31).contains(value) else { break }
                text += value < 10 ? "-0\(value)" : "-\(value)"
            }
            return text
        }
        return nil
    }

    // MARK: - Text

    /// The first non-empty entry of an array member (`title`, `subtitle`, `container-title`), markup stripped
    /// and white space collapsed.
    static func first(_ value: JSONValue?) -> String? {
        let entries = value?.arrayValue ?? value.map { [$0] } ?? []
        for entry in entries {
            if let text = entry.stringValue.map(plainText).map(collapse).flatMap(nonEmpty) { return text }
        }
        return nil
    }

    /// Text without markup: JATS and HTML tags (`<jats:p>`, `<scp>`, `<i>`) removed, a paragraph's end kept
    /// as a line break, the common entities decoded.
    static func plainText(_ marked: String) -> String {
        guard marked.contains("<") || marked.contains("&") else { return marked }
        var out = ""
        var tag: String?
        for character in marked {
            if var open = tag {
                if character == ">" {
                    let name = open.lowercased()
                    if name.hasPrefix("/jats:p") || name.hasPrefix("/p") || name.hasPrefix("br") { out.append("\n") }
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
        for (entity, replacement) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            out = out.replacingAll(entity, with: replacement)
        }
        return out.split(separator: "\n").map { collapse(String($0)) }.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    /// White space runs (newlines and indentation inside titles) as one space, trimmed.
    static func collapse(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

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
