import Foundation
import SeekKit
import SeekCore
import SeekLoopback
import SeekResilience

/// `--demo`: the real providers, through the real HTTP transport, against recorded real
/// responses compiled into Seek, served on loopback inside the process. No network, no keys.
public struct DemoMode: Sendable {
    private let server: FixtureServer

    /// The settings that point every provider at the demo server (base URLs and stand-in keys).
    public let overrides: [String: String]

    /// What a host tells the user while demo mode runs.
    public static let notice = "demo mode: recorded real responses served on loopback (no network, no keys)"

    /// The key every keyed provider gets: keys are redacted from everything shown, so it is a word
    /// no upstream text holds ("demo" would black out every "demo" in titles and notices).
    static let standInKey = "seek-demo-stand-in-key"

    /// Starts the demo server; `shutdown()` ends it.
    public static func start() async throws -> DemoMode {
        let recordings = DemoRecordings()
        let server = try await FixtureServer.start()
        DemoRoutes.install(on: server, recordings: recordings)
        return DemoMode(server: server, overrides: [
            "SEEK_OPENLIBRARY_URL": server.url("/openlibrary").absoluteString,
            "SEEK_OPENLIBRARY_COVERS_URL": server.url("/covers").absoluteString,
            "SEEK_GIPHY_URL": server.url("/giphy").absoluteString,
            "SEEK_GIPHY_API_KEY": DemoMode.standInKey,
            "SEEK_ALADIN_URL": server.url("/aladin").absoluteString,
            "SEEK_ALADIN_TTB_KEY": DemoMode.standInKey,
        ])
    }

    /// `settings` with every provider pointed at the demo server.
    public func applied(to settings: Settings) -> Settings {
        Settings(environment: settings.environment.merging(overrides) { $1 }, file: settings.file)
    }

    public func shutdown() async {
        try? await server.shutdown()
    }
}

/// The recordings (`Resources/Demo`, with their PROVENANCE.md), compiled into the binary by the
/// EmbedFiles plugin: a `seek` copied anywhere has them.
struct DemoRecordings: Sendable {
    static let folder = "Resources/Demo"

    /// The recording `file` of `provider`, byte for byte.
    func bytes(_ provider: String, _ file: String) -> [UInt8]? {
        EmbeddedFiles.text("\(Self.folder)/\(provider)/\(file)").map { Array($0.utf8) }
    }
}

/// Which recording answers which request. Unrecorded queries get the API's own empty answer.
///
/// A detail of an item a recorded search or list answer holds, but no recording of its own, is
/// built from that search answer, in the API's own detail shape, and says so in its description
/// (`synthesisNotice`); an item no recording holds gets the API's own "not found".
enum DemoRoutes {
    /// What a detail built from a search answer says about itself, first in its description.
    static let synthesisNotice = "demo: built from the recorded search answer (no recording of this record)."

    /// Recorded records, by the id the detail request names.
    static let openLibraryWorks = [
        "OL45804W": "work_OL45804W_fantastic_mr_fox_string_description_2023_librarian_pyliteral.json",
        "OL15832982W": "work_OL15832982W_sabriel_bookwyrm.json",
    ]
    static let openLibraryAuthors = ["OL34184A": "author_OL34184A_roald_dahl_2023_librarian_pyliteral.json"]
    static let aladinLookups = [
        "9791130605210": "lookup_isbn13_9791130605210_ove_2024-08_devcorgi.json",
        "9791130607887": "lookup_isbn13_9791130607887_2024-08_devcorgi.json",
        "9791191851069": "lookup_isbn13_9791191851069_ebookList_usedList_2021-11_inline.json",
    ]

    /// The recorded search and list answers details are built from: file and the key of its list.
    static let openLibrarySearches = [
        "search_title_lotr_author_tolkien_2013_jayfajardo.json", "search_q_capitalism_and_freedom_2013_jayfajardo.json",
    ]
    static let giphyLists = ["search_2017-05_lukewinikates_legacy.json", "trending_limit25_2019-08_netguru_escaped_slashes.json"]
    static let aladinLists = [
        "search_keyword_widaehan_iyagi_2021-11_inline_escaped_slashes.json", "list_bestseller_cid1_2024-09_devcorgi.json",
    ]

    static func install(on server: FixtureServer, recordings: DemoRecordings) {
        @Sendable func json(_ provider: String, _ file: String) -> FixtureResponse {
            guard let body = recordings.bytes(provider, file) else { return .json(#"{"error":"missing recording"}"#, status: 500) }
            return FixtureResponse(body: body)
        }
        @Sendable func sliced(
            _ provider: String, _ file: String, key: String, request: RecordedRequest, offsetParam: String?, limitParam: String = "limit"
        ) -> FixtureResponse {
            let offset = offsetParam.flatMap { request.queryValue($0) }.flatMap(Int.init) ?? 0
            let limit = request.queryValue(limitParam).flatMap(Int.init) ?? Int.max
            guard let body = recordings.bytes(provider, file),
                  var object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
                  let array = object[key] as? [Any],
                  let data = {
                      object[key] = Array(array.dropFirst(offset).prefix(limit))
                      return try? JSONSerialization.data(withJSONObject: object)
                  }()
            else { return json(provider, file) }
            return FixtureResponse(body: Array(data))
        }
        /// The entries of the recorded answers `files` list under `key`, first match first.
        @Sendable func entry(_ provider: String, _ files: [String], key: String, where matches: ([String: Any]) -> Bool) -> [String: Any]? {
            for file in files {
                guard let body = recordings.bytes(provider, file),
                      let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
                      let list = object[key] as? [[String: Any]]
                else { continue }
                if let found = list.first(where: matches) { return found }
            }
            return nil
        }

        // Open Library
        server.route("/openlibrary/search.json", handler: { request in
            let query = (request.queryValue("q") ?? "").lowercased()
            if query.contains("lord of the rings") || query.contains("tolkien") {
                return sliced("openlibrary", "search_title_lotr_author_tolkien_2013_jayfajardo.json", key: "docs", request: request, offsetParam: "offset")
            }
            if query.contains("capitalism") {
                return sliced("openlibrary", "search_q_capitalism_and_freedom_2013_jayfajardo.json", key: "docs", request: request, offsetParam: "offset")
            }
            return .json(#"{"numFound": 0, "start": 0, "num_found": 0, "docs": []}"#)
        })
        for folder in ["works", "books"] {
            server.route("/openlibrary/\(folder)/*", handler: { request in
                let id = OpenLibraryDemo.id(in: request.path)
                if folder == "works", let file = openLibraryWorks[id] { return json("openlibrary", file) }
                let doc = entry("openlibrary", openLibrarySearches, key: "docs") { OpenLibraryDemo.id(in: $0["key"] as? String ?? "") == id }
                guard let doc else { return OpenLibraryDemo.notFound(folder, id) }
                return OpenLibraryDemo.record(folder: folder, id: id, from: doc)
            })
        }
        server.route("/openlibrary/authors/*", handler: { request in
            let id = OpenLibraryDemo.id(in: request.path)
            if let file = openLibraryAuthors[id] { return json("openlibrary", file) }
            let doc = entry("openlibrary", openLibrarySearches, key: "docs") { ($0["author_key"] as? [String] ?? []).contains(id) }
            guard let doc, let keys = doc["author_key"] as? [String], let names = doc["author_name"] as? [String],
                  let index = keys.firstIndex(of: id), names.indices.contains(index)
            else { return OpenLibraryDemo.notFound("authors", id) }
            return OpenLibraryDemo.encoded(["key": "/authors/\(id)", "type": ["key": "/type/author"], "name": names[index]])
        })

        // GIPHY
        server.route("/giphy/v1/gifs/search", handler: { request in
            let query = (request.queryValue("q") ?? "").lowercased()
            guard query.contains("cat") else {
                return .json(#"{"data": [], "pagination": {"total_count": 0, "count": 0, "offset": 0}, "meta": {"status": 200, "msg": "OK"}}"#)
            }
            return sliced("giphy", "search_2017-05_lukewinikates_legacy.json", key: "data", request: request, offsetParam: "offset")
        })
        server.route("/giphy/v1/gifs/trending", handler: { request in
            sliced("giphy", "trending_limit25_2019-08_netguru_escaped_slashes.json", key: "data", request: request, offsetParam: "offset")
        })
        server.route("/giphy/v1/gifs/search/tags", .json(#"{"data": [], "meta": {"status": 200, "msg": "OK"}}"#))
        // `/v1/gifs/{id}`: GIPHY's single-object answer, built from the recorded lists.
        server.route("/giphy/v1/gifs/*", handler: { request in
            let id = String(request.path.split(separator: "/").last ?? "")
            guard var gif = entry("giphy", giphyLists, key: "data", where: { $0["id"] as? String == id }) else {
                return .json(#"{"data": [], "meta": {"msg": "Not Found", "status": 404, "response_id": "demo", "error_code": "404"}}"#, status: 404)
            }
            gif = DemoRoutes.withoutImages(gif)
            gif["alt_text"] = DemoRoutes.noted(gif["alt_text"] as? String)
            return OpenLibraryDemo.encoded(["data": gif, "meta": ["status": 200, "msg": "OK", "response_id": "demo"] as [String: Any]])
        })

        // Aladin
        server.route("/aladin/ItemSearch.aspx", handler: { request in
            let query = request.queryValue("Query") ?? ""
            guard query.contains("위대한") || query.contains("이야기") else {
                return .json(#"{"version": "20131101", "totalResults": 0, "startIndex": 1, "itemsPerPage": 10, "query": "", "item": []}"#)
            }
            return sliced("aladin", "search_keyword_widaehan_iyagi_2021-11_inline_escaped_slashes.json",
                          key: "item", request: request, offsetParam: nil, limitParam: "MaxResults")
        })
        server.route("/aladin/ItemList.aspx", handler: { request in
            sliced("aladin", "list_bestseller_cid1_2024-09_devcorgi.json", key: "item", request: request, offsetParam: nil, limitParam: "MaxResults")
        })
        server.route("/aladin/ItemLookUp.aspx", handler: { request in
            let id = request.queryValue("ItemId") ?? ""
            if let file = aladinLookups[id] {
                guard let body = recordings.bytes("aladin", file),
                      var lookup = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
                      let items = lookup["item"] as? [[String: Any]]
                else { return json("aladin", file) }
                lookup["item"] = items.map(DemoRoutes.withoutCover)
                return OpenLibraryDemo.encoded(lookup)
            }
            let found = entry("aladin", aladinLists, key: "item") { book in
                [book["isbn13"], book["isbn"], book["itemId"]].contains { value in value.map { "\($0)" } == id }
            }
            guard let found else {
                return .json(#"{"errorCode": 8, "errorMessage": "존재하지 않는 상품입니다. (demo: no recording)"}"#)
            }
            var book = DemoRoutes.withoutCover(found)
            book["description"] = DemoRoutes.noted(book["description"] as? String)
            return OpenLibraryDemo.encoded([
                "version": "20131101", "totalResults": 1, "startIndex": 1, "itemsPerPage": 1, "query": "", "item": [book],
            ])
        })
    }

    /// An Aladin item without its cover URL. No image bytes are recorded, and an image is fetched
    /// from the URL the detail gives: a real host's would be a network call.
    static func withoutCover(_ book: [String: Any]) -> [String: Any] {
        var book = book
        book["cover"] = nil
        return book
    }

    /// A GIPHY object without its renditions (`images`, and the 2016 flat `…_url` ones), for the
    /// reason `withoutCover` gives; its page links (`url`, `embed_url`, `bitly_url`) stay.
    static func withoutImages(_ gif: [String: Any]) -> [String: Any] {
        gif.filter { key, _ in key != "images" && !(key.hasSuffix("_url") && !["embed_url", "bitly_url", "source_post_url"].contains(key)) }
    }

    /// `synthesisNotice`, then the recorded text it stands before (if any).
    static func noted(_ text: String?) -> String {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return synthesisNotice }
        return synthesisNotice + " " + text
    }
}

/// Open Library records built from a recorded search doc, in the API's own record shapes.
enum OpenLibraryDemo {
    /// `OL27448W` from `/openlibrary/works/OL27448W.json`, `/works/OL27448W` or `OL27448W`.
    static func id(in path: String) -> String {
        var last = String(path.split(separator: "/").last ?? "")
        if last.hasSuffix(".json") { last.removeLast(5) }
        return last
    }

    /// Open Library's own answer for a record it does not have.
    static func notFound(_ folder: String, _ id: String) -> FixtureResponse {
        encoded(["error": "notfound", "key": "/\(folder)/\(id)"], status: 404)
    }

    /// A work (`works`) or edition (`books`) record holding what the search doc says of it.
    static func record(folder: String, id: String, from doc: [String: Any]) -> FixtureResponse {
        var record: [String: Any] = [
            "key": "/\(folder)/\(id)", "type": ["key": folder == "works" ? "/type/work" : "/type/edition"],
            "title": doc["title"] as? String ?? id, "description": DemoRoutes.synthesisNotice,
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
        return encoded(record)
    }

    static func encoded(_ object: [String: Any], status: Int = 200) -> FixtureResponse {
        guard let data = try? JSONSerialization.data(withJSONObject: object) else {
            return .json(#"{"error":"demo record could not be written"}"#, status: 500)
        }
        return FixtureResponse(status: status, body: Array(data))
    }
}
