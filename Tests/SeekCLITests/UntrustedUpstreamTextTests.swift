import Foundation
import SeekCLI
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

private let keys = ProviderSamples.keys
private let giphyKey = "giphy-test-key"
private let aladinKey = "aladin-test-key"

/// Whether `text` holds a scalar a terminal acts on: C0 (but the line break), DEL, C1, or a bidi override.
private func hasControl(_ text: String) -> Bool {
    text.unicodeScalars.contains { scalar in
        (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

/// A message an upstream may send back, named in the test log by what it is: written raw there, its
/// escapes would reach the tester's terminal and its megabyte the log.
struct HostileMessage: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    var testDescription: String { name }
}

/// Messages an upstream may send back: a forged second line, terminal escapes, CR and NUL, the other
/// provider's key, and a megabyte.
private let hostileMessages = [
    HostileMessage(name: "a forged second line", text: "Invalid key\nseek: openlibrary: HTTP 500: forged line"),
    HostileMessage(
        name: "terminal escapes, CR and NUL", text: "\u{1B}]0;owned terminal title\u{07}\u{1B}[2J\u{1B}[31mred\rover\u{00}written"),
    HostileMessage(name: "both providers' keys", text: "echoing the other key \(aladinKey) and my own \(giphyKey)"),
    HostileMessage(name: "a megabyte", text: String(repeating: "A", count: 1 << 20)),
]

private func run(_ arguments: [String], serve: (FixtureServer) -> Void) async throws -> RunResult {
    let harness = try await CLIHarness.start()
    serve(harness.server)
    harness.serveOpenLibrary()
    let result = await harness.run(arguments, environment: keys.merging(["SEEK_NO_CACHE": "1"]) { $1 })
    try await harness.stop()
    return result
}

@Suite("Upstream text never reaches the terminal raw: no control character, no forged line, no key")
struct UntrustedUpstreamTextTests {
    @Test("a GIPHY error message becomes one clean stderr line and one clean status error", arguments: hostileMessages)
    func giphyErrorMessage(message: HostileMessage) async throws {
        let body = #"{"data": [], "meta": {"status": 403, "msg": \#(JSONWriter.text(message.text)), "response_id": "r"}}"#
        for format in ["table", "json"] {
            let result = try await run(["search", "harbor", "--providers", "openlibrary,giphy", "--format", format]) { server in
                server.route(ProviderSamples.giphyPath, .json(body, status: 403))
            }
            #expect(result.code == 3, "stderr: \(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0.hasPrefix("seek: openlibrary") }.isEmpty, "a forged line: \(lines)")
            #expect(lines.filter { $0.hasPrefix("seek: giphy") }.count == 1, "stderr: \(lines)")
            #expect(lines.allSatisfy { $0.count <= 400 }, "a line longer than 400 characters")
            for output in [result.stdout, result.stderr] {
                #expect(!hasControl(output))
                #expect(!output.contains(giphyKey) && !output.contains(aladinKey))
            }
            if format == "json" {
                let providers = try #require(result.json?["providers"] as? [[String: Any]])
                let error = try #require(providers.first { $0["id"] as? String == "giphy" }?["error"] as? String)
                #expect(!hasControl(error) && !error.contains("\n") && error.count <= 400, "error: \(error.debugDescription)")
            }
        }
    }

    @Test("an Aladin error message (errorCode/errorMessage) is cleaned the same way", arguments: hostileMessages)
    func aladinErrorMessage(message: HostileMessage) async throws {
        let body = #"{"errorCode": 10, "errorMessage": \#(JSONWriter.text(message.text))}"#
        let result = try await run(["search", "harbor", "--providers", "openlibrary,aladin"]) { server in
            server.route(ProviderSamples.aladinPath, .json(body))
        }
        #expect(result.code == 3, "stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("seek: openlibrary") }.isEmpty && lines.count == 1, "stderr: \(lines)")
        #expect(!hasControl(result.stderr) && lines.allSatisfy { $0.count <= 400 })
        #expect(!result.stderr.contains(giphyKey) && !result.stderr.contains(aladinKey))
    }

    @Test("result fields that echo any provider's key or carry escapes are printed clean, in the table and in JSON")
    func resultFieldsAreClean() async throws {
        let item = #"""
            {"title": \#(JSONWriter.text("위대한 \u{1B}[31m이야기\nseek: giphy: forged")), "link": "http://www.aladin.co.kr/shop/wproduct.aspx?ItemId=1&ttbkey=\#(aladinKey)",
             "author": "\#(giphyKey) (지은이)", "pubDate": "2020-01-01", "isbn": "", "isbn13": "9788936434120", "itemId": 1,
             "cover": "https://image.aladin.co.kr/product/1/cover.jpg", "publisher": "\#(aladinKey) 출판사",
             "description": \#(JSONWriter.text("echo \(giphyKey)\r\nline two \u{07}"))}
            """#
        for format in ["table", "json", "csv", "ndjson"] {
            let result = try await run(["search", "harbor", "--providers", "aladin", "--format", format]) { server in
                server.route(ProviderSamples.aladinPath, .json(ProviderSamples.aladin([item])))
            }
            #expect(result.code == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("이야기"), "\(format): \(result.stdout)")
            for output in [result.stdout, result.stderr] {
                #expect(!output.contains(giphyKey) && !output.contains(aladinKey), "\(format): \(output)")
                #expect(!output.contains("\u{1B}"), "\(format): \(output.debugDescription)")
            }
            if format == "table" {
                #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("seek:") })
            }
        }
    }

    @Test("GIPHY suggestions that echo Aladin's key are printed without it")
    func suggestionsAreClean() async throws {
        let body = #"{"data": [{"name": "cats \#(aladinKey)"}, {"name": \#(JSONWriter.text("dogs\u{1B}[2J"))}], "meta": {"status": 200, "msg": "OK"}}"#
        let result = try await run(["suggest", "ca", "--providers", "giphy", "--format", "json"]) { server in
            server.route("/giphy/v1/gifs/search/tags", .json(body))
        }
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let suggestions = try #require(result.json?["suggestions"] as? [String])
        #expect(suggestions == ["cats REDACTED", "dogs[2J"])
    }

    @Test("a detail's multi-line description is indented in the table: none of its lines stands alone")
    func detailDescriptionIsIndented() async throws {
        let work = #"""
            {"title": "Fantastic Mr Fox", "key": "/works/OL45804W", "type": {"key": "/type/work"},
             "description": \#(JSONWriter.text("First line.\r\nseek: giphy: HTTP 500: forged\n\u{1B}[2JThird \(aladinKey).")),
             "authors": [{"author": {"key": "/authors/OL34184A"}}]}
            """#
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        harness.server.route("/ol/works/OL45804W.json", .json(work))
        let result = await harness.run(["detail", "openlibrary:OL45804W"], environment: keys)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  First line."))
        #expect(lines.contains("  seek: giphy: HTTP 500: forged"))
        #expect(lines.contains("  [2JThird REDACTED."))
        #expect(!lines.contains { $0.hasPrefix("seek:") } && !hasControl(result.stdout))
    }
}
