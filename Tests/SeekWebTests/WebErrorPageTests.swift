import Foundation
import Hummingbird
import HummingbirdTesting
import SeekLoopback
import SeekTesting
import Testing

/// What a reader sees when the provider fails an item's page: what happened in words, naming the
/// provider; never the upstream's URL, its body or a key (those go to the log).
@Suite("seek serve: a detail page the provider cannot answer")
struct WebErrorPageTests {
    /// GETs `uri` through the router of a harness whose providers serve `prepare`'s answers.
    func page(_ uri: String, prepare: @Sendable (ServerHarness) -> Void) async throws -> (HTTPResponse.Status, String) {
        let harness = try await ServerHarness.start()
        prepare(harness)
        let answer = try await harness.withRouter { client in
            try await client.execute(uri: uri, method: .get) { ($0.status, String(buffer: $0.body)) }
        }
        try await harness.stop()
        return answer
    }

    @Test("a book Open Library no longer has is a 404 page saying so, without the upstream's URL or body")
    func vanishedItem() async throws {
        let (status, html) = try await page("/items/openlibrary:OL77W") { harness in
            harness.fixtures.route("/ol/works/OL77W.json", .json(#"{"error": "notfound", "key": "/works/OL77W"}"#, status: 404))
        }
        #expect(status == .notFound)
        #expect(html.contains("Open Library no longer has this book."), "\(html)")
        for leak in ["127.0.0.1", "/works/OL77W", "notfound", "HTTP 404", "body:"] {
            #expect(!html.contains(leak), "the page shows \(leak)")
        }
    }

    @Test("a GIF GIPHY refuses for too many requests is a page saying so, without the URL, body or key")
    func rateLimitedItem() async throws {
        let (status, html) = try await page("/items/giphy:abc123") { harness in
            harness.fixtures.route("/giphy/v1/gifs/abc123", .json(#"{"message": "API rate limit exceeded"}"#, status: 429))
        }
        #expect(status == .serviceUnavailable)
        #expect(html.contains("GIPHY is receiving too many requests just now."), "\(html)")
        for leak in ["127.0.0.1", "api_key", ProviderSamples.keys["SEEK_GIPHY_API_KEY"] ?? "giphy-test-key", "rate limit exceeded"] {
            #expect(!html.contains(leak), "the page shows \(leak)")
        }
    }

    @Test("an unreachable provider is a page saying it could not be reached, without its address")
    func unreachableItem() async throws {
        let (status, html) = try await page("/items/openlibrary:OL78W") { harness in
            harness.fixtures.route("/ol/works/OL78W.json", fault: .closeConnection)
        }
        #expect(status == .badGateway)
        #expect(html.contains("Open Library could not be reached."), "\(html)")
        #expect(!html.contains("127.0.0.1"), "\(html)")
    }
}
