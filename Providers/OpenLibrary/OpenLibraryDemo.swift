import Foundation
import SeekKit

/// What `--demo` serves for Open Library: the recordings in Demo/ (see its PROVENANCE.md), and any
/// work, edition or author a recorded search holds, built from that search answer. Items link to the
/// real site (`https://openlibrary.org/works/…`), never to the replay server, and carry no cover URL:
/// no image bytes are recorded.
extension OpenLibraryProvider {
    static let demo = ProviderDemo(
        settings: [
            "SEEK_OPENLIBRARY_URL": .url(path: ""), "SEEK_OPENLIBRARY_SITE_URL": .text(defaultBaseURL),
            "SEEK_OPENLIBRARY_COVERS_URL": .text("none"),
        ],
        routes: [
            DemoRoute("/search.json", answer: OpenLibraryDemo.search),
            DemoRoute("/works/*") { OpenLibraryDemo.record(folder: "works", request: $0) },
            DemoRoute("/books/*") { OpenLibraryDemo.record(folder: "books", request: $0) },
            DemoRoute("/authors/*", answer: OpenLibraryDemo.author),
        ],
        sampleQueries: OpenLibraryDemo.sampleQueries,
        recording: OpenLibraryDemo.recording)
}

/// Open Library's demo answers, in the API's own shapes.
enum OpenLibraryDemo {
    /// Recorded records, by the id the detail request names.
    static let works = [
        "OL45804W": "work_OL45804W_fantastic_mr_fox_string_description_2023_librarian_pyliteral.json",
        "OL15832982W": "work_OL15832982W_sabriel_bookwyrm.json",
    ]
    static let authors = ["OL34184A": "author_OL34184A_roald_dahl_2023_librarian_pyliteral.json"]
    static let lotr = "search_title_lotr_author_tolkien_2013_jayfajardo.json"
    static let capitalism = "search_q_capitalism_and_freedom_2013_jayfajardo.json"
    /// The recorded search answers details are built from.
    static let searches = [lotr, capitalism]
    /// Searches the recordings answer (`search(_:)`): a query holding "lord of the rings" or "tolkien",
    /// or "capitalism".
    static let sampleQueries = ["the lord of the rings", "tolkien", "capitalism and freedom"]

    static func recording(_ file: String) -> String? { EmbeddedFiles.text("Demo/" + file) }

    static func search(_ request: DemoRequest) -> DemoAnswer {
        let query = (request.queryValue("q") ?? "").lowercased()
        let file: String
        if query.contains("lord of the rings") || query.contains("tolkien") {
            file = lotr
        } else if query.contains("capitalism") {
            file = capitalism
        } else {
            return .json(#"{"numFound": 0, "start": 0, "num_found": 0, "docs": []}"#)
        }
        return .sliced(recording(file), named: file, key: "docs", offset: request.integer("offset") ?? 0, limit: request.integer("limit") ?? Int.max)
    }

    /// A work's recording, else a work (`works`) or edition (`books`) record built from the search doc that holds it.
    static func record(folder: String, request: DemoRequest) -> DemoAnswer {
        let id = request.lastSegment
        if folder == "works", let file = works[id] { return .recording(recording(file), named: file) }
        let doc = ProviderDemo.entry(in: searches.map(recording), key: "docs") { self.id(in: $0["key"] as? String ?? "") == id }
        guard let doc else { return notFound(folder, id) }
        return .object(record(folder: folder, id: id, from: doc))
    }

    static func author(_ request: DemoRequest) -> DemoAnswer {
        let id = request.lastSegment
        if let file = authors[id] { return .recording(recording(file), named: file) }
        let doc = ProviderDemo.entry(in: searches.map(recording), key: "docs") { ($0["author_key"] as? [String] ?? []).contains(id) }
        guard let doc, let keys = doc["author_key"] as? [String], let names = doc["author_name"] as? [String],
              let index = keys.firstIndex(of: id), names.indices.contains(index)
        else { return notFound("authors", id) }
        return .object(["key": "/authors/\(id)", "type": ["key": "/type/author"], "name": names[index]])
    }

    /// `OL27448W` from `/works/OL27448W`.
    static func id(in path: String) -> String {
        DemoRequest(path: path).lastSegment
    }

    /// Open Library's own answer for a record it does not have.
    static func notFound(_ folder: String, _ id: String) -> DemoAnswer {
        .object(["error": "notfound", "key": "/\(folder)/\(id)"], status: 404)
    }

    /// A work (`works`) or edition (`books`) record holding what the search doc says of it.
    static func record(folder: String, id: String, from doc: [String: Any]) -> [String: Any] {
        var record: [String: Any] = [
            "key": "/\(folder)/\(id)", "type": ["key": folder == "works" ? "/type/work" : "/type/edition"],
            "title": doc["title"] as? String ?? id, "description": ProviderDemo.synthesisNotice,
        ]
        record["subtitle"] = doc["subtitle"] as? String
        if let cover = doc["cover_i"] as? Int { record["covers"] = [cover] }
        if let subjects = doc["subject"] as? [String] { record["subjects"] = Array(subjects.prefix(20)) }
        let authors = (doc["author_key"] as? [String] ?? []).map { "/authors/\($0)" }
        if folder == "works" {
            record["authors"] = authors.map { ["author": ["key": $0], "type": ["key": "/type/author_role"]] }
            record["first_publish_date"] = (doc["first_publish_year"] as? Int).map(String.init)
        } else {
            record["authors"] = authors.map { ["key": $0] }
            record["publishers"] = doc["publisher"] as? [String]
            record["publish_date"] = (doc["publish_date"] as? [String])?.first
        }
        return record
    }
}
