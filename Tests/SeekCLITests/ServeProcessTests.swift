#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting
import Testing

/// `seek serve` as a process: its port line, its shutdown on SIGTERM, and its database shared with
/// the CLI while it runs.
@Suite("seek serve as a process", .serialized, .enabled(if: SeekBinary.url != nil, "the seek executable was not built"))
struct ServeProcessTests {
    /// A running `seek serve --port 0` (and `arguments`) and the URL from its port line.
    final class ServeProcess: Sendable {
        let process: Process
        let url: String
        let stderr: Pipe

        init(environment: [String: String], executable: URL? = SeekBinary.url, arguments: [String] = []) async throws {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["serve", "--port", "0"] + arguments
            process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
            let stderr = Pipe()
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let reading = stderr.fileHandleForReading
            let url = try await offThePool { () throws -> String in
                var text = ""
                while !text.contains("\n") || !text.contains("http://") {
                    let data = reading.availableData
                    guard !data.isEmpty else { break }
                    text += String(decoding: data, as: UTF8.self)
                }
                guard let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
                    throw SeekError(.network, detail: "no port line in: \(text)")
                }
                return String(text[range])
            }
            self.process = process
            self.url = url
            self.stderr = stderr
        }

        /// GETs or changes `path` on the server.
        func request(_ path: String, method: String = "GET") async throws -> HTTPResponse {
            let transport = AsyncHTTPTransport()
            defer { Task { try? await transport.shutdown() } }
            guard let url = URL(string: self.url + path) else { throw SeekError(.invalidInput) }
            let response = try await transport.send(HTTPRequest(url: url, method: method, timeout: .seconds(10)))
            try await transport.shutdown()
            return response
        }
    }

    @Test("SIGTERM stops the server within 3 seconds with exit 0")
    func sigtermExitsCleanly() async throws {
        let harness = try await CLIHarness.start()
        let serve = try await ServeProcess(environment: harness.environment)
        let health = try await serve.request("/healthz")
        let clock = ContinuousClock()
        let signalled = clock.now
        kill(serve.process.processIdentifier, SIGTERM)
        let process = serve.process
        try await offThePool { process.waitUntilExit() }
        let took = clock.now - signalled
        try await harness.stop()
        #expect(health.status == 200)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(took < .seconds(3))
    }

    @Test("seek serve runs as seek-hosts in the same process: the pid seek started with is the server's")
    func serveRunsInTheHostExecutable() async throws {
        let harness = try await CLIHarness.start()
        let serve = try await ServeProcess(environment: harness.environment)
        let pid = serve.process.processIdentifier
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        let health = try await serve.request("/healthz")
        kill(pid, SIGTERM)
        let process = serve.process
        try await offThePool { process.waitUntilExit() }
        try await harness.stop()
        #expect(executable.hasSuffix("/seek-hosts"), "running: \(executable)")
        #expect(health.status == 200)
        #expect(process.terminationStatus == 0)
    }

    @Test("a favourite added by the CLI shows in the server's list, and one added over HTTP in the CLI's")
    func favoritesSharedWithTheCLI() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        harness.server.route("/ol/works/OL1W.json", .json(#"{"title": "Book One", "key": "/works/OL1W", "type": {"key": "/type/work"}}"#))
        let serve = try await ServeProcess(environment: harness.environment)
        let added = await harness.run(["favorites", "add", "openlibrary:OL45804W"])
        let listedByServer = try await serve.request("/api/v1/favorites")
        let put = try await serve.request("/api/v1/favorites/openlibrary:OL1W", method: "PUT")
        let listedByCLI = await harness.run(["favorites", "list", "--format", "json"])
        kill(serve.process.processIdentifier, SIGTERM)
        let process = serve.process
        try await offThePool { process.waitUntilExit() }
        try await harness.stop()
        #expect(added.code == 0)
        #expect(String(decoding: listedByServer.body, as: UTF8.self).contains("openlibrary:OL45804W"))
        #expect(put.status == 200)
        let ids = (listedByCLI.json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(Set(ids) == ["openlibrary:OL45804W", "openlibrary:OL1W"])
    }
}
