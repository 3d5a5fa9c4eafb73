import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SeekCore
import SeekWeb
import Testing

/// A request is checked before any store or provider is asked: a malformed id, cursor or parameter
/// is a 400 whatever the state of the database (issue 52).
@Suite("seek serve: bad requests are 400 before any store is asked")
struct RequestValidationOrderTests {
    @Test(
        "with the shared database down, a malformed request is 400 naming its cause, not 503",
        arguments: [
            (HTTPRequest.Method.put, "/api/v1/favorites/not-an-id", "invalid_id"),
            (.delete, "/api/v1/favorites/not-an-id", "invalid_id"),
            (.put, "/api/v1/favorites/nosuchprovider:OL1W", "unknown_provider"),
            (.put, "/api/v1/favorites/openlibrary:OL1W?rating=nc-99", "invalid_parameter"),
            (.put, "/api/v1/favorites/openlibrary:OL1W?no_cache=perhaps", "invalid_parameter"),
            (.get, "/api/v1/search?q=harbor&cursor=%25%25not-a-cursor", "invalid_cursor"),
            (.get, "/api/v1/search?q=harbor&cursor=abc&rating=nc-99", "invalid_parameter"),
            (.get, "/api/v1/search?q=harbor&limit=abc", "invalid_parameter"),
            (.get, "/api/v1/items/not-an-id", "invalid_id"),
        ])
    func malformedIsBadRequestWithTheDatabaseDown(method: HTTPRequest.Method, uri: String, code: String) async throws {
        let harness = try await ServerHarness.start(environment: SharedStoreRouteTests.downDatabase)
        harness.serveBooks()
        let response = try await harness.withRouter { client in
            try await client.execute(uri: uri, method: method) { $0 }
        }
        try await harness.stop()
        #expect(response.status == .badRequest, "\(method) \(uri): \(response.status) \(response.text.prefix(200))")
        let error = response.json?["error"] as? [String: Any]
        #expect(error?["code"] as? String == code, "\(response.text.prefix(200))")
    }
}
