import Foundation
import SeekKit

/// What `--demo` serves for Aladin: the recordings in Demo/ (see its PROVENANCE.md), any book they hold
/// as an `ItemLookUp` answer, and a stand-in key.
extension AladinProvider {
    static let demo = ProviderDemo(
        settings: [urlVariable: .url(path: ""), keyVariable: .standInKey],
        routes: [
            DemoRoute("/ItemSearch.aspx", answer: AladinDemo.search),
            DemoRoute("/ItemList.aspx") { request in
                .sliced(AladinDemo.recording(AladinDemo.bestsellersFile), named: AladinDemo.bestsellersFile, key: "item",
                        offset: 0, limit: request.integer("MaxResults") ?? Int.max)
            },
            DemoRoute("/ItemLookUp.aspx", answer: AladinDemo.lookup),
        ],
        sampleQueries: AladinDemo.sampleQueries,
        recording: AladinDemo.recording)
}

/// Aladin's demo answers, in the API's own shapes.
enum AladinDemo {
    static let lookups = [
        "9791130605210": "lookup_isbn13_9791130605210_ove_2024-08_devcorgi.json",
        "9791130607887": "lookup_isbn13_9791130607887_2024-08_devcorgi.json",
        "9791191851069": "lookup_isbn13_9791191851069_ebookList_usedList_2021-11_inline.json",
    ]
    static let searchFile = "search_keyword_widaehan_iyagi_2021-11_inline_escaped_slashes.json"
    static let bestsellersFile = "list_bestseller_cid1_2024-09_devcorgi.json"
    /// Searches the recordings answer (`search(_:)`: a query holding 위대한 or 이야기), the recorded
    /// search's own keyword.
    static let sampleQueries = ["위대한 이야기"]

    static func recording(_ file: String) -> String? { EmbeddedFiles.text("Demo/" + file) }

    static func search(_ request: DemoRequest) -> DemoAnswer {
        let query = request.queryValue("Query") ?? ""
        guard query.contains("위대한") || query.contains("이야기") else {
            return .json(#"{"version": "20131101", "totalResults": 0, "startIndex": 1, "itemsPerPage": 10, "query": "", "item": []}"#)
        }
        return .sliced(recording(searchFile), named: searchFile, key: "item", offset: 0, limit: request.integer("MaxResults") ?? Int.max)
    }

    /// A recorded lookup (without covers), else one built from the search or list answer that holds the book.
    static func lookup(_ request: DemoRequest) -> DemoAnswer {
        let id = request.queryValue("ItemId") ?? ""
        if let file = lookups[id] {
            guard let text = recording(file), var lookup = ProviderDemo.object(text), let items = lookup["item"] as? [[String: Any]] else {
                return .recording(recording(file), named: file)
            }
            lookup["item"] = items.map(withoutCover)
            return .object(lookup)
        }
        let found = ProviderDemo.entry(in: [recording(searchFile), recording(bestsellersFile)], key: "item") { book in
            [book["isbn13"], book["isbn"], book["itemId"]].contains { value in value.map { "\($0)" } == id }
        }
        guard let found else {
            return .json(#"{"errorCode": 8, "errorMessage": "존재하지 않는 상품입니다. (demo: no recording)"}"#)
        }
        var book = withoutCover(found)
        book["description"] = ProviderDemo.noted(book["description"] as? String)
        return .object(["version": "20131101", "totalResults": 1, "startIndex": 1, "itemsPerPage": 1, "query": "", "item": [book]])
    }

    /// An Aladin item without its cover URL: no image bytes are recorded, and an image is fetched from the
    /// URL the detail gives (a real host's would be a network call).
    static func withoutCover(_ book: [String: Any]) -> [String: Any] {
        var book = book
        book["cover"] = nil
        return book
    }
}
