import DeclaredProvider
import Foundation
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// The bundled declarations' demos, served as demo mode serves them (each route under `/<id>`, the base
/// URL variable pointed there, keys given stand-ins): the sample queries answer, and so does the detail
/// of what they find. No fixture folder needed: the recordings are compiled in.
@Suite("Bundled declarations: demo recordings")
struct BundledDemoTests {
    @Test("each bundled source answers its sample queries and the detail of its first result from its recordings",
          arguments: ["kakao", "naver", "gutendex"])
    func demo(id: String) async throws {
        let factory = try bundledFactory(id)
        let demo = try #require(factory.demo, "\(id) declares a demo")
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        var environment: [String: String] = [:]
        for route in demo.routes {
            server.route("/\(id)" + route.path, handler: { request in
                let answer = route.answer(DemoRequest(path: String(request.path.dropFirst(id.count + 1)), query: Self.query(request)))
                return FixtureResponse(status: answer.status, body: answer.body)
            })
        }
        for (variable, setting) in demo.settings {
            switch setting {
            case .url(let path): environment[variable] = server.url("/\(id)" + path).absoluteString
            default: environment[variable] = "demo-stand-in-key"
            }
        }
        let outcome = await declaredError {
            let provider = try factory.make(ProviderEnvironment(settings: Settings(environment: environment), transport: transport))
            #expect(provider.isConfigured)
            #expect(!demo.sampleQueries.isEmpty)
            for query in demo.sampleQueries {
                let page = try await provider.search(SearchRequest(query: query))
                #expect(!page.items.isEmpty, "\(id): '\(query)' answers nothing")
                if let first = page.items.first {
                    let detail = try await provider.detail(first.id)
                    #expect(detail.item.id == first.id)
                }
            }
            let none = try await provider.search(SearchRequest(query: "zzqxj no such thing"))
            #expect(none.items.isEmpty)
            if provider.descriptor.capabilities.contains(.trending) {
                #expect(try await provider.trending(limit: 5).items.count == 5)
            }
        }
        try await transport.shutdown()
        try await server.shutdown()
        #expect(outcome == nil, "\(String(describing: outcome))")
    }

    @Test("every recording in Bundled/Demo/<id> is compiled in byte for byte, and every file a route names exists",
          arguments: ["kakao", "naver", "gutendex"])
    func recordings(id: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = root.appendingPathComponent("Providers/Declared/Bundled/Demo/\(id)")
        let demo = try #require(try bundledFactory(id).demo)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(!files.isEmpty)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("PROVENANCE.md").path))
        for file in files {
            let expected = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(demo.recording(file).map { Array($0.utf8) } == Array(expected), "\(id)/\(file)")
        }
        let named = try #require(try JSONDeclaredProvider.bundledDeclaration(id).demo).routes.flatMap(\.files)
        #expect(Set(named) == Set(files), "every recording is used, and every one used is there")
    }

    private static func query(_ request: RecordedRequest) -> [String: String] {
        var values: [String: String] = [:]
        for pair in (request.query ?? "").split(separator: "&") {
            let name = String(pair.split(separator: "=", maxSplits: 1).first ?? "")
            if values[name] == nil, let value = request.queryValue(name) { values[name] = value }
        }
        return values
    }
}
