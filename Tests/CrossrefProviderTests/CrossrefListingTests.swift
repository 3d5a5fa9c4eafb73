import CrossrefProvider
import Foundation
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekRuntime
import SeekTesting
import Testing

/// How `seek providers`, `/api/v1/providers` and MCP's `providers` list Crossref, and its demo recordings.
@Suite("Crossref listing and demo recordings")
struct CrossrefListingTests {
    @Test("the contact address is listed as optional: ready without it, never shown with it")
    func listing() async throws {
        let transport = AsyncHTTPTransport()
        defer { Task { try? await transport.shutdown() } }
        let base = try #require(URL(string: "http://127.0.0.1:9"))
        let plain = ProviderDocument(CrossrefProvider(baseURL: base, transport: transport))
        #expect(plain.status == "ready")
        #expect(plain.missing.isEmpty)
        #expect(plain.needs.map(\.variable) == ["SEEK_CROSSREF_MAILTO"])
        #expect(plain.needs.first?.required == false)
        #expect(plain.shortcuts == ["cr"])
        let polite = ProviderDocument(CrossrefProvider(baseURL: base, mailto: fakeMailto, transport: transport))
        let text = JSONText.compact(polite)
        #expect(text.contains(#""required":false,"set":true"#))
        #expect(!text.contains(fakeMailto))
    }

    @Test("every Demo recording is compiled in byte for byte, and is the shared fixture of that name")
    func recordings() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Providers/Crossref/Demo")
        let demo = try #require(CrossrefProvider.factory.demo)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 4)
        for file in files {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
            #expect(demo.recording(file).map { Array($0.utf8) } == Array(bytes), "\(file)")
            if let shared = SharedFixtures.url("crossref", file) {
                #expect(try Data(contentsOf: shared) == bytes, "\(file) differs from the shared fixture")
            }
        }
    }
}

extension CrossrefListingTests {
    @Test("each demo sample query gets recorded works")
    func sampleQueriesAnswer() throws {
        let demo = try #require(CrossrefProvider.factory.demo)
        #expect(!demo.sampleQueries.isEmpty)
        let search = try #require(demo.routes.first { $0.path == "/works" })
        for query in demo.sampleQueries {
            let answer = search.answer(DemoRequest(path: "/works", query: ["query": query, "rows": "20"]))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
            #expect((((object["message"] as? [String: Any])?["items"] as? [Any])?.count ?? 0) > 0, "\(query)")
        }
    }
}
