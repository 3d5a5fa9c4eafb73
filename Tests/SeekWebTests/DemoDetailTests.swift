import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SeekKit
import SeekCore
import SeekWeb
import SeekRuntime
import Testing

/// `seek serve --demo`: every one of the first three results of README's demo searches opens its
/// detail page, from its own recording or built from the recorded search answer, with no network.
@Suite("seek serve --demo: the README's demo results open")
struct DemoDetailTests {
    /// README's demo searches, as the API's paths.
    static let readmeSearches = [
        "/api/v1/search?q=the%20lord%20of%20the%20rings",
        "/api/v1/search?q=capitalism%20and%20freedom",
        "/api/v1/search?q=cat&providers=giphy",
        "/api/v1/trending?providers=giphy",
        "/api/v1/search?q=%EC%9C%84%EB%8C%80%ED%95%9C%20%EC%9D%B4%EC%95%BC%EA%B8%B0&providers=aladin",
        "/api/v1/trending?providers=aladin",
    ]

    /// A server over a demo session with private state; `body` gets its router.
    static func withDemoServer<T: Sendable>(_ body: @Sendable @escaping (any TestClientProtocol) async throws -> T) async throws -> T {
        let demo = try await DemoMode.start()
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let settings = try Settings.load(environment: [
            "HOME": home.path, "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path,
            "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
        ])
        let session = try await SeekSession.open(settings: demo.applied(to: settings))
        var logger = Logger(label: "seek.serve.demo-test")
        logger.logLevel = .critical
        let server = SeekServer(session: session, port: 0, logger: logger)
        let result: Result<T, any Error>
        do {
            result = .success(try await Application(router: server.router(), logger: server.logger).test(.router) { client in try await body(client) })
        } catch {
            result = .failure(error)
        }
        await session.close()
        await demo.shutdown()
        return try result.get()
    }

    /// The first three items of `search`, each with the detail page link a result page gives it.
    static func firstThree(_ search: String, client: any TestClientProtocol) async throws -> [(id: String, title: String, href: String)] {
        let json = try await client.execute(uri: search, method: .get) { response in
            (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any]
        }
        let items = (json?["items"] as? [[String: Any]] ?? []).prefix(3)
        return items.map { item in
            let id = item["id"] as? String ?? ""
            let others = (item["sources"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.filter { $0 != id }
            let also = others.isEmpty ? "" : "?also=" + others.joined(separator: ",")
            return (id, item["title"] as? String ?? "", "/items/" + id + also)
        }
    }

    @Test("each of the first three results of a README demo search opens a detail page with its title", arguments: readmeSearches)
    func firstResultsOpen(search: String) async throws {
        let pages = try await Self.withDemoServer { client in
            var pages: [(id: String, status: HTTPResponse.Status, html: String, title: String?)] = []
            for item in try await Self.firstThree(search, client: client) {
                let page = try await client.execute(uri: item.href, method: .get) { ($0.status, String(buffer: $0.body)) }
                let title = try await client.execute(uri: "/api/v1/items/" + item.id, method: .get) { response in
                    ((try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any])?["title"] as? String
                }
                pages.append((item.id, page.0, page.1, title))
            }
            return pages
        }
        #expect(pages.count == 3, "\(search) gave \(pages.count) results")
        for page in pages {
            #expect(page.status == .ok, "\(page.id): \(page.html)")
            #expect(page.html.contains(#"<article class="detail" data-item-id="\#(page.id)">"#), "\(page.id)")
            #expect(!page.html.contains(#"role="alert""#), "\(page.id) shows an error")
            #expect(page.title?.isEmpty == false, "\(page.id) has no title in the API's detail")
        }
    }

    @Test("the image of each first result is a cover Seek draws (the demo records no image bytes), never fetched", arguments: readmeSearches)
    func firstResultsHaveDrawnCovers(search: String) async throws {
        let answers = try await Self.withDemoServer { client in
            var answers: [(id: String, status: HTTPResponse.Status, type: String?, body: String)] = []
            for item in try await Self.firstThree(search, client: client) {
                let answer = try await client.execute(uri: "/api/v1/items/\(item.id)/image", method: .get) {
                    ($0.status, $0.headers[.contentType], String(buffer: $0.body))
                }
                answers.append((item.id, answer.0, answer.1, answer.2))
            }
            return answers
        }
        #expect(answers.count == 3)
        for answer in answers {
            #expect(answer.status == .ok, "\(answer.id): \(answer.body)")
            #expect(answer.type == "image/svg+xml", "\(answer.id)")
            #expect(answer.body.hasPrefix("<svg"), "\(answer.id)")
        }
    }

    @Test("a first result with no recording of its own says its detail was built from the recorded search answer")
    func synthesisedDetailSaysSo() async throws {
        let (first, html) = try await Self.withDemoServer { client in
            let first = try await Self.firstThree(Self.readmeSearches[0], client: client).first
            let html = try await client.execute(uri: first?.href ?? "/items/openlibrary:OL0W", method: .get) { String(buffer: $0.body) }
            return (first?.id, html)
        }
        #expect(first?.hasPrefix("openlibrary:") == true)
        // Said in a note apart from the description (the book's own words), in the reader's language.
        #expect(html.contains(#"<aside class="notice note" data-note"#), "\(html)")
        #expect(html.contains("this record is built from a recorded search answer"), "\(html)")
        #expect(!html.contains(#"<p class="description">\#(DemoRoutesNotice.text)"#), "\(html)")
    }

    @Test("a first result with a recording of its own opens that recording, with no demo notice")
    func recordedDetailIsTheRecording() async throws {
        let (title, description) = try await Self.withDemoServer { client in
            try await client.execute(uri: "/api/v1/items/aladin:9791191851069", method: .get) { response in
                let json = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any]
                return (json?["title"] as? String, json?["description"] as? String)
            }
        }
        #expect(title == "위대한 이야기")
        #expect(description?.contains(DemoRoutesNotice.text) == false)
    }
}

/// The words a detail built from a search answer starts its description with (DemoRoutes.synthesisNotice).
enum DemoRoutesNotice {
    static let text = "demo: built from the recorded search answer"
}
