import CrossrefProvider
import Foundation
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// A contact address distinctive enough that finding it in any text proves a leak.
let fakeMailto = "seek-test-7f3a@example.invalid"

let worksPath = "/works"

/// The response headers the habanero cassettes recorded for the polite pool.
let politeHeaders = [
    ("Content-Type", "application/json"), ("x-api-pool", "polite"), ("x-rate-limit-limit", "10"),
    ("x-rate-limit-interval", "1s"), ("x-concurrency-limit", "3"),
]

/// Runs `body` against a fresh fixture server and a Crossref provider whose base URL is the server's.
func withCrossref<T>(
    mailto: String? = fakeMailto, _ body: (CrossrefProvider, FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    do {
        let provider = CrossrefProvider(baseURL: server.baseURL, mailto: mailto, transport: transport)
        let result = try await body(provider, server)
        try await transport.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        try? await server.shutdown()
        throw error
    }
}

/// The `SeekError` an operation throws, or nil (and a recorded issue) when it throws something else or nothing.
func seekError(_ operation: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> SeekError? {
    do {
        try await operation()
        Issue.record("expected a SeekError, but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as SeekError {
        return error
    } catch {
        Issue.record("expected a SeekError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A shared Crossref fixture's bytes, or nil when the shared fixtures are absent.
func sharedBytes(_ name: String) throws -> [UInt8]? {
    guard let url = SharedFixtures.url("crossref", name) else { return nil }
    return Array(try Data(contentsOf: url))
}

/// A shared Crossref fixture served with `status` and the recorded headers (`gzip` adds `Content-Encoding: gzip`).
func sharedFixture(_ name: String, status: Int = 200, contentType: String = "application/json", gzip: Bool = false) throws -> FixtureResponse? {
    guard let bytes = try sharedBytes(name) else { return nil }
    var headers = politeHeaders.filter { $0.0 != "Content-Type" } + [("Content-Type", contentType)]
    if gzip { headers.append(("Content-Encoding", "gzip")) }
    return FixtureResponse(status: status, headers: headers, body: bytes)
}

/// One work as JSON text; `extra` is spliced in verbatim.
func workJSON(doi: String = "10.1000/Book.1", type: String = "book", title: String = "A Whole Book", extra: String = "") -> String {
    let tail = extra.isEmpty ? "" : ", " + extra
    return #"{"DOI": "\#(doi)", "type": "\#(type)", "title": ["\#(title)"], "author": [{"given": "Ada", "family": "Lovelace", "sequence": "first"}], "#
        + #""issued": {"date-parts": [[1843, 10]]}, "ISBN": ["9780199830060"], "publisher": "Taylor & Francis", "URL": "https://doi.org/\#(doi)"\#(tail)}"#
}

/// A `work-list` answer holding `works`.
func worksJSON(_ works: [String], total: Int) -> String {
    #"{"status": "ok", "message-type": "work-list", "message-version": "1.0.0", "message": {"facets": {}, "total-results": \#(total), "items": [\#(works.joined(separator: ","))], "items-per-page": 20, "query": {"start-index": 0, "search-terms": "x"}}}"#
}

/// A `work` answer.
func workAnswer(_ work: String) -> String {
    #"{"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": \#(work)}"#
}
