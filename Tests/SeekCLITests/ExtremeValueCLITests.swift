import Foundation
import SeekCLI
import SeekCore
import SeekLoopback
import Testing

/// Writes `text` as the harness's config file (`$XDG_CONFIG_HOME/seek/config.json`).
private func writeConfig(_ harness: CLIHarness, _ text: String) throws {
    let directory = harness.home.appendingPathComponent("config/seek")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: directory.appendingPathComponent("config.json"))
}

/// Runs `seek` once against a fresh harness serving the small Open Library.
private func run(
    _ arguments: [String], environment: [String: String] = [:], config: String? = nil,
    serve: (CLIHarness) -> Void = { $0.serveOpenLibrary() }
) async throws -> RunResult {
    let harness = try await CLIHarness.start()
    serve(harness)
    if let config { try writeConfig(harness, config) }
    let result = await harness.run(arguments, environment: environment.merging(["SEEK_NO_CACHE": "1"]) { $1 })
    try await harness.stop()
    return result
}

private let aladinKey = ["SEEK_ALADIN_TTB_KEY": "ttbSECRETaladin42"]

@Suite("Extreme values from the user: flags, environment and config are exit 64 with a clear message")
struct ExtremeUserInputTests {
    @Test("--page 10^18 is exit 64: too deep, with the deepest page for the limit")
    func hugePage() async throws {
        let result = try await run(["search", "cat", "--page", "1000000000000000000"])
        #expect(result.code == 64)
        #expect(result.stderr.contains("'page' 1000000000000000000 is too deep"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("the last page at limit 20 is 5001"))
        #expect(result.stdout.isEmpty)
    }

    @Test("the deepest page (offset 100,000) is still asked; one page more is exit 64")
    func deepestPage() async throws {
        let deepest = try await run(["search", "harbor", "--page", "5001", "--providers", "openlibrary"])
        #expect(deepest.code == 0, "stderr: \(deepest.stderr)")
        let past = try await run(["search", "harbor", "--page", "5002", "--providers", "openlibrary"])
        #expect(past.code == 64)
        #expect(past.stderr.contains("too deep"))
    }

    @Test("--page that is not an Int, zero, negative or -0 is exit 64",
          arguments: ["9223372036854775808", "1e3", "0", "-1", "-0", "", "nan"])
    func invalidPage(value: String) async throws {
        let result = try await run(["search", "cat", "--page=\(value)"])
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--page") || result.stderr.contains("page"))
    }

    @Test("--limit outside 1–100, 2^63 or not an integer is exit 64",
          arguments: ["0", "-1", "-0", "101", "9223372036854775808", "1e2", "nan", ""])
    func invalidLimit(value: String) async throws {
        let result = try await run(["search", "cat", "--limit=\(value)"])
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("limit"))
    }

    @Test("--timeout of NaN, infinity, -0, 0, 1e300 or 2^63 is exit 64 for search and for detail",
          arguments: [["search", "cat"], ["detail", "openlibrary:OL45804W"]],
          ["nan", "inf", "-0", "0", "1e300", "9223372036854775808", "-1", "3601"])
    func invalidTimeout(command: [String], value: String) async throws {
        let result = try await run(command + ["--timeout=\(value)"])
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--timeout: 'timeout' must be more than 0 and at most 3600 seconds"), "stderr: \(result.stderr)")
    }

    @Test("a cursor token whose page is 2^63 − 1 is not a cursor from seek (exit 64)")
    func forgedCursorPage() async throws {
        let token = SearchCursor(positions: ["openlibrary": "20"], page: .max).token
        let result = try await run(["search", "harbor", "--cursor", token])
        #expect(result.code == 64)
        #expect(result.stderr.contains("'cursor' is not a cursor from seek"), "stderr: \(result.stderr)")
    }

    @Test("a cursor whose page is past the deepest page for the limit is not a cursor from seek (exit 64)")
    func cursorPagePastTheDeepest() async throws {
        let token = SearchCursor(positions: ["openlibrary": "20"], page: SearchRequest.maxPage).token
        let result = try await run(["search", "harbor", "--cursor", token, "--limit", "20"])
        #expect(result.code == 64)
        #expect(result.stderr.contains("not a cursor from seek"), "stderr: \(result.stderr)")
    }

    @Test("a cursor whose Open Library offset is huge, negative or not a number is not a cursor from seek (exit 64)",
          arguments: ["9223372036854775807", "9223372036854775808", "100001", "-1", "-0x10", "NaN"])
    func forgedOffsetCursor(position: String) async throws {
        let token = SearchCursor(positions: ["openlibrary": position], page: 2).token
        let result = try await run(["search", "harbor", "--cursor", token])
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("not a cursor from seek"))
        #expect(result.stderr.contains("openlibrary's offset"))
    }

    @Test("a cursor whose Aladin page is 2^63 − 1 is not a cursor from seek (exit 64), and Aladin is not called")
    func forgedAladinCursor() async throws {
        let harness = try await CLIHarness.start()
        let token = SearchCursor(positions: ["aladin": "9223372036854775807"], page: 2).token
        let result = await harness.run(["search", "harbor", "--cursor", token, "--providers", "aladin"], environment: aladinKey)
        let calls = harness.server.totalRequestCount
        try await harness.stop()
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("aladin's page"))
        #expect(calls == 0)
    }

    @Test("a cursor that is not base64, or empty, is not a cursor from seek (exit 64)", arguments: ["%%%", "", "AAAA"])
    func garbageCursor(token: String) async throws {
        let result = try await run(["search", "harbor", "--cursor", token])
        #expect(result.code == 64)
        #expect(result.stderr.contains("'cursor' is not a cursor from seek"), "stderr: \(result.stderr)")
    }

    @Test("SEEK_IMAGE_CACHE_TTL of 1e300, infinity, NaN or -0 makes `seek cache stats` exit 64 naming it",
          arguments: ["1e300", "inf", "nan", "-0", "9223372036854775808"])
    func extremeImageCacheTTL(value: String) async throws {
        let result = try await run(["cache", "stats"], environment: ["SEEK_IMAGE_CACHE_TTL": value])
        #expect(result.code == 64)
        #expect(result.stderr.contains("SEEK_IMAGE_CACHE_TTL"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("315360000"))
    }

    @Test("SEEK_IMAGE_CACHE_TTL of ten years prints its expiry in days")
    func longestImageCacheTTL() async throws {
        let result = try await run(["cache", "stats"], environment: ["SEEK_IMAGE_CACHE_TTL": "315360000"])
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("3650 days"))
    }

    @Test("an empty SEEK_IMAGE_CACHE_TTL is no setting: the default 7 days")
    func emptyImageCacheTTL() async throws {
        let result = try await run(["cache", "stats"], environment: ["SEEK_IMAGE_CACHE_TTL": ""])
        #expect(result.code == 0)
        #expect(result.stdout.contains("7 days"))
    }

    @Test("cache and history variables of 1e300 or NaN are exit 64 naming the variable",
          arguments: ["SEEK_SEARCH_CACHE_TTL", "SEEK_DETAIL_CACHE_TTL", "SEEK_CACHE_MAX_STALE_DAYS", "SEEK_HISTORY_LIMIT"],
          ["1e300", "nan", "inf", "9223372036854775808"])
    func extremeStoreVariables(variable: String, value: String) async throws {
        let result = try await run(["search", "harbor", "--providers", "openlibrary"], environment: [variable: value])
        #expect(result.code == 64)
        #expect(result.stderr.contains(variable), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("SEEK_HISTORY_LIMIT of -0 keeps no history, like 0")
    func negativeZeroHistory() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let environment = ["SEEK_HISTORY_LIMIT": "-0"]
        let search = await harness.run(["search", "harbor", "--providers", "openlibrary"], environment: environment)
        let history = await harness.run(["history", "--format", "json"], environment: environment)
        try await harness.stop()
        #expect(search.code == 0, "stderr: \(search.stderr)")
        #expect((history.json?["entries"] as? [Any])?.isEmpty == true, "stdout: \(history.stdout)")
    }

    @Test("SEEK_<ID>_RATE_LIMIT with a huge, infinite or NaN number is exit 64 naming the variable",
          arguments: ["1e300", "inf", "nan", "-0", "3/1e300", "3/inf", "2,burst=1e300", "9223372036854775808"])
    func extremeRateLimit(value: String) async throws {
        let result = try await run(["search", "harbor", "--providers", "openlibrary"], environment: ["SEEK_OPENLIBRARY_RATE_LIMIT": value])
        #expect(result.code == 64)
        #expect(result.stderr.contains("SEEK_OPENLIBRARY_RATE_LIMIT is not a rate"), "stderr: \(result.stderr)")
    }

    @Test("a config timeout of 1e300, infinity, NaN, -0 or 0 is exit 64 naming the provider and the key",
          arguments: ["1e300", "\"inf\"", "\"nan\"", "-0", "0", "\"1e300\"", "9223372036854775808", "\"\""])
    func extremeConfigTimeout(value: String) async throws {
        let result = try await run(
            ["search", "harbor", "--providers", "openlibrary"],
            config: #"{"providers": {"openlibrary": {"timeout": \#(value)}}}"#)
        #expect(result.code == 64)
        #expect(result.stderr.contains("providers.openlibrary.timeout must be a number of seconds between 0 and 3600"), "stderr: \(result.stderr)")
    }

    @Test("a config weight of 1e300, NaN, infinity, 0 or a negative number is exit 64 naming the provider",
          arguments: ["1e300", "\"nan\"", "\"inf\"", "0", "-0", "-1", "101"])
    func extremeConfigWeight(value: String) async throws {
        let result = try await run(
            ["search", "harbor", "--providers", "openlibrary"],
            config: #"{"providers": {"openlibrary": {"weight": \#(value)}}}"#)
        #expect(result.code == 64)
        #expect(result.stderr.contains("providers.openlibrary.weight must be a number above 0 and at most 100"), "stderr: \(result.stderr)")
    }

    @Test("config retries of 1e300, 2^63, NaN, a fraction or a negative number are exit 64",
          arguments: ["1e300", "9223372036854775808", "\"nan\"", "2.5", "-1", "\"inf\""])
    func extremeConfigRetries(value: String) async throws {
        let result = try await run(
            ["search", "harbor", "--providers", "openlibrary"],
            config: #"{"providers": {"openlibrary": {"retries": \#(value)}}}"#)
        #expect(result.code == 64)
        #expect(result.stderr.contains("providers.openlibrary.retries must be a whole number from 0 to 10"), "stderr: \(result.stderr)")
    }

    @Test("config breaker numbers of 1e300, NaN, infinity, a fraction of a failure or a negative backoff are exit 64",
          arguments: [
              #"{"failures": 1e300}"#, #"{"failures": 2.5}"#, #"{"failures": "nan"}"#, #"{"failures": 9223372036854775808}"#,
              #"{"backoff": 1e300}"#, #"{"backoff": "inf"}"#, #"{"backoff": -1}"#, #"{"maxBackoff": "nan"}"#,
              #"{"maxBackoff": 1e19}"#,
          ])
    func extremeConfigBreaker(breaker: String) async throws {
        let result = try await run(
            ["search", "harbor", "--providers", "openlibrary"],
            config: #"{"providers": {"openlibrary": {"breaker": \#(breaker)}}}"#)
        #expect(result.code == 64)
        #expect(result.stderr.contains("providers.openlibrary.breaker."), "stderr: \(result.stderr)")
    }
}

@Suite("Retry-After past any sense suspends a provider for a day")
struct ExtremeRetryAfterTests {
    @Test("a 429 or 503 with Retry-After 2^63 − 2 or 1e19: the breaker's state file holds a day's cool-down, the next run is suspended",
          arguments: [429, 503], ["9223372036854775806", "1e19"])
    func hugeRetryAfterSuspendsForADay(status: Int, value: String) async throws {
        let harness = try await CLIHarness.start()
        try writeConfig(harness, #"{"providers": {"openlibrary": {"retries": 0, "breaker": {"failures": 1}}}}"#)
        harness.server.route("/ol/search.json", fault: .status(status, body: "{}", headers: [("Retry-After", value)]))
        let search = ["search", "harbor", "--providers", "openlibrary", "--format", "json"]
        let environment = ["SEEK_NO_CACHE": "1"]
        let first = await harness.run(search, environment: environment)
        let second = await harness.run(search, environment: environment)
        let listed = await harness.run(["providers", "--format", "json"], environment: environment)
        let breakers = harness.home.appendingPathComponent("cache/breakers")
        let files = (try? FileManager.default.contentsOfDirectory(at: breakers, includingPropertiesForKeys: nil)) ?? []
        let stored = files.filter { $0.pathExtension == "json" }.compactMap { try? Data(contentsOf: $0) }
        try await harness.stop()

        #expect(first.code == 4, "stderr: \(first.stderr)")
        #expect(first.json != nil, "the first run prints its document")
        #expect(second.code == 4)
        #expect(second.stderr.contains("openlibrary: suspended: suspended until"), "stderr: \(second.stderr)")
        #expect(second.stderr.contains("the server asked to wait 86400s"), "stderr: \(second.stderr)")
        #expect(stored.count == 1 && stored.allSatisfy { !$0.isEmpty }, "the breaker's state file must not be empty")
        let document = (listed.json?["providers"] as? [[String: Any]])?.first { $0["id"] as? String == "openlibrary" }
        let until = try #require((document?["suspendedUntil"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        #expect(abs(until.timeIntervalSinceNow - 86_400) < 60)
    }
}

@Suite("Extreme numbers in provider answers are read, never trapped on")
struct ExtremeUpstreamNumberTests {
    static let olDoc = #"{"key": "/works/OL45804W", "title": "Fantastic Mr Fox", "author_name": ["Roald Dahl"]}"#

    @Test("Open Library's numFound of 1e300, 2^63, -5, a NaN string or a fraction still gives its results",
          arguments: ["1e300", "9223372036854775808", "-5", "\"NaN\"", "\"Infinity\"", "2.5", "-0"])
    func openLibraryNumFound(value: String) async throws {
        let body = #"{"numFound": \#(value), "num_found": \#(value), "start": -3, "offset": -1e300, "docs": [\#(Self.olDoc)]}"#
        let result = try await run(["search", "fox", "--providers", "openlibrary", "--format", "json"]) {
            $0.server.route("/ol/search.json", .json(body))
        }
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect((result.json?["items"] as? [Any])?.count == 1)
    }

    @Test("GIPHY's total_count and offset of 1e300, 2^63, negative or a NaN string still give its results",
          arguments: ["1e300", "9223372036854775808", "-1", "\"NaN\"", "-0"])
    func giphyTotalCount(value: String) async throws {
        let gif = #"{"id": "abc123", "title": "cat", "images": {"original": {"url": "https://media.giphy.com/media/abc123/giphy.gif", "width": "1e300", "height": "-5"}}}"#
        let body = #"{"data": [\#(gif)], "pagination": {"total_count": \#(value), "count": \#(value), "offset": \#(value)}, "meta": {"status": 200, "msg": "OK", "response_id": "r1"}}"#
        let result = try await run(
            ["search", "cat", "--providers", "giphy", "--format", "json"], environment: ["SEEK_GIPHY_API_KEY": "gphSECRETkey7f3a9"]
        ) {
            $0.server.route("/giphy/v1/gifs/search", .json(body))
        }
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect((result.json?["items"] as? [Any])?.count == 1)
    }

    @Test("GIPHY's meta.status of 1e300 or NaN is not taken for an error status")
    func giphyMetaStatus() async throws {
        let body = #"{"data": [], "pagination": {"total_count": 0}, "meta": {"status": 1e300, "msg": "OK", "response_id": "r1"}}"#
        let result = try await run(
            ["search", "cat", "--providers", "giphy", "--format", "json"], environment: ["SEEK_GIPHY_API_KEY": "gphSECRETkey7f3a9"]
        ) {
            $0.server.route("/giphy/v1/gifs/search", .json(body))
        }
        #expect(result.code == 0, "stderr: \(result.stderr)")
    }

    @Test("Aladin's totalResults, startIndex and itemsPerPage of 1e300, 2^63, negative or NaN still give its results",
          arguments: ["1e300", "9223372036854775808", "-1", "\"NaN\"", "-0"])
    func aladinTotalResults(value: String) async throws {
        let item = #"{"itemId": 1e300, "isbn13": "9788936434120", "title": "Harbor", "customerReviewRank": -1e300, "priceSales": 9223372036854775808}"#
        let body = #"{"version": "20131101", "totalResults": \#(value), "startIndex": \#(value), "itemsPerPage": \#(value), "item": [\#(item)]}"#
        let result = try await run(["search", "harbor", "--providers", "aladin", "--format", "json"], environment: aladinKey) {
            $0.server.route("/aladin/ttb/api/ItemSearch.aspx", .json(body))
        }
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect((result.json?["items"] as? [Any])?.count == 1)
    }

    @Test("an Aladin error code of 1e300 or NaN is still a typed provider error, not a trap", arguments: ["1e300", "\"NaN\"", "-1"])
    func aladinErrorCode(value: String) async throws {
        let body = #"{"errorCode": \#(value), "errorMessage": "something failed"}"#
        let result = try await run(["search", "harbor", "--providers", "aladin", "--format", "json"], environment: aladinKey) {
            $0.server.route("/aladin/ttb/api/ItemSearch.aspx", .json(body))
        }
        #expect(result.code == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("seek: aladin: "))
    }

    @Test("an Open Library work whose cover ids and page count are 1e300, 2^63 or negative still shows")
    func openLibraryDetailNumbers() async throws {
        let work = #"{"key": "/works/OL45804W", "title": "Fantastic Mr Fox", "covers": [1e300, 9223372036854775808, -1, -0], "number_of_pages": 1e300, "type": {"key": "/type/work"}}"#
        let result = try await run(["detail", "openlibrary:OL45804W", "--format", "json"]) {
            $0.server.route("/ol/works/OL45804W.json", .json(work))
        }
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.json?["title"] as? String == "Fantastic Mr Fox")
    }
}
