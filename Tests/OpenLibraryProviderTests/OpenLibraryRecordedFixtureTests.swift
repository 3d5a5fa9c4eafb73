import Foundation
import OpenLibraryProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// The real recorded responses in ../shared/fixtures/openlibrary, served over loopback to the real
/// provider. Skipped when the shared fixtures are absent.
@Suite("Open Library recorded responses", .enabled(if: OpenLibraryFixtures.directory != nil))
struct OpenLibraryRecordedFixtureTests {
    // MARK: Every file

    @Test("every recorded file decodes through the provider, or fails with a typed error if it is no search, work, edition or author")
    func everyFile() async throws {
        let files = try OpenLibraryFixtures.all()
        #expect(files.count >= 29)
        try await withOpenLibrary { server, provider in
            for file in files {
                server.removeAllRoutes()
                OpenLibraryFixtures.serve(server, folder: "authors", kind: "author")
                OpenLibraryFixtures.serve(server, folder: "works", kind: "work")
                let name = file.lastPathComponent
                let json = try OpenLibraryFixtures.json(file)
                let response = try FixtureResponse.file(file.path)
                if name.hasPrefix("search_") {
                    try await checkSearch(file: name, json: json, response: response, server: server, provider: provider)
                } else if name.hasPrefix("work_editions_") || name.hasPrefix("api_books_") {
                    try await checkRejected(file: name, response: response, server: server, provider: provider)
                } else if name.hasPrefix("work_") {
                    try await checkWork(file: name, json: json, response: response, server: server, provider: provider)
                } else if name.hasPrefix("edition_") {
                    try await checkEdition(file: name, json: json, response: response, server: server, provider: provider)
                } else if name.hasPrefix("author_") {
                    try await checkAuthor(file: name, json: json, response: response, server: server, provider: provider)
                } else {
                    Issue.record("unclassified fixture \(name): teach this test where to serve it")
                }
            }
        }
    }

    private func checkSearch(
        file: String, json: JSONValue, response: FixtureResponse, server: FixtureServer, provider: OpenLibraryProvider
    ) async throws {
        server.route("/search.json", response)
        let page = try await provider.search(SearchRequest(query: "recorded"))
        let docs = json["docs"]?.arrayValue ?? []
        #expect(!page.items.isEmpty, "\(file)")
        #expect(page.items.count <= docs.count, "\(file)")
        #expect(page.total == (json["numFound"] ?? json["num_found"])?.intValue, "\(file)")
        for item in page.items {
            #expect(item.id.provider == "openlibrary", "\(file)")
            #expect(item.id.value.hasPrefix("OL") && (item.id.value.hasSuffix("W") || item.id.value.hasSuffix("M")), "\(file)")
            #expect(item.kind == .book, "\(file)")
            for url in item.images.values.map(\.url) {
                #expect(url.query == "default=false", "\(file)")
            }
        }
    }

    private func checkWork(
        file: String, json: JSONValue, response: FixtureResponse, server: FixtureServer, provider: OpenLibraryProvider
    ) async throws {
        let id = try #require(json["key"]?.stringValue?.split(separator: "/").last.map(String.init), "\(file)")
        server.route("/works/\(id).json", response)
        let detail = try await provider.detail(olid(id))
        #expect(detail.item.id.value == id, "\(file)")
        #expect(detail.item.title == json["title"]?.stringValue, "\(file)")
        #expect(detail.contributors.count == detail.item.creators.count, "\(file)")
        if let cover = json["covers"]?[0]?.intValue, cover > 0 {
            #expect(detail.item.images[.large]?.url.path == "/covers/b/id/\(cover)-L.jpg", "\(file)")
        }
    }

    private func checkEdition(
        file: String, json: JSONValue, response: FixtureResponse, server: FixtureServer, provider: OpenLibraryProvider
    ) async throws {
        let id = try #require(json["key"]?.stringValue?.split(separator: "/").last.map(String.init), "\(file)")
        server.route("/books/\(id).json", response)
        let detail = try await provider.detail(olid(id))
        #expect(detail.item.id.value == id, "\(file)")
        #expect(detail.item.title == json["title"]?.stringValue, "\(file)")
        let isbn13 = (json["isbn_13"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(Set(isbn13).isSubset(of: Set(detail.item.identifiers.isbn13)), "\(file)")
        #expect(detail.publishers == (json["publishers"]?.arrayValue ?? []).compactMap(\.stringValue), "\(file)")
        #expect(detail.publishDate == json["publish_date"]?.stringValue, "\(file)")
    }

    /// Authors are read as part of a work's detail: a work naming only this author gets its name.
    private func checkAuthor(
        file: String, json: JSONValue, response: FixtureResponse, server: FixtureServer, provider: OpenLibraryProvider
    ) async throws {
        let key = try #require(json["key"]?.stringValue, "\(file)")
        server.route("\(key).json", response)
        server.route("/works/OL1W.json", .json(#"{"key": "/works/OL1W", "title": "T", "authors": [{"author": {"key": "\#(key)"}}]}"#))
        let name = try #require(json["name"]?.stringValue, "\(file)")
        let detail = try await provider.detail(olid("OL1W"))
        #expect(detail.item.creators == [name], "\(file)")
    }

    /// Bodies of other endpoints (edition lists, the legacy books API) are typed errors wherever served.
    private func checkRejected(
        file: String, response: FixtureResponse, server: FixtureServer, provider: OpenLibraryProvider
    ) async throws {
        server.route("/search.json", response)
        server.route("/works/OL27258W.json", response)
        server.route("/books/OL16262504M.json", response)
        let calls: [@Sendable () async throws -> Void] = [
            { _ = try await provider.search(SearchRequest(query: "recorded")) },
            { _ = try await provider.detail(olid("OL27258W")) },
            { _ = try await provider.detail(olid("OL16262504M")) },
        ]
        for call in calls {
            let error = await #expect(throws: SeekError.self, "\(file)") { try await call() }
            #expect(error?.kind == .undecodable, "\(file)")
            #expect(error?.provider == "openlibrary", "\(file)")
        }
    }

    // MARK: Search

    @Test("a 2025 search: work id, creators, year, and cover URLs by cover id with default=false")
    func lordOfTheRings() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", try .file(OpenLibraryFixtures.path("search_q_the_lord_of_the_rings_default_fields_2025_inline.json")))
            let page = try await provider.search(SearchRequest(query: "the lord of the rings", limit: 1))
            let request = try #require(server.requests.first)
            #expect(request.queryValue("q") == "the lord of the rings")
            #expect(request.queryValue("fields")?.split(separator: ",").contains("isbn") == true)
            #expect(request.queryValue("limit") == "1")
            #expect(request.queryValue("offset") == "0")
            let item = try #require(page.items.first)
            #expect(item.id.description == "openlibrary:OL27448W")
            #expect(item.title == "The Lord of the Rings")
            #expect(item.creators == ["J.R.R. Tolkien"])
            #expect(item.year == 1954)
            #expect(item.images[.small]?.url.absoluteString
                == server.baseURL.absoluteString + "/covers/b/id/14625765-S.jpg?default=false")
            #expect(item.images[.original]?.url.absoluteString
                == server.baseURL.absoluteString + "/covers/b/id/14625765.jpg?default=false")
            #expect(page.total == 812)
            #expect(page.next == "1")
        }
    }

    @Test("ISBNs of a search doc become verified ISBN-13s")
    func isbnsFromSearch() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", try .file(OpenLibraryFixtures.path("search_q_denver_co_limit5_2022-09_teecaud_vcr.json")))
            let page = try await provider.search(SearchRequest(query: "denver, co", limit: 5))
            let item = try #require(page.items.first)
            #expect(item.id.description == "openlibrary:OL896607W")
            #expect(item.subtitle == "39105, digital raster graphic data")
            #expect(item.identifiers.isbn13 == ["9780607620054"])
            #expect(item.identifiers.isbn10 == ["0607620056"])
            #expect(item.creators == ["United States Geological Survey"])
            #expect(page.items.count == 5)
        }
    }

    @Test("2013 bare keys are normalised and IA-only docs left out")
    func search2013() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/search.json", try .file(OpenLibraryFixtures.path("search_q_capitalism_and_freedom_2013_jayfajardo.json")))
            let page = try await provider.search(SearchRequest(query: "capitalism and freedom", limit: 100))
            #expect(page.items.count == 85)  // 88 docs, 3 of them `ia:…` scans with no Open Library record
            let item = try #require(page.items.first)
            #expect(item.id.description == "openlibrary:OL2747782W")
            #expect(item.creators == ["Milton Friedman"])
            #expect(item.year == 1962)
            #expect(item.identifiers.isbn13.contains("9780226264202"))
            #expect(page.total == 88)
            #expect(page.next == nil)
        }
    }

    // MARK: Detail

    @Test("detail of OL45804W: Fantastic Mr Fox with its description and Roald Dahl from the author record")
    func fantasticMrFox() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL45804W.json", try .file(OpenLibraryFixtures.path("work_OL45804W_fantastic_mr_fox_string_description_2023_librarian_pyliteral.json")))
            server.route("/authors/OL34184A.json", try .file(OpenLibraryFixtures.path("author_OL34184A_roald_dahl_2023_librarian_pyliteral.json")))
            let detail = try await provider.detail(olid("OL45804W"))
            #expect(detail.item.id.description == "openlibrary:OL45804W")
            #expect(detail.item.title == "Fantastic Mr Fox")
            #expect(detail.item.creators == ["Roald Dahl"])
            #expect(detail.contributors == [Contributor(name: "Roald Dahl", role: "author")])
            #expect(detail.description?.hasPrefix("The main character of Fantastic Mr. Fox") == true)
            #expect(detail.subjects.count == 31)
            #expect(detail.item.images[.medium]?.url.path == "/covers/b/id/6498519-M.jpg")
            #expect(detail.attributes["lastModified"] == "2022-11-14T19:55:19.965480")
        }
    }

    @Test("a description object, and subjects de-duplicated regardless of case")
    func sabriel() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL15832982W.json", try .file(OpenLibraryFixtures.path("work_OL15832982W_sabriel_bookwyrm.json")))
            let detail = try await provider.detail(olid("OL15832982W"))
            #expect(detail.description == "First in the Old Kingdom/Abhorsen series.")
            #expect(detail.subjects.count == 6)
            #expect(detail.publishDate == "1995")
            #expect(detail.item.year == 1995)
            #expect(detail.item.creators.isEmpty)  // the author record is not among the fixtures: 404, dropped
        }
    }

    @Test("an edition from /books: ISBNs, publisher, date, its work, and its author's name")
    func dorsaiEdition() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/books/OL8131917M.json", try .file(OpenLibraryFixtures.path("edition_isbn_0879973420_dorsai_2024_bookmind.json")))
            server.route("/authors/OL25176A.json", try .file(OpenLibraryFixtures.path("author_OL25176A_gordon_dickson_2024_bookmind.json")))
            let detail = try await provider.detail(olid("OL8131917M"))
            #expect(detail.item.title == "Dorsai!")
            #expect(detail.item.creators == ["Gordon R. Dickson"])
            #expect(detail.item.identifiers.isbn13 == ["9780879973421"])
            #expect(detail.item.identifiers.isbn10 == ["0879973420"])
            #expect(detail.item.identifiers.other["openlibraryWork"] == "OL155455W")
            #expect(detail.publishers == ["DAW"])
            #expect(detail.publishDate == "November 15, 1977")
            #expect(detail.item.year == 1977)
            #expect(detail.attributes["firstSentence"] == "The boy was odd.")
        }
    }

    @Test("an edition that names no authors takes them from its work")
    func quietEdition() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/books/OL25613310M.json", try .file(OpenLibraryFixtures.path("edition_isbn_9780307352156_quiet_2024_bookmind.json")))
            server.route("/works/OL16484595W.json", try .file(OpenLibraryFixtures.path("work_OL16484595W_quiet_no_description_2024_bookmind.json")))
            server.route("/authors/OL7071534A.json", .json(#"{"key": "/authors/OL7071534A", "name": "Susan Cain", "type": {"key": "/type/author"}}"#))
            let detail = try await provider.detail(olid("OL25613310M"))
            #expect(detail.item.creators == ["Susan Cain"])
            #expect(detail.item.subtitle == "The Power of Introverts in a World That Can't Stop Talking")
            #expect(detail.pageCount == 352)
            #expect(server.requestCount(path: "/works/OL16484595W.json") == 1)
        }
    }
}
