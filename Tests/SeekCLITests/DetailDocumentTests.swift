import Foundation
import SeekCLI
import SeekCore
import SeekLoopback
import Testing

private let aladinKey = ["SEEK_ALADIN_TTB_KEY": "ttbSECRETaladin42"]

/// The one provider entry of a detail document.
private func provider(_ result: RunResult) -> [String: Any]? {
    (result.json?["providers"] as? [[String: Any]])?.first
}

/// An Aladin lookup answer holding one book.
private func aladinBook(isbn13: String, isbn10: String, itemID: Int, title: String) -> String {
    #"{"version": "20131101", "totalResults": 1, "item": [{"itemId": \#(itemID), "isbn13": "\#(isbn13)", "isbn": "\#(isbn10)", "title": "\#(title)", "author": "A (지은이)", "pubDate": "2020-01-01"}]}"#
}

@Suite("seek detail --format json prints a document whether or not the provider answers")
struct DetailDocumentTests {
    @Test("a provider that hangs: exit 4, and stdout is a document with item null and the provider's timeout")
    func timeoutDocument() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/works/OL45804W.json", fault: .hang)
        let result = await harness.run(["detail", "openlibrary:OL45804W", "--format", "json", "--timeout", "1", "--no-cache"])
        try await harness.stop()
        #expect(result.code == 4)
        let json = try #require(result.json, "stdout: \(result.stdout)")
        #expect(json["id"] as? String == "openlibrary:OL45804W")
        #expect(json.keys.contains("item") && json["item"] is NSNull)
        let entry = try #require(provider(result))
        #expect(entry["id"] as? String == "openlibrary")
        #expect(entry["status"] as? String == "timeout")
        #expect(entry["count"] as? Int == 0)
        #expect((entry["elapsedMs"] as? Int).map { $0 >= 900 } == true)
        #expect((entry["error"] as? String)?.contains("timed out") == true)
        #expect(result.stderr.contains("seek: Open Library took too long to answer."), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("seek: cause: openlibrary: timed out"), "stderr: \(result.stderr)")
    }

    @Test("a record that is not there: exit 4, status error, the cause in the document")
    func notFoundDocument() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["detail", "openlibrary:OL999W", "--format", "json", "--no-cache"])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(result.json?["item"] is NSNull)
        #expect(provider(result)?["status"] as? String == "error")
        #expect((provider(result)?["error"] as? String)?.contains("not found") == true)
    }

    @Test("a provider without its key: exit 4, status skipped")
    func skippedDocument() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["detail", "aladin:9788936434120", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(provider(result)?["status"] as? String == "skipped")
    }

    @Test("success keeps the item document and adds providers with status ok and count 1")
    func successDocument() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["detail", "openlibrary:OL45804W", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0)
        let json = try #require(result.json)
        #expect(json["id"] as? String == "openlibrary:OL45804W")
        #expect(json["title"] as? String == "Fantastic Mr Fox")
        #expect(!json.keys.contains("item"))
        #expect(provider(result)?["status"] as? String == "ok")
        #expect(provider(result)?["count"] as? Int == 1)
    }

    @Test("usage errors print nothing on stdout (exit 64)")
    func usageErrorPrintsNothing() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["detail", "nosuch:1", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stdout.isEmpty)
    }
}

@Suite("seek detail checks that the record is the one asked for")
struct DetailIdentityCLITests {
    @Test("Open Library answering OL45804W with another work is exit 4 naming both ids, and nothing is labelled OL45804W")
    func openLibraryAnotherWork() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/works/OL45804W.json", .json(#"{"key": "/works/OL1W", "title": "Another Work", "type": {"key": "/type/work"}}"#))
        let result = await harness.run(["detail", "openlibrary:OL45804W", "--format", "json", "--no-cache"])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(result.stderr.contains("openlibrary:OL45804W") && result.stderr.contains("openlibrary:OL1W"), "stderr: \(result.stderr)")
        #expect(!result.stdout.contains("Another Work"))
        #expect(provider(result)?["status"] as? String == "error")
    }

    @Test("a wrong record is not cached: the next run asks again")
    func wrongRecordIsNotCached() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/works/OL45804W.json", .json(#"{"key": "/works/OL1W", "title": "Another Work", "type": {"key": "/type/work"}}"#))
        let first = await harness.run(["detail", "openlibrary:OL45804W"])
        harness.serveOpenLibrary()
        let second = await harness.run(["detail", "openlibrary:OL45804W"])
        try await harness.stop()
        #expect(first.code == 4)
        #expect(second.code == 0, "stderr: \(second.stderr)")
        #expect(second.stdout.contains("Fantastic Mr Fox"))
    }

    @Test("an Open Library id in lower case is the same work")
    func openLibraryLowerCase() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["detail", "openlibrary:ol45804w"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("openlibrary:OL45804W"))
    }

    @Test("a merged Open Library work: the redirect's target is shown, with where it came from")
    func openLibraryRedirect() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/works/OL45804W.json", .json(#"{"key": "/works/OL45804W", "type": {"key": "/type/redirect"}, "location": "/works/OL2W"}"#))
        harness.server.route("/ol/works/OL2W.json", .json(#"{"key": "/works/OL2W", "title": "Merged", "type": {"key": "/type/work"}}"#))
        let result = await harness.run(["detail", "openlibrary:OL45804W", "--format", "json"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.json?["id"] as? String == "openlibrary:OL2W")
        #expect((result.json?["attributes"] as? [String: String])?["redirectedFrom"] == "OL45804W")
    }

    @Test("a redirect target that answers with yet another work is refused, naming the target")
    func openLibraryRedirectToWrongRecord() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/works/OL45804W.json", .json(#"{"key": "/works/OL45804W", "type": {"key": "/type/redirect"}, "location": "/works/OL2W"}"#))
        harness.server.route("/ol/works/OL2W.json", .json(#"{"key": "/works/OL3W", "title": "Elsewhere", "type": {"key": "/type/work"}}"#))
        let result = await harness.run(["detail", "openlibrary:OL45804W"])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(result.stderr.contains("redirected to openlibrary:OL2W") && result.stderr.contains("openlibrary:OL3W"), "stderr: \(result.stderr)")
    }

    @Test("a hung author lookup leaves the name out; the work still shows, well inside the deadline")
    func hungAuthor() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        harness.server.route("/ol/authors/OL34184A.json", fault: .hang)
        let started = ContinuousClock.now
        let result = await harness.run(["detail", "openlibrary:OL45804W", "--timeout", "4", "--format", "json"])
        let elapsed = ContinuousClock.now - started
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.json?["title"] as? String == "Fantastic Mr Fox")
        #expect((result.json?["creators"] as? [String])?.isEmpty == true)
        #expect(elapsed < .seconds(3), "the author lookups get a quarter of the 4 s deadline; took \(elapsed)")
    }

    @Test("Aladin asked by ISBN-10 answers under the book's ISBN-13: the same book")
    func aladinISBN10() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/aladin/ttb/api/ItemLookUp.aspx", .json(aladinBook(
            isbn13: "9788936434120", isbn10: "8936434128", itemID: 123, title: "Harbor")))
        let result = await harness.run(["detail", "aladin:8936434128", "--format", "json"], environment: aladinKey)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.json?["id"] as? String == "aladin:9788936434120")
    }

    @Test("Aladin asked by itemId answers under the book's ISBN-13: the same book")
    func aladinItemID() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/aladin/ttb/api/ItemLookUp.aspx", .json(aladinBook(
            isbn13: "9788936434120", isbn10: "8936434128", itemID: 123, title: "Harbor")))
        let result = await harness.run(["detail", "aladin:123"], environment: aladinKey)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
    }

    @Test("Aladin answering an ISBN-10 lookup with another book is exit 4 naming both ids")
    func aladinAnotherBook() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/aladin/ttb/api/ItemLookUp.aspx", .json(aladinBook(
            isbn13: "9780140328721", isbn10: "0140328726", itemID: 456, title: "Fantastic Mr Fox")))
        let result = await harness.run(["detail", "aladin:8936434128"], environment: aladinKey)
        try await harness.stop()
        #expect(result.code == 4)
        #expect(result.stderr.contains("aladin:8936434128") && result.stderr.contains("aladin:9780140328721"), "stderr: \(result.stderr)")
    }
}
