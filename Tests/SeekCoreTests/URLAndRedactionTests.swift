import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import Testing

@Suite("URL building and redaction")
struct URLAndRedactionTests {
    @Test("a base URL's path is kept when a path is appended")
    func basePathKept() throws {
        let base = try #require(URL(string: "http://www.aladin.co.kr/ttb/api"))
        let url = base.appending(path: "ItemSearch.aspx", query: [("Query", "해리 포터"), ("start", "1"), ("skip", nil)])
        #expect(url.absoluteString.hasPrefix("http://www.aladin.co.kr/ttb/api/ItemSearch.aspx?"))
        #expect(url.absoluteString.contains("start=1"))
        #expect(!url.absoluteString.contains("skip"))
        let local = try #require(URL(string: "http://127.0.0.1:8080/ol/"))
        #expect(local.appending(path: "/search.json", query: []).absoluteString == "http://127.0.0.1:8080/ol/search.json")
    }

    @Test("appending a path without a query gives the same URL as through URLComponents")
    func pathOnlyAppending() throws {
        let cases: [(String, String, String)] = [
            ("https://covers.openlibrary.org", "/b/id/12", "https://covers.openlibrary.org/b/id/12"),
            ("https://covers.openlibrary.org//", "b/id/12", "https://covers.openlibrary.org/b/id/12"),
            ("http://127.0.0.1:8080/ol", "works/OL1W", "http://127.0.0.1:8080/ol/works/OL1W"),
            ("http://h/x", "", "http://h/x"),
            ("http://h/x?keep=1", "/y", "http://h/x/y?keep=1"),
        ]
        for (base, path, expected) in cases {
            let url = try #require(URL(string: base))
            #expect(url.appending(path: path, query: []).absoluteString == expected)
            #expect(url.appending(path: path, query: [("unset", nil)]).absoluteString == expected)
        }
    }

    @Test("a path appended as text gives the text of the URL appending(path:query:) gives")
    func pathAppendedAsText() throws {
        for (base, path) in [
            ("https://covers.openlibrary.org", "/b/id/12"), ("https://openlibrary.org//", "works/OL1W"),
            ("http://127.0.0.1:8080/ol", "/works/OL1W"), ("http://h/x", ""), ("http://h/x?keep=1", "/y"),
            ("http://h/x#frag", "/y"), ("http://h/x", "/a b"), ("http://h/x", "/é"),
        ] {
            let url = try #require(URL(string: base))
            #expect(url.appendingAddress(path: path).text == url.appending(path: path, query: []).absoluteString, "\(base) + \(path)")
        }
    }

    @Test("a plus sign in a query value is percent-encoded")
    func plusEncoded() throws {
        let base = try #require(URL(string: "http://h/x"))
        #expect(base.appending(path: "s", query: [("q", "c++")]).absoluteString == "http://h/x/s?q=c%2B%2B")
    }

    @Test("key-bearing query parameters are redacted from printed URLs")
    func urlRedaction() throws {
        let url = try #require(URL(string: "https://api.giphy.com/v1/gifs/search?api_key=SECRET123&q=cat"))
        let printed = Redaction.redact(url: url)
        #expect(!printed.contains("SECRET123"))
        #expect(printed.contains("q=cat"))
    }

    @Test("known secrets and key parameters are redacted from free text")
    func textRedaction() {
        let text = "failed GET /ttb/api/ItemSearch.aspx?ttbkey=ttbABCDEF1234&Query=x, echo ttbABCDEF1234"
        let redacted = Redaction.redact(text, secrets: ["ttbABCDEF1234"])
        #expect(!redacted.contains("ttbABCDEF1234"))
        #expect(redacted.contains("Query=x"))
    }

    @Test("Retry-After is read as seconds or as an HTTP date")
    func retryAfter() throws {
        #expect(HTTPResponse(status: 429, headers: ["Retry-After": "30"]).retryAfter() == 30)
        let now = Date(timeIntervalSince1970: 1_000_000)
        let later = HTTPDate.format(now.addingTimeInterval(120))
        let seconds = try #require(HTTPResponse(status: 429, headers: ["retry-after": later]).retryAfter(now: now))
        #expect(abs(seconds - 120) < 1)
        #expect(HTTPResponse(status: 429, headers: ["Retry-After": "soon"]).retryAfter() == nil)
    }

    @Test("item ids parse as provider:value and reject malformed text")
    func itemIDs() {
        #expect(ItemID(parsing: "openlibrary:OL45804W") == ItemID(provider: "openlibrary", value: "OL45804W"))
        #expect(ItemID(parsing: "giphy:abc:def")?.value == "abc:def")
        #expect(ItemID(parsing: "nocolon") == nil)
        #expect(ItemID(parsing: ":x") == nil)
        #expect(ItemID(parsing: "x:") == nil)
    }
}
