import Foundation
import SeekConfig
import SeekCore
import SeekHTTP
import SeekJSON
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

    /// Starts the demo server; `shutdown()` ends it.
    public static func start() async throws -> DemoMode {
        let recordings = DemoRecordings()
        let server = try await FixtureServer.start()
        DemoRoutes.install(on: server, recordings: recordings)
        return DemoMode(server: server, overrides: [
            "SEEK_OPENLIBRARY_URL": server.url("/openlibrary").absoluteString,
            "SEEK_OPENLIBRARY_COVERS_URL": server.url("/covers").absoluteString,
            "SEEK_GIPHY_URL": server.url("/giphy").absoluteString,
            "SEEK_GIPHY_API_KEY": "demo",
            "SEEK_ALADIN_URL": server.url("/aladin").absoluteString,
            "SEEK_ALADIN_TTB_KEY": "demo",
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
enum DemoRoutes {
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
        server.route("/openlibrary/works/OL45804W.json", json("openlibrary", "work_OL45804W_fantastic_mr_fox_string_description_2023_librarian_pyliteral.json"))
        server.route("/openlibrary/works/OL15832982W.json", json("openlibrary", "work_OL15832982W_sabriel_bookwyrm.json"))
        server.route("/openlibrary/authors/OL34184A.json", json("openlibrary", "author_OL34184A_roald_dahl_2023_librarian_pyliteral.json"))

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
            switch request.queryValue("ItemId") ?? "" {
            case "9791130605210": return json("aladin", "lookup_isbn13_9791130605210_ove_2024-08_devcorgi.json")
            case "9791130607887": return json("aladin", "lookup_isbn13_9791130607887_2024-08_devcorgi.json")
            default: return .json(#"{"errorCode": 8, "errorMessage": "존재하지 않는 상품입니다. (demo: no recording)"}"#)
            }
        })
    }
}
