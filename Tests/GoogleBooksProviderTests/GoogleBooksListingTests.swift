import Foundation
import GoogleBooksProvider
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekRuntime
import SeekTesting
import Testing

/// How `seek providers`, `/api/v1/providers` and MCP's `providers` list Google Books, and its demo recordings.
@Suite("Google Books listing and demo recordings")
struct GoogleBooksListingTests {
    @Test("without a key the listing says which variable is missing; with one it never shows the key")
    func listing() async throws {
        let transport = AsyncHTTPTransport()
        defer { Task { try? await transport.shutdown() } }
        let base = try #require(URL(string: "http://127.0.0.1:9"))
        let keyless = ProviderDocument(GoogleBooksProvider(baseURL: base, apiKey: nil, transport: transport))
        #expect(keyless.status == "no key")
        #expect(keyless.missing == ["SEEK_GOOGLEBOOKS_API_KEY"])
        #expect(JSONText.compact(keyless).contains(#""missing":["SEEK_GOOGLEBOOKS_API_KEY"]"#))
        #expect(keyless.shortcuts == ["gb"])
        let keyed = ProviderDocument(GoogleBooksProvider(baseURL: base, apiKey: fakeKey, transport: transport))
        #expect(keyed.status == "ready")
        #expect(keyed.missing.isEmpty)
        let text = JSONText.compact(keyed)
        #expect(text.contains(#""needs":[{"variable":"SEEK_GOOGLEBOOKS_API_KEY","purpose":"API key","required":true,"set":true}]"#))
        #expect(!text.contains(fakeKey))
    }

    @Test("the composition root registers Google Books with its bang, policy and demo")
    func registered() throws {
        let factory = try #require(CompositionRoot.builtInProviders.first { $0.id == "googlebooks" })
        #expect(factory.defaultRateLimit != nil)
        #expect(factory.demo != nil)
    }

    @Test("every Demo recording is compiled in byte for byte, and is the shared fixture of that name")
    func recordings() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Providers/GoogleBooks/Demo")
        let demo = try #require(GoogleBooksProvider.factory.demo)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 6)
        for file in files {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
            #expect(demo.recording(file).map { Array($0.utf8) } == Array(bytes), "\(file)")
            if let shared = SharedFixtures.url("googlebooks", file) {
                #expect(try Data(contentsOf: shared) == bytes, "\(file) differs from the shared fixture")
            }
        }
    }
}

extension GoogleBooksListingTests {
    @Test("each demo sample query gets recorded volumes")
    func sampleQueriesAnswer() throws {
        let demo = try #require(GoogleBooksProvider.factory.demo)
        #expect(!demo.sampleQueries.isEmpty)
        let search = try #require(demo.routes.first { $0.path == "/books/v1/volumes" })
        for query in demo.sampleQueries {
            let answer = search.answer(DemoRequest(path: "/books/v1/volumes", query: ["q": query, "maxResults": "10"]))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            #expect(((object["items"] as? [Any])?.count ?? 0) > 0, "\(query)")
        }
    }
}
