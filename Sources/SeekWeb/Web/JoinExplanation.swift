import SeekCore
import SeekRuntime

/// The detail page's words for why a row's sources are one book (issue 48): "Also in Aladin and
/// Kakao: same ISBN." The session merges the records again, each as its own source's answer
/// (`SeekSession.joins`), so the reasons are the merger's own (`ResultSource.joinedBy`); here they
/// are said in the reader's language.
enum JoinExplanation {
    /// One sentence per kind of key, naming the sources that key joined to the first; none when the
    /// page shows one source, or the records no longer join.
    static func sentences(
        _ details: [(provider: String, detail: ItemDetail)], grouping: ResultGrouping, session: SeekSession, strings: WebStrings
    ) -> [String] {
        sentences(SeekSession.joins(details, grouping: grouping), session: session, strings: strings)
    }

    /// One sentence per kind of key of `joins` (the session's, in row order).
    static func sentences(_ joins: [(provider: String, joinedBy: String)], session: SeekSession, strings: WebStrings) -> [String] {
        var order: [String] = []
        var names: [String: [String]] = [:]
        for (provider, joinedBy) in joins {
            let reason = strings[key(of: joinedBy)]
            if names[reason] == nil { order.append(reason) }
            let name = WebView.name(provider, session: session, strings: strings)
            if names[reason]?.contains(name) != true { names[reason, default: []].append(name) }
        }
        return order.map { reason in
            let list = names[reason] ?? []
            let joined = list.count > 1 ? list.dropLast().joined(separator: ", ") + strings["listAnd"] + (list.last ?? "") : list.first ?? ""
            return strings.format("alsoIn", joined, reason)
        }
    }

    /// The strings key for a `joinedBy` text (`isbn 978…`, `doi 10.…`, `title+creator …`).
    static func key(of joinedBy: String) -> String {
        switch joinedBy.prefix(while: { $0 != " " }) {
        case "isbn": "joinedISBN"
        case "doi": "joinedDOI"
        case "oclc": "joinedOCLC"
        case "lccn": "joinedLCCN"
        case "openlibrary": "joinedOpenLibrary"
        case "google": "joinedGoogle"
        case "title+year": "joinedTitleYear"
        default: "joinedTitle"
        }
    }
}
