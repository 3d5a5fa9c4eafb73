import Foundation
import NIOConcurrencyHelpers
import SeekKit
import SeekCore
import SeekLoopback
import SeekRuntime
import SeekStore
import SeekTesting
import Testing

/// One session serving several callers at once: each call's options travel with that call only.
@Suite("One session, calls with different options at once")
struct SessionOptionsTests {
    /// GIPHY answers with a GIF named after the rating asked for and the server's current version.
    static func serveGiphyByRating(_ server: FixtureServer, version: NIOLockedValueBox<Int>) {
        server.route(AggregationSamples.giphyPath) { request in
            let rating = request.queryValue("rating") ?? "none"
            return .json(AggregationSamples.giphy(["\(rating)-v\(version.withLockedValue { $0 })"]))
        }
    }

    @Test("three concurrent searches with different rating, no-cache and timeout each get their own")
    func concurrentSearchesKeepTheirOptions() async throws {
        let harness = try await CLIHarness.start()
        let version = NIOLockedValueBox(1)
        Self.serveGiphyByRating(harness.server, version: version)
        // Open Library answers after 2.5 s: within one search's deadline, past another's (1 s, room
        // enough for GIPHY's loopback answer on a busy machine).
        harness.server.route("/ol/search.json", .json(AggregationSamples.openLibrary([AggregationSamples.olDoc(1, title: "Slow")])))
        harness.server.route("/ol/search.json", fault: .delay(.milliseconds(2500)))
        let settings = Settings(environment: harness.environment.merging(AggregationSamples.keys) { $1 })
        let session = try await SeekSession.open(settings: settings)

        // The cache holds rating r's first answer, for pages of 20 and of 10; the server then moves on
        // to a second version. The no-cache search below asks for 10: its fresh answer replaces the
        // entry of 10 only, so the cached search (20) reads the first answer however the three
        // interleave. (Asking for the same page, it could read the fresh one: the cache keeps an
        // answer as soon as it arrives, and a no-cache search's answer is meant to refresh it.)
        _ = try await session.engine.search(SearchOptions(query: "cats", providers: ["giphy"], rating: "r"))
        _ = try await session.engine.search(SearchOptions(query: "cats", providers: ["giphy"], limit: 10, rating: "r"))
        await session.userState.cacheWrites.wait()
        version.withLockedValue { $0 = 2 }

        async let strictAndHurried = session.engine.search(SearchOptions(
            query: "cats", providers: ["giphy", "openlibrary"], timeout: .seconds(1), rating: "g"))
        async let freshAndPatient = session.engine.search(SearchOptions(
            query: "cats", providers: ["giphy", "openlibrary"], limit: 10, timeout: .seconds(10), rating: "r", noCache: true))
        async let cached = session.engine.search(SearchOptions(query: "cats", providers: ["giphy"], rating: "r"))
        let (hurried, patient, fromCache) = try await (strictAndHurried, freshAndPatient, cached)
        let requests = harness.server.requests.filter { $0.path.hasSuffix("/gifs/search") }
        await session.close()
        try await harness.stop()

        func ids(_ result: SearchResult) -> [String] { result.results.map(\.item.id.description) }
        func status(_ result: SearchResult, _ id: String) -> ProviderStatus? { result.outcomes.first { $0.provider == id }?.status }
        // Rating g, asked of the server (nothing cached for it); Open Library past its 1 s deadline.
        #expect(ids(hurried) == ["giphy:g-v2"])
        #expect(status(hurried, "openlibrary") == .timeout)
        // Rating r without the cache (though one is stored for its page): the server's current
        // answer, and Open Library waited for.
        #expect(ids(patient).contains("giphy:r-v2"))
        #expect(ids(patient).contains("openlibrary:OL1W"))
        #expect(status(patient, "openlibrary") == .ok)
        // Rating r with the cache: the stored first answer.
        #expect(ids(fromCache) == ["giphy:r-v1"])
        // Each request carried its own call's rating; the cached search asked nothing.
        #expect(requests.compactMap { $0.queryValue("rating") }.sorted() == ["g", "r", "r", "r"])
    }
}
