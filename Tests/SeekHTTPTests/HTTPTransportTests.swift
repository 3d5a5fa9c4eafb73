import Foundation
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting
import Testing

/// The real AsyncHTTPClient transport against the loopback fixture server.
@Suite("HTTP transport")
struct HTTPTransportTests {
    /// Runs `body` with a fresh server and transport, shutting both down after.
    func withServer(_ body: (FixtureServer, ProviderClient) async throws -> Void) async throws {
        let server = try await FixtureServer.start()
        let transport = AsyncHTTPTransport()
        let client = ProviderClient(provider: "testprov", transport: transport, secrets: ["sekrit-key-123"], timeout: .seconds(2))
        do {
            try await body(server, client)
        } catch {
            try? await transport.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await transport.shutdown()
        try await server.shutdown()
    }

    func kind(of operation: () async throws -> Void) async -> SeekError? {
        do {
            try await operation()
            return nil
        } catch {
            return error as? SeekError
        }
    }

    @Test("a 200 JSON reply decodes and the request carries a seek User-Agent")
    func okReply() async throws {
        try await withServer { server, client in
            server.route("/ok", .json(#"{"value": 7}"#))
            struct Body: Decodable { let value: Int }
            let body = try await client.getJSON(Body.self, from: server.url("/ok"))
            #expect(body.value == 7)
            #expect(server.requests.first?.header("user-agent")?.hasPrefix("seek/") == true)
        }
    }

    @Test("HTTP statuses map to typed errors", arguments: [
        (404, "notFound"), (401, "unauthorized"), (403, "unauthorized"), (500, "httpStatus"), (503, "httpStatus"),
    ])
    func statusMapping(status: Int, expected: String) async throws {
        try await withServer { server, client in
            server.route("/x", fault: .status(status, body: #"{"error":"boom"}"#))
            let error = await kind { _ = try await client.get(server.url("/x")) }
            let name: String? = switch error?.kind {
            case .notFound: "notFound"
            case .unauthorized: "unauthorized"
            case .some(.httpStatus) where error?.kind.statusCode == status: "httpStatus"
            default: nil
            }
            #expect(name == expected)
            #expect(error?.provider == "testprov")
        }
    }

    @Test("429 with Retry-After carries the delay")
    func rateLimited() async throws {
        try await withServer { server, client in
            server.route("/x", fault: .status(429, body: "{}", headers: [("Retry-After", "30")]))
            let error = await kind { _ = try await client.get(server.url("/x")) }
            #expect(error?.kind == .rateLimited(retryAfterSeconds: 30))
        }
    }

    @Test("a hang past the deadline is a timeout, and the connection is closed")
    func hangTimesOut() async throws {
        try await withServer { server, client in
            var fast = client
            fast.timeout = .milliseconds(300)
            server.route("/hang", fault: .hang)
            let started = ContinuousClock.now
            let error = await kind { _ = try await fast.get(server.url("/hang")) }
            #expect(error?.kind == .timeout(seconds: 0.3))
            #expect(ContinuousClock.now - started < .seconds(2))
            var open = server.openConnectionCount
            for _ in 0..<50 where open > 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = server.openConnectionCount
            }
            #expect(open == 0)
        }
    }

    @Test("a 64 MiB body is refused at the size cap")
    func hugeBodyRefused() async throws {
        try await withServer { server, client in
            server.route("/huge", fault: .hugeBody(bytes: 64 * 1024 * 1024))
            var capped = client
            capped.timeout = .seconds(20)
            let error = await kind { _ = try await capped.get(server.url("/huge")) }
            #expect(error?.kind == .bodyTooLarge(limitBytes: HTTPRequest.defaultMaxBodyBytes))
        }
    }

    @Test("malformed JSON is undecodable, with a snippet and never the key")
    func malformed() async throws {
        try await withServer { server, client in
            server.route("/bad", .json(#"{"docs": [ {"key": sekrit-key-123"#))
            struct Body: Decodable { let docs: [String] }
            let error = await kind { _ = try await client.getJSON(Body.self, from: server.url("/bad")) }
            #expect(error?.kind == .undecodable)
            #expect(error?.description.contains("testprov") == true)
            #expect(error?.description.contains("sekrit-key-123") == false)
        }
    }

    @Test("a redirect loop stops at the redirect limit")
    func redirectLoop() async throws {
        try await withServer { server, client in
            server.route("/loop", fault: .redirectLoop)
            let error = await kind { _ = try await client.get(server.url("/loop")) }
            #expect(error?.kind == .network)
            #expect(error?.detail.contains("redirect") == true)
        }
    }

    @Test("a refused connection is a network error naming the provider")
    func connectionRefused() async throws {
        let transport = AsyncHTTPTransport()
        let client = ProviderClient(provider: "testprov", transport: transport, timeout: .seconds(2))
        let error = await kind { _ = try await client.get(try #require(URL(string: "http://127.0.0.1:1/x"))) }
        try await transport.shutdown()
        #expect(error?.kind == .network)
        #expect(error?.description.hasPrefix("testprov:") == true)
    }

    @Test("a key in the URL never appears in an error")
    func keyNeverInErrors() async throws {
        try await withServer { server, client in
            server.route("/x", fault: .status(500, body: "echo api_key=sekrit-key-123"))
            let error = await kind { _ = try await client.get(server.url("/x?api_key=sekrit-key-123&q=a")) }
            let text = try #require(error).description
            #expect(!text.contains("sekrit-key-123"))
            #expect(text.contains("REDACTED"))
        }
    }
}
