import Foundation
import SeekKit

/// What `--demo` serves for GIPHY: the recordings in Demo/ (see its PROVENANCE.md), any GIF they
/// hold as GIPHY's single-object answer, and a stand-in key.
extension GiphyProvider {
    static let demo = ProviderDemo(
        settings: [urlVariable: .url(path: ""), keyVariable: .standInKey],
        routes: [
            DemoRoute("/v1/gifs/search", answer: GiphyDemo.search),
            DemoRoute("/v1/gifs/trending") { request in
                .sliced(GiphyDemo.recording(GiphyDemo.trendingFile), named: GiphyDemo.trendingFile, key: "data",
                        offset: request.integer("offset") ?? 0, limit: request.integer("limit") ?? Int.max)
            },
            DemoRoute("/v1/gifs/search/tags", .json(#"{"data": [], "meta": {"status": 200, "msg": "OK"}}"#)),
            DemoRoute("/v1/gifs/*", answer: GiphyDemo.gif),
        ],
        sampleQueries: GiphyDemo.sampleQueries,
        recording: GiphyDemo.recording)
}

/// GIPHY's demo answers, in the API's own shapes.
enum GiphyDemo {
    static let searchFile = "search_2017-05_lukewinikates_legacy.json"
    static let trendingFile = "trending_limit25_2019-08_netguru_escaped_slashes.json"
    /// Searches the recordings answer (`search(_:)`: a query holding "cat").
    static let sampleQueries = ["cats"]

    static func recording(_ file: String) -> String? { EmbeddedFiles.text("Demo/" + file) }

    static func search(_ request: DemoRequest) -> DemoAnswer {
        guard (request.queryValue("q") ?? "").lowercased().contains("cat") else {
            return .json(#"{"data": [], "pagination": {"total_count": 0, "count": 0, "offset": 0}, "meta": {"status": 200, "msg": "OK"}}"#)
        }
        return .sliced(recording(searchFile), named: searchFile, key: "data", offset: request.integer("offset") ?? 0, limit: request.integer("limit") ?? Int.max)
    }

    /// `/v1/gifs/{id}`: GIPHY's single-object answer, built from the recorded lists.
    static func gif(_ request: DemoRequest) -> DemoAnswer {
        let id = request.lastSegment
        guard var gif = ProviderDemo.entry(in: [recording(searchFile), recording(trendingFile)], key: "data", where: { $0["id"] as? String == id }) else {
            return .json(#"{"data": [], "meta": {"msg": "Not Found", "status": 404, "response_id": "demo", "error_code": "404"}}"#, status: 404)
        }
        gif = withoutImages(gif)
        gif["alt_text"] = ProviderDemo.noted(gif["alt_text"] as? String)
        return .object(["data": gif, "meta": ["status": 200, "msg": "OK", "response_id": "demo"] as [String: Any]])
    }

    /// A GIPHY object without its renditions (`images`, and the 2016 flat `…_url` ones): no image bytes are
    /// recorded, and an image is fetched from the URL the detail gives. Its page links stay.
    static func withoutImages(_ gif: [String: Any]) -> [String: Any] {
        gif.filter { key, _ in key != "images" && !(key.hasSuffix("_url") && !["embed_url", "bitly_url", "source_post_url"].contains(key)) }
    }
}
