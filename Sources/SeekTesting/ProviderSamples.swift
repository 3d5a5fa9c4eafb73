import Foundation
import SeekLoopback

/// Small bodies of the project's own, in the shapes of Open Library, GIPHY and Aladin.
public enum ProviderSamples {
    public static let giphyPath = "/giphy/v1/gifs/search"
    public static let aladinPath = "/aladin/ttb/api/ItemSearch.aspx"
    public static let keys = ["SEEK_GIPHY_API_KEY": "giphy-test-key", "SEEK_ALADIN_TTB_KEY": "aladin-test-key"]

    public static func olDoc(_ number: Int, title: String, isbns: [String] = [], year: Int? = nil) -> String {
        let isbnList = isbns.map { "\"\($0)\"" }.joined(separator: ",")
        return """
        {"key": "/works/OL\(number)W", "title": "\(title)", "author_name": ["Author \(number)"],
         "first_publish_year": \(year.map(String.init) ?? "null"), "isbn": [\(isbnList)]}
        """
    }

    public static func openLibrary(_ docs: [String], total: Int? = nil, offset: Int = 0) -> String {
        #"{"numFound": \#(total ?? docs.count), "start": \#(offset), "docs": [\#(docs.joined(separator: ","))]}"#
    }

    /// `count` works served by `offset` and `limit`; with `drift`, pages after the first start that many early.
    public static func serveManyWorks(_ server: FixtureServer, count: Int, drift: Int = 0) {
        server.route("/ol/search.json") { request in
            let offset = Int(request.queryValue("offset") ?? "") ?? 0
            let limit = Int(request.queryValue("limit") ?? "") ?? 100
            let start = min(count, max(0, offset - (offset > 0 ? drift : 0)))
            let end = min(count, start + limit)
            let docs = (start..<end).map { olDoc($0 + 1, title: "Work \($0 + 1)") }
            return .json(openLibrary(docs, total: count, offset: offset))
        }
    }

    public static func giphy(_ ids: [String]) -> String {
        let gifs = ids.map { id in
            """
            {"type":"gif","id":"\(id)","url":"https://giphy.com/gifs/\(id)","title":"GIF \(id)","rating":"g",
             "images":{"fixed_width":{"url":"https://media.giphy.com/media/\(id)/200w.gif","width":"200","height":"150"},
                       "original":{"url":"https://media.giphy.com/media/\(id)/giphy.gif","width":"480","height":"360"}}}
            """
        }
        return """
        {"data":[\(gifs.joined(separator: ","))],"pagination":{"total_count":\(ids.count),"count":\(ids.count),"offset":0},
         "meta":{"status":200,"msg":"OK","response_id":"r"}}
        """
    }

    public static func aladinItem(isbn13: String, title: String, itemId: Int, pubDate: String = "2020-01-01") -> String {
        """
        {"title":"\(title)","link":"http://www.aladin.co.kr/shop/wproduct.aspx?ItemId=\(itemId)","author":"저자 (지은이)",
         "pubDate":"\(pubDate)","isbn":"","isbn13":"\(isbn13)","itemId":\(itemId),
         "cover":"https://image.aladin.co.kr/product/\(itemId)/cover.jpg","publisher":"출판사"}
        """
    }

    public static func aladin(_ items: [String]) -> String {
        """
        {"version":"20131101","totalResults":\(items.count),"startIndex":1,"itemsPerPage":\(items.count),
         "query":"q","item":[\(items.joined(separator: ","))]}
        """
    }
}

/// Small Open Library bodies of the project's own, in the real API's shapes.
public enum OpenLibrarySamples {
    public static let search = """
    {"numFound": 2, "start": 0, "numFoundExact": true, "num_found": 2, "q": "harbor", "offset": null,
     "docs": [
      {"key": "/works/OL27448W", "title": "The Lord of the Rings", "author_name": ["J.R.R. Tolkien"],
       "author_key": ["OL26320A"], "first_publish_year": 1954, "cover_i": 14625765,
       "isbn": ["0618640150", "9780618640157"], "edition_count": 251},
      {"key": "/works/OL45804W", "title": "Fantastic Mr Fox", "author_name": ["Roald Dahl"],
       "first_publish_year": 1970, "cover_i": 6498519, "isbn": ["0140328726"]}
     ]}
    """
    public static let work = """
    {"title": "Fantastic Mr Fox", "key": "/works/OL45804W",
     "authors": [{"author": {"key": "/authors/OL34184A"}, "type": {"key": "/type/author_role"}}],
     "type": {"key": "/type/work"}, "description": "The main character of Fantastic Mr. Fox is a fox.",
     "covers": [6498519, -1], "subjects": ["Foxes", "Farmers"], "first_publish_date": "1970",
     "created": {"type": "/type/datetime", "value": "2009-10-15T11:34:21.437031"}}
    """
    public static let author = """
    {"name": "Roald Dahl", "key": "/authors/OL34184A", "type": {"key": "/type/author"}}
    """
    /// A tiny but real JPEG header followed by filler bytes.
    public static let coverBytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + (0..<2000).map { UInt8($0 % 251) }
    public static let emptySearch = #"{"numFound": 0, "start": 0, "num_found": 0, "docs": []}"#
}
