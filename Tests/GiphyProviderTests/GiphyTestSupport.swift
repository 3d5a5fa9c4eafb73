import Foundation
import GiphyProvider
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting
import Testing

/// A key distinctive enough that finding it in any text proves a leak.
let fakeKey = "gphTESTKEY-7f3a9c1e5b-do-not-leak"

/// Runs `body` against a fresh fixture server and a GIPHY provider pointed at it, then tears both down.
func withGiphy<T>(
    key: String? = fakeKey, rating: String? = nil,
    _ body: (GiphyProvider, FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    do {
        let provider = GiphyProvider(baseURL: server.baseURL, apiKey: key, transport: transport, rating: rating)
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

/// A response with any status whose body is `text`.
func body(_ text: String, status: Int = 200, headers: [(String, String)] = [("Content-Type", "application/json")]) -> FixtureResponse {
    FixtureResponse(status: status, headers: headers, body: Array(text.utf8))
}

/// A shared GIPHY fixture served with `status`, or nil when the shared fixtures are absent.
func sharedFixture(_ name: String, status: Int = 200) throws -> FixtureResponse? {
    guard let url = SharedFixtures.url("giphy", name) else { return nil }
    let data = try Data(contentsOf: url)
    return FixtureResponse(status: status, body: Array(data))
}

/// A minimal modern GIF object as JSON text.
func gifJSON(
    id: String, title: String = "A GIF", username: String = "", slug: String? = nil,
    imported: String = "2021-05-06 07:08:09", width: String = "200", url: String? = nil
) -> String {
    let media = url ?? "https://media0.giphy.com/media/\(id)/200w.gif?cid=abc&rid=200w.gif&ct=g"
    return """
    {"type":"gif","id":"\(id)","url":"https://giphy.com/gifs/\(slug ?? id)","slug":"\(slug ?? id)",
     "username":"\(username)","title":"\(title)","rating":"g","import_datetime":"\(imported)",
     "trending_datetime":"0000-00-00 00:00:00",
     "images":{"fixed_width":{"url":"\(media)","width":"\(width)","height":"113"},
               "fixed_width_small":{"url":"https://media0.giphy.com/media/\(id)/100w.gif","width":"100","height":"56"},
               "original":{"url":"https://media0.giphy.com/media/\(id)/giphy.gif","width":"480","height":"270","mp4":"https://media0.giphy.com/media/\(id)/giphy.mp4"},
               "downsized_small":{"width":"480","height":"270","mp4":"https://media0.giphy.com/media/\(id)/giphy-downsized-small.mp4"},
               "hd":{}}}
    """
}

/// A list body holding `gifs`, with `total_count`.
func listJSON(_ gifs: [String], total: Int, offset: Int = 0) -> String {
    """
    {"data":[\(gifs.joined(separator: ","))],
     "pagination":{"total_count":\(total),"count":\(gifs.count),"offset":\(offset)},
     "meta":{"status":200,"msg":"OK","response_id":"r3sp0ns3"}}
    """
}

/// `count` GIFs with ids `g0`, `g1`, ….
func gifs(_ count: Int) -> [String] {
    (0..<count).map { gifJSON(id: "g\($0)") }
}

/// Runs `body` with a real transport that is shut down afterwards, whatever happens.
func withTransport<T>(_ body: (AsyncHTTPTransport) async throws -> T) async throws -> T {
    let transport = AsyncHTTPTransport()
    do {
        let result = try await body(transport)
        try await transport.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        throw error
    }
}
