import Foundation
import OpenLibraryProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// Detail behaviour against small records of our own (always run).
@Suite("Open Library detail")
struct OpenLibraryDetailTests {
    static let work = """
        {"key": "/works/OL1W", "title": "A Work", "type": {"key": "/type/work"},
         "authors": [{"author": {"key": "/authors/OL1A"}, "type": {"key": "/type/author_role"}},
                     {"type": {"key": "/type/author_role"}, "author": {"key": "/authors/OL2A"}},
                     {"author": {"key": "/authors/OL3A"}}],
         "description": {"type": "/type/text", "value": "Told in\\r\\nparts."},
         "covers": [-1, 42, 43], "subjects": ["Fantasy", "fantasy", "Magic", "Fantasy"],
         "first_publish_date": "February 1983",
         "last_modified": {"type": "/type/datetime", "value": "2021-09-16T03:33:45.418961"}}
        """

    static func author(_ id: String, _ name: String) -> FixtureResponse {
        .json(#"{"key": "/authors/\#(id)", "name": "\#(name)", "type": {"key": "/type/author"}}"#)
    }

    static func redirect(_ folder: String, to target: String) -> FixtureResponse {
        .json(#"{"key": "x", "type": {"key": "/type/redirect"}, "location": "/\#(folder)/\#(target)"}"#)
    }

    @Test("a work's detail: description object, first positive cover, authors in order, deduplicated subjects")
    func workDetail() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(Self.work))
            // The first author answers last: the order still follows the work's.
            server.route("/authors/OL1A.json", Self.author("OL1A", "First Author"))
            server.route("/authors/OL1A.json", fault: .delay(.milliseconds(150)))
            server.route("/authors/OL2A.json", Self.author("OL2A", "Second Author"))
            server.route("/authors/OL3A.json", Self.author("OL3A", "Third Author"))
            let detail = try await provider.detail(olid("OL1W"))
            #expect(detail.item.id.description == "openlibrary:OL1W")
            #expect(detail.item.title == "A Work")
            #expect(detail.item.creators == ["First Author", "Second Author", "Third Author"])
            #expect(detail.contributors == [
                Contributor(name: "First Author", role: "author"),
                Contributor(name: "Second Author", role: "author"),
                Contributor(name: "Third Author", role: "author"),
            ])
            #expect(detail.description == "Told in\r\nparts.")
            #expect(detail.subjects == ["Fantasy", "Magic"])
            #expect(detail.publishDate == "February 1983")
            #expect(detail.item.year == 1983)
            #expect(detail.attributes["lastModified"] == "2021-09-16T03:33:45.418961")
            #expect(detail.item.images[.medium]?.url.absoluteString
                == server.baseURL.absoluteString + "/covers/b/id/42-M.jpg?default=false")
            #expect(detail.item.identifiers.other["openlibraryWork"] == "OL1W")
            #expect(detail.item.url?.absoluteString == server.baseURL.absoluteString + "/works/OL1W")
        }
    }

    @Test("an author that cannot be fetched is left out instead of failing the detail")
    func failingAuthorIsDropped() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(Self.work))
            server.route("/authors/OL1A.json", fault: .status(500))
            server.route("/authors/OL2A.json", .json(#"{"error": "notfound", "key": "/authors/OL2A"}"#, status: 404))
            server.route("/authors/OL3A.json", Self.author("OL3A", "Third Author"))
            let detail = try await provider.detail(olid("OL1W"))
            #expect(detail.item.creators == ["Third Author"])
        }
    }

    @Test("a string description, no covers and no authors are fine")
    func minimalWork() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL9W.json", .json(#"{"key": "/works/OL9W", "title": "Bare", "description": "Plain.", "covers": [-1]}"#))
            let detail = try await provider.detail(olid("OL9W"))
            #expect(detail.description == "Plain.")
            #expect(detail.item.images.isEmpty)
            #expect(detail.item.creators.isEmpty)
            #expect(server.totalRequestCount == 1)
        }
    }

    @Test("a redirect record is followed to the merged work")
    func followsRedirect() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", Self.redirect("works", to: "OL2W"))
            server.route("/works/OL2W.json", .json(#"{"key": "/works/OL2W", "title": "Merged", "type": {"key": "/type/work"}}"#))
            let detail = try await provider.detail(olid("OL1W"))
            #expect(detail.item.id.description == "openlibrary:OL2W")
            #expect(detail.item.title == "Merged")
            #expect(detail.attributes["redirectedFrom"] == "OL1W")
        }
    }

    @Test("a redirect loop stops at the hop limit with a typed error")
    func redirectLoop() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", Self.redirect("works", to: "OL2W"))
            server.route("/works/OL2W.json", Self.redirect("works", to: "OL1W"))
            let error = await #expect(throws: SeekError.self) {
                try await provider.detail(olid("OL1W"))
            }
            #expect(error?.kind == .network)
            #expect(error?.provider == "openlibrary")
            #expect(error?.detail.contains("too many redirects") == true)
            #expect(server.totalRequestCount == OpenLibraryProvider.maxRedirectHops + 1)
        }
    }

    @Test("a redirect without a usable location is undecodable")
    func redirectWithoutLocation() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(#"{"type": {"key": "/type/redirect"}, "location": "/authors/OL5A"}"#))
            let error = await #expect(throws: SeekError.self) {
                try await provider.detail(olid("OL1W"))
            }
            #expect(error?.kind == .undecodable)
        }
    }

    @Test("a deleted record is not found")
    func deletedRecord() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(#"{"key": "/works/OL1W", "type": {"key": "/type/delete"}}"#))
            let error = await #expect(throws: SeekError.self) {
                try await provider.detail(olid("OL1W"))
            }
            #expect(error?.kind == .notFound)
        }
    }

    @Test("404 notfound is a notFound error")
    func missingRecord() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL404W.json", .json(#"{"error": "notfound", "key": "/works/OL404W"}"#, status: 404))
            let error = await #expect(throws: SeekError.self) {
                try await provider.detail(olid("OL404W"))
            }
            #expect(error?.kind == .notFound)
            #expect(error?.provider == "openlibrary")
        }
    }

    @Test("a record of another type, or a body that is no record, is undecodable")
    func wrongRecordType() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(#"{"key": "/authors/OL1A", "name": "X", "type": {"key": "/type/author"}}"#))
            let wrongType = await #expect(throws: SeekError.self) { try await provider.detail(olid("OL1W")) }
            #expect(wrongType?.kind == .undecodable)
            server.route("/works/OL1W.json", .json(#"[1, 2, 3]"#))
            let notObject = await #expect(throws: SeekError.self) { try await provider.detail(olid("OL1W")) }
            #expect(notObject?.kind == .undecodable)
            server.route("/works/OL1W.json", fault: .malformedJSON)
            let malformed = await #expect(throws: SeekError.self) { try await provider.detail(olid("OL1W")) }
            #expect(malformed?.kind == .undecodable)
        }
    }

    @Test("an edition id reads /books, with ISBNs, publishers, pages and the work's authors when it names none")
    func editionDetail() async throws {
        let edition = """
            {"key": "/books/OL5M", "title": "Quiet", "subtitle": "The Power of Introverts",
             "works": [{"key": "/works/OL7W"}], "publishers": ["Broadway Books"], "number_of_pages": 352,
             "isbn_13": ["9780307352156"], "isbn_10": ["0307352153"], "publish_date": "2013",
             "covers": [7407084], "contributors": [{"name": "Someone", "role": "Cover Art"}],
             "type": {"key": "/type/edition"}}
            """
        try await withOpenLibrary { server, provider in
            server.route("/books/OL5M.json", .json(edition))
            server.route("/works/OL7W.json", .json(#"{"key": "/works/OL7W", "title": "Quiet", "authors": [{"author": {"key": "/authors/OL8A"}}]}"#))
            server.route("/authors/OL8A.json", Self.author("OL8A", "Susan Cain"))
            let detail = try await provider.detail(olid("OL5M"))
            #expect(detail.item.id.description == "openlibrary:OL5M")
            #expect(detail.item.creators == ["Susan Cain"])
            #expect(detail.item.identifiers.isbn13 == ["9780307352156"])
            #expect(detail.item.identifiers.other["openlibraryEdition"] == "OL5M")
            #expect(detail.item.identifiers.other["openlibraryWork"] == "OL7W")
            #expect(detail.item.year == 2013)
            #expect(detail.publishers == ["Broadway Books"])
            #expect(detail.pageCount == 352)
            #expect(detail.contributors.last == Contributor(name: "Someone", role: "Cover Art"))
            #expect(detail.item.url?.path == "/books/OL5M")
        }
    }

    @Test("ids that are not OL…W or OL…M are invalid input, with no request made",
          arguments: ["12345", "OL1A", "OLW", "OL12X", "OL1W/../../admin", "works", "ia:capitalism"])
    func invalidIDs(value: String) async throws {
        try await withOpenLibrary { server, provider in
            let error = await #expect(throws: SeekError.self) {
                try await provider.detail(olid(value))
            }
            #expect(error?.kind == .invalidInput)
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("another provider's id is invalid input, with no request made")
    func foreignID() async throws {
        try await withOpenLibrary { server, provider in
            let error = await #expect(throws: SeekError.self) {
                try await provider.detail(ItemID(provider: "giphy", value: "OL1W"))
            }
            #expect(error?.kind == .invalidInput)
            #expect(server.totalRequestCount == 0)
        }
    }
}
