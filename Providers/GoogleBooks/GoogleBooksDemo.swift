import Foundation
import SeekKit

/// What `--demo` serves for Google Books: the recordings in Demo/ (see its PROVENANCE.md), any volume
/// they hold as a `volumes/{id}` answer, and a stand-in key.
extension GoogleBooksProvider {
    static let demo = ProviderDemo(
        settings: [urlVariable: .url(path: ""), keyVariable: .standInKey],
        routes: [
            DemoRoute("/books/v1/volumes", answer: GoogleBooksDemo.search),
            DemoRoute("/books/v1/volumes/*", answer: GoogleBooksDemo.volume),
        ],
        sampleQueries: ["harry potter", "faith", "cragside"],
        recording: GoogleBooksDemo.recording)
}

/// Google Books' demo answers, in the API's own shapes.
enum GoogleBooksDemo {
    /// The recorded searches, each with the words a query must hold to get it (all of them, any case).
    static let searches: [(words: [String], file: String)] = [
        (["harry", "potter"], "search_q_harry_potter_2020-06_cmsanner.json"),
        (["faith"], "search_q_faith_2020-06_cmsanner.json"),
        (["cragside"], "search_intitle_cragside_inauthor_fields_mask_2026-09_colophon.json"),
        (["9784815602666"], "search_isbn_9784815602666_ja_2021-12_booklist.json"),
        (["宇宙"], "search_isbn_9784815602666_ja_2021-12_booklist.json"),
        (["pnjzaaaacaaj"], "search_q_volume_id_other_identifiers_public_domain_chingu.json"),
    ]
    static let detailFile = "volume_XkEvAAAAMAAJ_detail_2017-06_tamasfoldi.json"
    static let empty = #"{"kind": "books#volumes", "totalItems": 0}"#

    static func recording(_ file: String) -> String? { EmbeddedFiles.text("Demo/" + file) }

    static func search(_ request: DemoRequest) -> DemoAnswer {
        let query = (request.queryValue("q") ?? "").lowercased()
        guard let file = searches.first(where: { entry in entry.words.allSatisfy(query.contains) })?.file else {
            return .json(empty)
        }
        guard let text = recording(file), var object = ProviderDemo.object(text), let items = object["items"] as? [[String: Any]] else {
            return .recording(recording(file), named: file)
        }
        let offset = max(0, request.integer("startIndex") ?? 0)
        object["items"] = items.dropFirst(offset).prefix(max(0, request.integer("maxResults") ?? 10)).map(withoutCovers)
        return .object(object)
    }

    /// A volume without its cover URLs: no image bytes are recorded, so a demo item carries no image URL
    /// (a real host's would be a network call) and Seek draws its cover.
    static func withoutCovers(_ volume: [String: Any]) -> [String: Any] {
        var volume = volume
        if var info = volume["volumeInfo"] as? [String: Any] {
            info["imageLinks"] = nil
            volume["volumeInfo"] = info
        }
        return volume
    }

    /// `/books/v1/volumes/{id}`: the recorded detail, else one built from the recorded searches (ids are
    /// case-sensitive), else Google's own 404 body.
    static func volume(_ request: DemoRequest) -> DemoAnswer {
        let id = request.lastSegment
        if id == "XkEvAAAAMAAJ" {
            guard let text = recording(detailFile), let volume = ProviderDemo.object(text) else {
                return .recording(recording(detailFile), named: detailFile)
            }
            return .object(withoutCovers(volume))
        }
        let files = searches.map { recording($0.file) }
        guard var volume = ProviderDemo.entry(in: files, key: "items", where: { $0["id"] as? String == id }) else {
            return .json(#"{"error": {"code": 404, "message": "The volume ID could not be found. (demo: no recording)", "errors": [{"message": "The volume ID could not be found.", "domain": "global", "reason": "notFound"}]}}"#, status: 404)
        }
        if var info = volume["volumeInfo"] as? [String: Any] {
            info["description"] = ProviderDemo.noted(info["description"] as? String)
            volume["volumeInfo"] = info
        }
        return .object(withoutCovers(volume))
    }
}
