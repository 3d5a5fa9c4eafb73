import Foundation
import ITBookstore
import SeekCore
import SeekKit

// The outside package's check (Examples/outside-provider.sh): IT Bookstore built in a package of its own,
// on Seek's products by version, answering from its own recordings, which the EmbedFiles plugin compiled
// into it. No network: a transport of this file's own serves the provider's demo routes.

/// Answers each request with the provider's demo route for its path, as `--demo` would.
struct DemoTransport: HTTPTransport {
    let base: URL
    let demo: ProviderDemo

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = String(request.url.path.dropFirst(base.path.count))
        let route = demo.routes.first { route in
            route.path.hasSuffix("*") ? path.hasPrefix(String(route.path.dropLast())) : path == route.path
        }
        guard let route else { return HTTPResponse(status: 404, body: Data(#"{"error": "no demo route"}"#.utf8)) }
        let answer = route.answer(DemoRequest(path: path))
        return HTTPResponse(status: answer.status, headers: ["content-type": "application/json"], body: Data(answer.body))
    }
}

struct CheckFailure: Error, CustomStringConvertible {
    let description: String
}

func check(_ condition: Bool, _ what: String) throws {
    guard condition else { throw CheckFailure(description: what) }
}

do {
    guard let demo = ITBookstoreProvider.factory.demo else { throw CheckFailure(description: "the factory declares no demo") }
    for name in ["search_devops_sample.json", "new_sample.json", "book_9781617294136_sample.json"] {
        try check(demo.recording(name)?.isEmpty == false, "Demo/\(name) is not embedded (the EmbedFiles plugin did not run)")
    }
    guard let base = URL(string: "http://itbook.invalid/1.0") else { throw CheckFailure(description: "bad base URL") }
    let provider = ITBookstoreProvider(baseURL: base, transport: DemoTransport(base: base, demo: demo))
    let page = try await provider.search(SearchRequest(query: "devops"))
    try check(!page.items.isEmpty, "a search for devops found nothing")
    let record = try await provider.detail(ItemID(provider: ITBookstoreProvider.id, value: "9781617294136"))
    try check(record.item.identifiers.isbn13.contains("9781617294136"), "the record has not its ISBN-13")
    let trending = try await provider.trending(limit: 5)
    try check(!trending.items.isEmpty, "no new releases")
    print("outside provider: \(page.items.count) results for devops, "
        + "detail \(record.item.title), \(trending.items.count) new releases, from \(ITBookstoreProvider.id)'s embedded recordings")
} catch {
    FileHandle.standardError.write(Data("outside provider: FAILED: \(error)\n".utf8))
    exit(1)
}
