import Foundation
import OpenLibraryProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// Small Open Library bodies of the project's own, in the real API's shapes.
private enum ConformanceSamples {
    static let search = """
    {"numFound": 2, "start": 0, "numFoundExact": true, "num_found": 2, "q": "fox", "offset": null,
     "docs": [
      {"key": "/works/OL45804W", "title": "Fantastic Mr Fox", "author_name": ["Roald Dahl"], "author_key": ["OL34184A"],
       "first_publish_year": 1970, "cover_i": 6498519, "isbn": ["0140328726", "9780140328721"]},
      {"key": "/works/OL27448W", "title": "The Lord of the Rings", "author_name": ["J.R.R. Tolkien"],
       "first_publish_year": 1954, "cover_i": 14625765}
     ]}
    """
    static let empty = #"{"numFound": 0, "start": 0, "numFoundExact": true, "num_found": 0, "q": "zzqxj", "docs": []}"#
    static let work = """
    {"title": "Fantastic Mr Fox", "key": "/works/OL45804W",
     "authors": [{"author": {"key": "/authors/OL34184A"}, "type": {"key": "/type/author_role"}}],
     "type": {"key": "/type/work"}, "description": {"type": "/type/text", "value": "A clever fox."},
     "covers": [6498519, -1], "created": {"type": "/type/datetime", "value": "2009-10-15T11:34:21.437031"}}
    """
    static let author = #"{"name": "Roald Dahl", "key": "/authors/OL34184A", "type": {"key": "/type/author"}}"#
}

@Suite("Open Library conformance")
struct OpenLibraryConformanceTests {
    static let kit = ProviderConformance(
        factory: OpenLibraryProvider.factory,
        environment: { base in
            ["SEEK_OPENLIBRARY_URL": base.appendingPathComponent("ol").absoluteString,
             "SEEK_OPENLIBRARY_COVERS_URL": base.appendingPathComponent("covers").absoluteString]
        },
        query: "fox",
        search: .json([
            "/ol/search.json": ConformanceSamples.search,
            "/ol/works/OL45804W.json": ConformanceSamples.work,
            "/ol/authors/OL34184A.json": ConformanceSamples.author,
        ]),
        emptyQuery: "zzqxj",
        emptySearch: .json(["/ol/search.json": ConformanceSamples.empty]),
        errors: [
            ConformanceErrorCase(
                "a search that fails on the server", call: .search("fox"),
                recording: .json(["/ol/search.json": #"{"error": "Internal Server Error"}"#]), expect: .status(.error)),
            ConformanceErrorCase(
                "an unknown work", call: .detail(ItemID(provider: "openlibrary", value: "OL1W")),
                recording: .responses(["/ol/works/OL1W.json": .json(#"{"error": "notfound", "key": "/works/OL1W"}"#, status: 404)]),
                expect: .kind(.notFound)),
        ])

    @Test("Open Library passes the conformance kit")
    func conformance() async {
        let report = await Self.kit.run()
        #expect(report.passed, "\(report)")
    }
}
