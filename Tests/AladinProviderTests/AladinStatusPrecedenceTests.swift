import AladinProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

@Suite("Aladin: the HTTP status wins over an error object for rate limits and server failures")
struct AladinStatusPrecedenceTests {
    @Test("a 429 with Retry-After and an Aladin error object is rate limited, keeping the Retry-After")
    func rateLimitWithErrorObject() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, FixtureResponse(
                status: 429, headers: [("Retry-After", "30")],
                body: Array(#"{"errorCode": 429, "errorMessage": "too many"}"#.utf8)))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "오베")) }
            #expect(error?.kind == .rateLimited(retryAfterSeconds: 30))
            #expect(error?.description.contains(fakeKey) == false)
        }
    }

    @Test("a 503 with an Aladin error object is an HTTP 503")
    func serverFailureWithErrorObject() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, FixtureResponse(status: 503, body: Array(#"{"errorCode": 1, "errorMessage": "점검 중"}"#.utf8)))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "오베")) }
            #expect(error?.kind == .httpStatus(503))
        }
    }

    @Test("an error object sent with HTTP 200 still decides the error")
    func errorObjectWithOK() async throws {
        try await withAladin { provider, server in
            server.route(searchPath, .json(#"{"errorCode": 100, "errorMessage": "잘못된 TTBKey 입니다."}"#))
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "오베")) }
            #expect(error?.kind == .unauthorized)
        }
    }
}
