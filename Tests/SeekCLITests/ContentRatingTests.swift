import Foundation
import SeekCLI
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek --rating")
struct ContentRatingTests {
    @Test("--rating reaches GIPHY's rating parameter on search and trending")
    func ratingIsSent() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route(AggregationSamples.giphyPath, .json(AggregationSamples.giphy(["g1"])))
        harness.server.route("/giphy/v1/gifs/trending", .json(AggregationSamples.giphy(["t1"])))
        let search = await harness.run(["search", "cats", "--providers", "giphy", "--rating", "PG-13"], environment: AggregationSamples.keys)
        let trending = await harness.run(["trending", "--providers", "giphy", "--rating", "g"], environment: AggregationSamples.keys)
        let ratings = harness.server.requests.compactMap { $0.queryValue("rating") }
        try await harness.stop()
        #expect(search.code == 0 && trending.code == 0, "stderr: \(search.stderr)\(trending.stderr)")
        #expect(ratings == ["pg-13", "g"])
    }

    @Test("an unknown --rating is a usage error that lists the accepted ones")
    func unknownRating() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "cats", "--providers", "giphy", "--rating", "xxx"], environment: AggregationSamples.keys)
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("pg-13"), "stderr: \(result.stderr)")
    }

    @Test("answers cached under one rating are not served for another")
    func cacheKeptApartByRating() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route(AggregationSamples.giphyPath, .json(AggregationSamples.giphy(["g1"])))
        _ = await harness.run(["search", "cats", "--providers", "giphy", "--rating", "g"], environment: AggregationSamples.keys)
        _ = await harness.run(["search", "cats", "--providers", "giphy", "--rating", "g"], environment: AggregationSamples.keys)
        _ = await harness.run(["search", "cats", "--providers", "giphy", "--rating", "r"], environment: AggregationSamples.keys)
        let asked = harness.server.requestCount(path: AggregationSamples.giphyPath)
        try await harness.stop()
        #expect(asked == 2, "the second g search should come from the cache, the r search from GIPHY")
    }
}
