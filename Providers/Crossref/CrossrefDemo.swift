import Foundation
import SeekKit

/// What `--demo` serves for Crossref: the recordings in Demo/ (see its PROVENANCE.md), and any work they
/// hold as a `/works/{DOI}` answer. Crossref needs no key; demo mode sets no contact address.
extension CrossrefProvider {
    static let demo = ProviderDemo(
        settings: [urlVariable: .url(path: "")],
        routes: [
            DemoRoute("/works", answer: CrossrefDemo.search),
            DemoRoute("/works/*", answer: CrossrefDemo.work),
        ],
        sampleQueries: ["ecology", "widget"],
        recording: CrossrefDemo.recording)
}

/// Crossref's demo answers, in the API's own shapes.
enum CrossrefDemo {
    /// The recorded searches, each with a word a query must hold to get it. The recordings are of
    /// unfiltered searches: they hold the parts (chapters, entries) a book-type filter would leave out,
    /// which the provider keeps as rows of their own, without their book's ISBN.
    static let searches: [(word: String, file: String)] = [
        ("ecology", "search_query_ecology_rows2_reference_entries_2026-06_habanero.json"),
        ("widget", "search_query_widget_cursor_star_2026-06_habanero.json"),
    ]
    static let emptyFile = "search_filter_doi_select_rows1_empty_2026-09_inline.json"
    static let works = ["10.1371/journal.pone.0033693": "work_doi_10.1371_journal.pone.0033693_2026-06_habanero.json"]

    static func recording(_ file: String) -> String? { EmbeddedFiles.text("Demo/" + file) }

    static func search(_ request: DemoRequest) -> DemoAnswer {
        let query = (request.queryValue("query") ?? "").lowercased()
        guard let file = searches.first(where: { query.contains($0.word) })?.file else {
            return .recording(recording(emptyFile), named: emptyFile)
        }
        guard let text = recording(file), var object = ProviderDemo.object(text),
              var message = object["message"] as? [String: Any], let items = message["items"] as? [Any] else {
            return .recording(recording(file), named: file)
        }
        let offset = max(0, request.integer("offset") ?? 0)
        message["items"] = Array(items.dropFirst(offset).prefix(max(0, request.integer("rows") ?? 20)))
        object["message"] = message
        return .object(object)
    }

    /// `/works/{DOI}`: a recorded work, else one built from the recorded searches, else Crossref's own
    /// plain-text 404.
    static func work(_ request: DemoRequest) -> DemoAnswer {
        let path = request.path.removingPercentEncoding ?? request.path
        let doi = String(path.dropFirst("/works/".count)).lowercased()
        if let file = works[doi] { return .recording(recording(file), named: file) }
        let lists = searches.compactMap { recording($0.file).flatMap(ProviderDemo.object)?["message"] as? [String: Any] }
        for list in lists {
            guard let items = list["items"] as? [[String: Any]],
                  var work = items.first(where: { ($0["DOI"] as? String)?.lowercased() == doi }) else { continue }
            work["abstract"] = "<jats:p>" + ProviderDemo.noted(work["abstract"] as? String) + "</jats:p>"
            return .object(["status": "ok", "message-type": "work", "message-version": "1.0.0", "message": work])
        }
        return DemoAnswer(status: 404, body: Array("Resource not found.".utf8))
    }
}
