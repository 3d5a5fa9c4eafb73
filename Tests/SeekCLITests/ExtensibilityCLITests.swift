import Foundation
import ITBookstoreProvider
import SeekCLI
import SeekCore
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

/// The `seek-itbook` example executable beside `seek`, if it was built.
private var seekITBookURL: URL? {
    SeekBinary.url.map { $0.deletingLastPathComponent().appendingPathComponent("seek-itbook") }
        .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
}

private enum ExtensibilitySamples {
    /// An Open Library search whose first work lists the ISBN-13 (and -10) of IT Bookstore's first book.
    static let openLibrary = """
    {"numFound": 2, "start": 0, "num_found": 2, "docs": [
      {"key": "/works/OL20126W", "title": "Securing DevOps", "author_name": ["Julien Vehent"], "first_publish_year": 2018,
       "isbn": ["1617294136", "9781617294136"]},
      {"key": "/works/OL999W", "title": "Another Book", "author_name": ["Someone Else"], "first_publish_year": 2001}]}
    """
    /// IT Bookstore's search: 12 books in all, so a second page exists.
    static let itbook = """
    {"error": "0", "total": "12", "page": "1", "books": [
      {"title": "Securing DevOps", "subtitle": "Security in the Cloud", "isbn13": "9781617294136", "price": "$26.98",
       "image": "https://itbook.store/img/books/9781617294136.png", "url": "https://itbook.store/books/9781617294136"},
      {"title": "Learning Go", "subtitle": "", "isbn13": "9781492077213", "price": "$29.99",
       "image": "https://itbook.store/img/books/9781492077213.png", "url": "https://itbook.store/books/9781492077213"}]}
    """
    static let itbookPage2 = """
    {"error": "0", "total": "12", "page": "2", "books": [
      {"title": "Page Two Book", "subtitle": "", "isbn13": "9781449373320", "price": "$40.00",
       "image": "https://itbook.store/img/books/9781449373320.png", "url": "https://itbook.store/books/9781449373320"}]}
    """
    static let book = """
    {"error": "0", "title": "Securing DevOps", "subtitle": "Security in the Cloud", "authors": "Julien Vehent",
     "publisher": "Manning", "isbn10": "1617294136", "isbn13": "9781617294136", "pages": "384", "year": "2018",
     "rating": "5", "desc": "An application running in the cloud…", "price": "$26.98",
     "image": "https://itbook.store/img/books/9781617294136.png", "url": "https://itbook.store/books/9781617294136"}
    """

    /// The issue's example declaration, verbatim but for the server, as JSON text; `extra` is added last.
    static func declaration(_ server: FixtureServer, id: String = "itjson", searchURL: String? = nil, extra: String = "") -> String {
        let root = server.url("/it").absoluteString
        return """
        { "id": "\(id)", "name": "IT Bookstore (config)", "kind": "book",
          "searchURL": "\(searchURL ?? root + "/search/{query}/{page}")",
          "detailURL": "\(root)/books/{id}",
          "itemsPath": "books", "totalPath": "total",
          "fields": { "id": "isbn13", "title": "title", "subtitle": "subtitle", "isbn": "isbn13",
                      "image": "image", "url": "url", "creators": "authors", "year": "year" },
          "keyEnv": "ITJSON_KEY"\(extra) }
        """
    }

    /// Writes a config file declaring `declarations` and returns the environment that points `seek` at it.
    static func config(_ harness: CLIHarness, _ declarations: [String]) throws -> [String: String] {
        let file = harness.home.appendingPathComponent("config.json")
        try Data(#"{"jsonProviders": [\#(declarations.joined(separator: ","))]}"#.utf8).write(to: file)
        return ["SEEK_CONFIG": file.path, "SEEK_NO_CACHE": "1"]
    }
}

/// The items of a search's JSON, and the set of `sources` ids of each.
private func itemsAndSources(_ result: RunResult) -> [(id: String, sources: Set<String>)] {
    let items = result.json?["items"] as? [[String: Any]] ?? []
    return items.map { item in
        let sources = (item["sources"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        return (item["id"] as? String ?? "?", Set(sources))
    }
}

private func status(of provider: String, in result: RunResult) -> String? {
    let providers = result.json?["providers"] as? [[String: Any]] ?? []
    return providers.first { $0["id"] as? String == provider }?["status"] as? String
}

@Suite("Extending seek: a provider declared in the config file")
struct DeclaredProviderCLITests {
    @Test("a declared provider searches beside Open Library, and a book both have is one item with both sources")
    func searchMerges() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(ExtensibilitySamples.openLibrary))
        harness.server.route("/it/search/devops/1", .json(ExtensibilitySamples.itbook))
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server)])
        let result = await harness.run(["search", "devops", "--providers", "openlibrary,itjson", "--format", "json"], environment: environment)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = itemsAndSources(result)
        #expect(items.count == 3, "one row per book: \(items.map(\.id))")
        #expect(items.contains { $0.sources == ["openlibrary:OL20126W", "itjson:9781617294136"] }, "\(items)")
        #expect(status(of: "itjson", in: result) == "ok")
    }

    @Test("a declared provider's item details through `seek detail`")
    func detail() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/it/books/9781617294136", .json(ExtensibilitySamples.book))
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server)])
        let result = await harness.run(["detail", "itjson:9781617294136", "--format", "json"], environment: environment)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.json?["id"] as? String == "itjson:9781617294136")
        #expect(result.json?["title"] as? String == "Securing DevOps")
        #expect(result.json?["creators"] as? [String] == ["Julien Vehent"])
        #expect(result.json?["year"] as? Int == 2018)
    }

    @Test("a declared provider pages: the cursor seek prints asks it for page 2")
    func paging() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/it/search/devops/1", .json(ExtensibilitySamples.itbook))
        harness.server.route("/it/search/devops/2", .json(ExtensibilitySamples.itbookPage2))
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server)])
        let first = await harness.run(["search", "devops", "--providers", "itjson", "--format", "json"], environment: environment)
        let cursor = first.json?["next"] as? String
        let second = await harness.run(
            ["search", "devops", "--providers", "itjson", "--cursor", cursor ?? "-", "--format", "json"], environment: environment)
        let pageTwoRequests = harness.server.requestCount(path: "/it/search/devops/2")
        try await harness.stop()
        #expect(cursor != nil, "stdout: \(first.stdout) stderr: \(first.stderr)")
        #expect(second.code == 0, "stderr: \(second.stderr)")
        #expect(pageTwoRequests == 1)
        #expect(itemsAndSources(second).map(\.id) == ["itjson:9781449373320"])
    }

    @Test("a declared provider whose URL needs {key} is skipped, not called, when its variable is unset")
    func skippedWithoutKey() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(ExtensibilitySamples.openLibrary))
        let keyed = ExtensibilitySamples.declaration(
            harness.server, searchURL: harness.server.url("/it").absoluteString + "/search/{query}/{page}?key={key}")
        let environment = try ExtensibilitySamples.config(harness, [keyed])
        let result = await harness.run(["search", "devops", "--providers", "openlibrary,itjson", "--format", "json"], environment: environment)
        let calls = harness.server.requestCount(path: "/it/search/devops/1")
        try await harness.stop()
        #expect(status(of: "itjson", in: result) == "skipped", "stdout: \(result.stdout)")
        #expect(calls == 0)
    }

    @Test("a declared provider's failure is its status; the others still answer (exit 3)")
    func failureIsAStatus() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(ExtensibilitySamples.openLibrary))
        harness.server.route("/it/search/devops/1", fault: .malformedJSON)
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server)])
        let result = await harness.run(["search", "devops", "--providers", "openlibrary,itjson", "--format", "json"], environment: environment)
        try await harness.stop()
        #expect(result.code == 3, "stderr: \(result.stderr)")
        #expect(status(of: "itjson", in: result) == "error")
        #expect(status(of: "openlibrary", in: result) == "ok")
    }

    @Test("seek providers lists a declared provider")
    func listed() async throws {
        let harness = try await CLIHarness.start()
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server)])
        let result = await harness.run(["providers", "--format", "json"], environment: environment)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("\"itjson\""), "\(result.stdout)")
    }

    /// Each case: extra declaration text, a second declaration or not, and the field the error must name.
    @Test("a mistake in a declaration stops seek with exit 64 and one line naming the provider and the field", arguments: [
        (#", "trendingURL": "http://x/{nope}""#, false, "trendingURL"),
        (#", "detailPath": "record..book""#, false, "detailPath"),
        (#", "errorPath": "errors[0]""#, false, "errorPath"),
        (#", "attributes": {"price": ""}"#, false, "attributes.price"),
        ("", true, "id"),
    ])
    func badDeclarationIsAUsageError(extra: String, duplicate: Bool, field: String) async throws {
        let harness = try await CLIHarness.start()
        let declaration = ExtensibilitySamples.declaration(harness.server, extra: extra)
        let environment = try ExtensibilitySamples.config(harness, duplicate ? [declaration, declaration] : [declaration])
        let result = await harness.run(["search", "devops"], environment: environment)
        let requests = harness.server.totalRequestCount
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("itjson") && result.stderr.contains("field \"\(field)\""), "stderr: \(result.stderr)")
        #expect(requests == 0, "no provider is called when the config is wrong")
    }

    @Test("a declaration that takes a built-in provider's id is refused, not silently dropped")
    func builtInIDIsRefused() async throws {
        let harness = try await CLIHarness.start()
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server, id: "openlibrary")])
        let result = await harness.run(["providers"], environment: environment)
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("openlibrary") && result.stderr.contains("built-in"), "stderr: \(result.stderr)")
    }
}

@Suite("Extending seek: seek-itbook, the example provider added in Swift")
struct SeekITBookCLITests {
    /// Runs `seek` in-process with IT Bookstore added, as `seek-itbook`'s main does (`SeekMain.main(extraProviders:)`).
    private func runSeekITBook(_ harness: CLIHarness, _ arguments: [String], environment extra: [String: String] = [:]) async -> RunResult {
        let stdout = CapturedText()
        let stderr = CapturedText()
        let environment = harness.environment.merging([
            "SEEK_ITBOOK_URL": harness.server.url("/itbook").absoluteString, "SEEK_NO_CACHE": "1",
        ]) { $1 }.merging(extra) { $1 }
        let context = CLIContext(
            environment: environment, stdout: stdout, stderr: stderr, extraProviders: [ITBookstoreProvider.factory])
        let code = await SeekMain.run(arguments: arguments, context: context)
        return RunResult(code: code, stdout: stdout.text, stderr: stderr.text)
    }

    @Test("openlibrary,itbook: one item per book, and the book both have (same ISBN-13) lists both in sources")
    func mergesWithOpenLibrary() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(ExtensibilitySamples.openLibrary))
        harness.server.route("/itbook/search/harbor/1", .json(ExtensibilitySamples.itbook))
        let result = await runSeekITBook(harness, ["search", "harbor", "--providers", "openlibrary,itbook", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = itemsAndSources(result)
        #expect(items.count == 3, "one row per book: \(items.map(\.id))")
        #expect(items.contains { $0.sources == ["openlibrary:OL20126W", "itbook:9781617294136"] }, "\(items)")
        #expect(items.filter { $0.sources.count == 1 }.count == 2)
        #expect(status(of: "itbook", in: result) == "ok")
    }

    @Test("itbook is a provider like the built-in ones: listed, and its items detail")
    func listedAndDetails() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/itbook/books/9781617294136", .json(ExtensibilitySamples.book))
        let providers = await runSeekITBook(harness, ["providers", "--format", "json"])
        let detail = await runSeekITBook(harness, ["detail", "itbook:9781617294136", "--format", "json"])
        try await harness.stop()
        #expect(providers.code == 0, "stderr: \(providers.stderr)")
        #expect(providers.stdout.contains("\"itbook\""))
        #expect(detail.code == 0, "stderr: \(detail.stderr)")
        #expect(detail.json?["title"] as? String == "Securing DevOps")
        #expect(detail.json?["creators"] as? [String] == ["Julien Vehent"])
    }

    @Test("plain seek does not know itbook: the example adds it without touching the composition root")
    func plainSeekLacksIt() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "harbor", "--providers", "itbook"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("unknown provider 'itbook'"), "stderr: \(result.stderr)")
    }

    @Test("a config declaration cannot take the id an extra provider already has")
    func extraIDIsReserved() async throws {
        let harness = try await CLIHarness.start()
        let environment = try ExtensibilitySamples.config(harness, [ExtensibilitySamples.declaration(harness.server, id: "itbook")])
        let result = await runSeekITBook(harness, ["providers"], environment: environment)
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("itbook"), "stderr: \(result.stderr)")
    }

    @Test("the built seek-itbook executable merges IT Bookstore's books with Open Library's",
          .enabled(if: seekITBookURL != nil, "the seek-itbook executable was not built"))
    func executable() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(ExtensibilitySamples.openLibrary))
        harness.server.route("/itbook/search/harbor/1", .json(ExtensibilitySamples.itbook))
        let environment = harness.environment.merging([
            "SEEK_ITBOOK_URL": harness.server.url("/itbook").absoluteString, "SEEK_NO_CACHE": "1",
        ]) { $1 }
        let executable = try #require(seekITBookURL)
        let result = try await offThePool {
            try SeekBinary.run(["search", "harbor", "--providers", "openlibrary,itbook", "--format", "json"],
                               environment: environment, executable: executable)
        }
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = itemsAndSources(result)
        #expect(items.count == 3, "one row per book: \(items.map(\.id))")
        #expect(items.contains { $0.sources == ["openlibrary:OL20126W", "itbook:9781617294136"] }, "\(items)")
    }
}
