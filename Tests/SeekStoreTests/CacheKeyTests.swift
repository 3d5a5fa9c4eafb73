import Foundation
import SeekKit
import SeekLoopback
@testable import SeekStore
import Testing

@Suite("Response-cache keys")
struct CacheKeyTests {
    /// What the keys were made with before: a key must read the same, or every stored answer misses.
    private func encodedByJSONEncoder(_ parts: [String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(parts), as: UTF8.self)
    }

    @Test("a key's text is the one JSONEncoder wrote, whatever characters its parts hold")
    func sameTextAsBefore() throws {
        let awkward = [
            "search", "openlibrary", "https://openlibrary.org/search.json", "dune messiah",
            "quote \" backslash \\ slash /", "tab\tnewline\nreturn\r", "bell\u{07} escape\u{1B} unit\u{1F} del\u{7F}",
            "back\u{08}space form\u{0C}feed", "café 한국어 📚", "line\u{2028}separator", "",
        ]
        for part in awkward {
            #expect(CacheKey.encode(["search", part]) == (try encodedByJSONEncoder(["search", part])), "part: \(part.debugDescription)")
        }
        #expect(CacheKey.encode(awkward) == (try encodedByJSONEncoder(awkward)))
    }

    @Test("parts that would run together as text stay apart")
    func partsStayApart() {
        #expect(CacheKey.encode(["a,b", "c"]) != CacheKey.encode(["a", "b,c"]))
        #expect(CacheKey.encode(["a\"", "b"]) != CacheKey.encode(["a", "\"b"]))
    }
}
