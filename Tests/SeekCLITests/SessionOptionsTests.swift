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
        // Open Library answers after 1.5 s: within one search's deadline, past another's.
        harness.server.route("/ol/search.json", .json(AggregationSamples.openLibrary([AggregationSamples.olDoc(1, title: "Slow")])))
        harness.server.route("/ol/search.json", fault: .delay(.milliseconds(1500)))
        let settings = Settings(environment: harness.environment.merging(AggregationSamples.keys) { $1 })
        let session = try await SeekSession.open(settings: settings)

        // The cache holds rating r's first answer; the server then moves on to a second version.
        _ = try await session.engine.search(SearchOptions(query: "cats", providers: ["giphy"], rating: "r"))
        await session.userState.cacheWrites.wait()
        version.withLockedValue { $0 = 2 }

        async let strictAndHurried = session.engine.search(SearchOptions(
            query: "cats", providers: ["giphy", "openlibrary"], timeout: .milliseconds(300), rating: "g"))
        async let freshAndPatient = session.engine.search(SearchOptions(
            query: "cats", providers: ["giphy", "openlibrary"], timeout: .seconds(10), rating: "r", noCache: true))
        async let cached = session.engine.search(SearchOptions(query: "cats", providers: ["giphy"], rating: "r"))
        let (hurried, patient, fromCache) = try await (strictAndHurried, freshAndPatient, cached)
        let requests = harness.server.requests.filter { $0.path.hasSuffix("/gifs/search") }
        await session.close()
        try await harness.stop()

        func ids(_ result: SearchResult) -> [String] { result.results.map(\.item.id.description) }
        func status(_ result: SearchResult, _ id: String) -> ProviderStatus? { result.outcomes.first { $0.provider == id }?.status }
        // Rating g, asked of the server (nothing cached for it); Open Library past its 300 ms deadline.
        #expect(ids(hurried) == ["giphy:g-v2"])
        #expect(status(hurried, "openlibrary") == .timeout)
        // Rating r without the cache: the server's current answer, and Open Library waited for.
        #expect(ids(patient).contains("giphy:r-v2"))
        #expect(ids(patient).contains("openlibrary:OL1W"))
        #expect(status(patient, "openlibrary") == .ok)
        // Rating r with the cache: the stored first answer.
        #expect(ids(fromCache) == ["giphy:r-v1"])
        // Each request carried its own call's rating.
        #expect(requests.compactMap { $0.queryValue("rating") }.sorted() == ["g", "r", "r"])
    }
}
