import Foundation
import GoogleBooksProvider
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// A key distinctive enough that finding it in any text proves a leak.
let fakeKey = "AIzaTESTKEY-googlebooks-7c1e-do-not-leak"

let volumesPath = "/books/v1/volumes"

/// Runs `body` against a fresh fixture server and a Google Books provider whose base URL is the server's.
func withGoogleBooks<T>(
    key: String? = fakeKey, _ body: (GoogleBooksProvider, FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    do {
        let provider = GoogleBooksProvider(baseURL: server.baseURL, apiKey: key, transport: transport)
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

/// A shared Google Books fixture served with `status`, or nil when the shared fixtures are absent.
func sharedFixture(_ name: String, status: Int = 200) throws -> FixtureResponse? {
    guard let url = SharedFixtures.url("googlebooks", name) else { return nil }
    return FixtureResponse(
        status: status, headers: [("Content-Type", "application/json; charset=UTF-8")], body: Array(try Data(contentsOf: url)))
}

/// One volume as JSON text; `info` members are spliced into `volumeInfo` verbatim.
func volumeJSON(id: String = "s77iyQEACAAJ", title: String = "Fantastic Beasts", info: String = "") -> String {
    let extra = info.isEmpty ? "" : ", " + info
    return #"{"kind": "books#volume", "id": "\#(id)", "volumeInfo": {"title": "\#(title)", "authors": ["J. K. Rowling"], "#
        + #""publishedDate": "2020-02-06", "industryIdentifiers": [{"type": "ISBN_13", "identifier": "9781408896945"}], "#
        + #""imageLinks": {"smallThumbnail": "http://books.google.com/books/content?id=\#(id)&printsec=frontcover&img=1&zoom=5&source=gbs_api", "#
        + #""thumbnail": "http://books.google.com/books/content?id=\#(id)&printsec=frontcover&img=1&zoom=1&edge=curl&source=gbs_api"}\#(extra)}}"#
}

/// A `books#volumes` answer holding `volumes`.
func volumesJSON(_ volumes: [String], total: Int) -> String {
    #"{"kind": "books#volumes", "totalItems": \#(total), "items": [\#(volumes.joined(separator: ","))]}"#
}
