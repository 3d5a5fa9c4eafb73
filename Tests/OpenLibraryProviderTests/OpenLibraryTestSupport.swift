import Foundation
import OpenLibraryProvider
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting

/// Runs `body` with a fresh fixture server and an `OpenLibraryProvider` talking to it over the real
/// transport; the API lives at `apiPath` and the cover store at `/covers` on the same server.
func withOpenLibrary<T>(
    apiPath: String = "", _ body: (FixtureServer, OpenLibraryProvider) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    let provider = OpenLibraryProvider(
        baseURL: apiPath.isEmpty ? server.baseURL : server.url(apiPath), coversURL: server.url("/covers"),
        transport: transport)
    do {
        let result = try await body(server, provider)
        try await transport.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        try? await server.shutdown()
        throw error
    }
}

/// An `openlibrary:` item id.
func olid(_ value: String) -> ItemID {
    ItemID(provider: "openlibrary", value: value)
}

/// The recorded Open Library responses in ../shared/fixtures, when present.
enum OpenLibraryFixtures {
    static var directory: URL? {
        SharedFixtures.directory?.appendingPathComponent("openlibrary", isDirectory: true)
    }

    /// Every recorded response (the `.json` files), sorted by name.
    static func all() throws -> [URL] {
        guard let directory else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func path(_ name: String) throws -> String {
        guard let url = SharedFixtures.url("openlibrary", name) else { throw FixtureMissing(name: name) }
        return url.path
    }

    /// A fixture file parsed, to read what a test expects from it.
    static func json(_ url: URL) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
    }

    /// The file whose name starts with `prefix` (`author_OL34184A_`), if any.
    static func file(prefix: String) throws -> URL? {
        try all().first { $0.lastPathComponent.hasPrefix(prefix) }
    }

    /// The route for every request under `folder` (`/authors/*`): the fixture whose name starts
    /// with `<kind>_<id>_`, else 404 `{"error":"notfound"}` as Open Library answers.
    static func serve(_ server: FixtureServer, folder: String, kind: String) {
        let files = (try? all()) ?? []
        server.route("/\(folder)/*") { request in
            let id = request.path.split(separator: "/").last.map { String($0.dropLast(".json".count)) } ?? ""
            if let file = files.first(where: { $0.lastPathComponent.hasPrefix("\(kind)_\(id)_") }),
               let data = try? Data(contentsOf: file) {
                return FixtureResponse(body: Array(data))
            }
            return .json(#"{"error": "notfound", "key": "/\#(folder)/\#(id)"}"#, status: 404)
        }
    }
}

struct FixtureMissing: Error, CustomStringConvertible {
    let name: String
    var description: String { "shared fixture \(name) is missing" }
}
