import Foundation
import HTTPTypes
import HummingbirdTesting
import SeekRuntime
import Testing

/// The JSON API reports the session's refusal as it is: 400, the session's code and its words.
@Suite("seek serve: the session's refusals over HTTP")
struct APIRefusalTests {
    @Test("a bad search is 400 with the code and message the session gives the same input", arguments: [
        ("limit=0", SearchQuery(query: "harbor", limit: 0)),
        ("limit=101", SearchQuery(query: "harbor", limit: 101)),
        ("limit=-5", SearchQuery(query: "harbor", limit: -5)),
        ("limit=1000000000000", SearchQuery(query: "harbor", limit: 1_000_000_000_000)),
        ("providers=nope", SearchQuery(query: "harbor", providers: "nope")),
        ("cursor=not-a-cursor", SearchQuery(query: "harbor", cursor: "not-a-cursor")),
        ("limit=100&page=1002", SearchQuery(query: "harbor", limit: 100, page: 1002)),
        ("language=xyz", SearchQuery(query: "harbor", language: "xyz")),
    ])
    func sameRefusal(parameters: String, request: SearchQuery) async throws {
        let harness = try await ServerHarness.start()
        let expected = await #expect(throws: RequestError.self) { try await harness.session.check(request) }
        let (status, response) = try await harness.withRouter { client in
            try await client.execute(uri: "/api/v1/search?q=harbor&" + parameters, method: .get) { ($0.status, $0) }
        }
        try await harness.stop()
        let error = try #require(response.json?["error"] as? [String: Any])
        #expect(status == .badRequest)
        #expect(error["code"] as? String == expected?.code.rawValue)
        #expect(error["message"] as? String == expected?.message)
    }

    @Test("a malformed item id is 400 invalid_id, as the session says")
    func malformedItemID() async throws {
        let harness = try await ServerHarness.start()
        let (status, response) = try await harness.withRouter { client in
            try await client.execute(uri: "/api/v1/items/nocolon", method: .get) { ($0.status, $0) }
        }
        try await harness.stop()
        let error = try #require(response.json?["error"] as? [String: Any])
        #expect(status == .badRequest)
        #expect(error["code"] as? String == RequestErrorCode.invalidID.rawValue)
        #expect(error["message"] as? String == "'nocolon' is not a PROVIDER:ID item id")
    }
}
