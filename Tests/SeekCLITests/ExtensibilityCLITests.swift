import Foundation
import SeekCLI
import SeekTesting
import Testing

/// The `seek-itbook` example executable beside `seek`, if it was built.
private var seekITBookURL: URL? {
    SeekBinary.url.map { $0.deletingLastPathComponent().appendingPathComponent("seek-itbook") }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
}

private enum ExtensibilitySamples {
    /// An Open Library search whose first work lists the ISBN-10 of the IT Bookstore's book.
    static let openLibrary = """
    {"numFound": 2, "start": 0, "num_found": 2, "docs": [
      {"key": "/works/OL20126W", "title": "Securing DevOps", "author_name": ["Julien Vehent"], "first_publish_year": 2018,
       "isbn": ["1617294136"]},
      {"key": "/works/OL999W", "title": "Another Book", "author_name": ["Someone Else"], "first_publish_year": 2001}]}
    """
    static let itbook = """
    {"error": "0", "total": "2", "page": "1", "books": [
      {"title": "Securing DevOps", "subtitle": "Security in the Cloud", "isbn13": "9781617294136", "price": "$26.98",
       "image": "https://itbook.store/img/books/9781617294136.png", "url": "https://itbook.store/books/9781617294136"},
      {"title": "Learning Go", "subtitle": "", "isbn13": "9781492077213", "price": "$29.99",
       "image": "https://itbook.store/img/books/9781492077213.png", "url": "https://itbook.store/books/9781492077213"}]}
    """
    static let book = """
    {"error": "0", "title": "Securing DevOps", "subtitle": "Security in the Cloud", "authors": "Julien Vehent",
     "publisher": "Manning", "isbn10": "1617294136", "isbn13": "9781617294136", "pages": "384", "year": "2018",
     "rating": "5", "desc": "An application running in the cloud…", "price": "$26.98",
     "image": "https://itbook.store/img/books/9781617294136.png", "url": "https://itbook.store/books/9781617294136"}
    """

    static func declaration(_ server: FixtureServer, id: String = "itjson", extra: String = "") -> String {
        """
        { "id": "\(id)", "name": "IT Bookstore (config)", "kind": "book",
          "searchURL": "\(server.url("/it").absoluteString)/search/{query}/{page}",
          "detailURL": "\(server.url("/it").absoluteString)/books/{id}",
          "itemsPath": "books", "totalPath": "total",
          "fields": { "id": "isbn13", "title": "title", "subtitle": "subtitle", "isbn": "isbn13",
                      "image": "image", "url": "url", "creators": "authors", "year": "year" }\(extra) }
        """
    }

    static func config(_ harness: CLIHarness, _ declarations: [String]) throws -> [String: String] {
        let file = harness.home.appendingPathComponent("config.json")
        try Data(#"{"jsonProviders": [\#(declarations.joined(separator: ","))]}"#.utf8).write(to: file)
        return ["SEEK_CONFIG": file.path, "SEEK_NO_CACHE": "1"]
    }
}

@Suite("Extending seek: config-declared providers and seek-itbook")
struct ExtensibilityCLITests {
    @Test("a provider declared in the config file searches, merges and details with no Swift")
    func declaredProviderSearchesAndDetails() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(ExtensibilitySamples.openLibrary))
        harness.server.route("/it/search/devops/1", .json(ExtensibilitySamples.itbook))
        harness.server.route("/it/books/9781617294136", .json(ExtensibilitySamples.book))
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server)])
        let search = await harness.run(["search", "devops", "--providers", "openlibrary,itjson", "--format", "json"], environment: environment)
        let detail = await harness.run(["detail", "itjson:9781617294136", "--format", "json"], environment: environment)
        let providers = await harness.run(["providers", "--format", "json"], environment: environment)
        try await harness.stop()
        #expect(search.code == 0, "stderr: \(search.stderr)")
        let items = search.json?["items"] as? [[String: Any]] ?? []
        #expect(items.count == 3, "one row per book: \(items.compactMap { $0["id"] })")
        let merged = items.first { ($0["sources"] as? [[String: Any]])?.count == 2 }
        let sources = (merged?["sources"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(Set(sources ?? []) == ["openlibrary:OL20126W", "itjson:9781617294136"])
        #expect(detail.code == 0, "stderr: \(detail.stderr)")
        #expect(detail.json?["title"] as? String == "Securing DevOps")
        #expect(providers.stdout.contains("itjson"))
    }

    @Test("a mistake in a declaration stops seek with exit 64 and a line naming the provider and the field")
    func badDeclarationIsAUsageError() async throws {
        let harness = try await CLIHarness.start()
        let bad = ExtensibilitySamples.declaration(harness.server, extra: #", "trendingURL": "http://x/{nope}""#)
        let environment = try ExtensibilitySamples.config(harness, [bad])
        let result = await harness.run(["search", "devops"], environment: environment)
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("itjson") && result.stderr.contains("trendingURL"), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
    }

    @Test("a declaration that takes a built-in provider's id is refused, not silently dropped")
    func builtInIDIsRefused() async throws {
        let harness = try await CLIHarness.start()
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server, id: "openlibrary")])
        let result = await harness.run(["providers"], environment: environment)
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("openlibrary"), "stderr: \(result.stderr)")
    }

    @Test("seek-itbook: IT Bookstore's books merge with Open Library's by ISBN-13",
          .enabled(if: seekITBookURL != nil, "the seek-itbook executable was not built"))
    func seekITBookMergesWithOpenLibrary() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(ExtensibilitySamples.openLibrary))
        harness.server.route("/itbook/search/devops", .json(ExtensibilitySamples.itbook))
        harness.server.route("/itbook/search/devops/1", .json(ExtensibilitySamples.itbook))
        let environment = harness.environment.merging([
            "SEEK_ITBOOK_URL": harness.server.url("/itbook").absoluteString, "SEEK_NO_CACHE": "1",
        ]) { $1 }
        let executable = try #require(seekITBookURL)
        let result = try await offThePool {
            try SeekBinary.run(["search", "devops", "--providers", "openlibrary,itbook", "--format", "json"],
                               environment: environment, executable: executable)
        }
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = result.json?["items"] as? [[String: Any]] ?? []
        #expect(items.count == 3, "one row per book: \(items.compactMap { $0["id"] })")
        let merged = items.first { ($0["sources"] as? [[String: Any]])?.count == 2 }
        let providers = (merged?["sources"] as? [[String: Any]])?.compactMap { $0["provider"] as? String }
        #expect(Set(providers ?? []) == ["openlibrary", "itbook"])
    }
}
