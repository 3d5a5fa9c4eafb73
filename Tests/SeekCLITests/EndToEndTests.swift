import Foundation
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

/// Runs the built `seek` binary as a user would, against the fixture server.
enum SeekBinary {
    /// The `seek` executable next to the test bundle, if it was built.
    static var url: URL? {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            var dir = URL(fileURLWithPath: first).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(dir.appendingPathComponent("seek"))
                dir = dir.deletingLastPathComponent()
            }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/seek"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) && !$0.hasDirectoryPath }
    }

    static func run(_ arguments: [String], environment: [String: String], executable: URL? = nil) throws -> RunResult {
        guard let url = executable ?? url else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(code: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Runs blocking work (a child process, a pipe read) on a thread of its own, never on the
/// cooperative pool: two cores' worth of blocked pool threads would stall every other test's timers.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

@Suite("seek binary end to end", .enabled(if: SeekBinary.url != nil, "the seek executable was not built"))
struct EndToEndTests {
    @Test("search prints DESIGN's JSON and exits 0")
    func search() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let environment = harness.environment
        let result = try await offThePool {
            try SeekBinary.run(["search", "harbor", "--providers", "openlibrary", "--format", "json"], environment: environment)
        }
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let items = result.json?["items"] as? [[String: Any]]
        #expect(items?.first?["id"] as? String == "openlibrary:OL27448W")
    }

    @Test("detail prints the work and its author")
    func detail() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let environment = harness.environment
        let result = try await offThePool {
            try SeekBinary.run(["detail", "openlibrary:OL45804W"], environment: environment)
        }
        try await harness.stop()
        #expect(result.code == 0)
        #expect(result.stdout.contains("Roald Dahl"))
    }

    @Test("image writes the exact bytes")
    func image() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let environment = harness.environment
        let file = harness.home.appendingPathComponent("cover.jpg").path
        let result = try await offThePool {
            try SeekBinary.run(["image", "openlibrary:OL45804W", "-o", file], environment: environment)
        }
        let bytes = FileManager.default.contents(atPath: file)
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(bytes == Data(OpenLibrarySamples.coverBytes))
    }

    @Test("failures exit 4 with one stderr line and no stack trace", arguments: ["500", "malformed", "hang", "huge"])
    func failures(fault: String) async throws {
        let harness = try await CLIHarness.start()
        switch fault {
        case "500": harness.server.route("/ol/search.json", fault: .status(500))
        case "malformed": harness.server.route("/ol/search.json", fault: .malformedJSON)
        case "hang": harness.server.route("/ol/search.json", fault: .hang)
        default: harness.server.route("/ol/search.json", fault: .hugeBody(bytes: 64 * 1024 * 1024))
        }
        let environment = harness.environment
        let result = try await offThePool {
            try SeekBinary.run(["search", "harbor", "--providers", "openlibrary", "--timeout", fault == "huge" ? "20" : "1"],
                               environment: environment)
        }
        try await harness.stop()
        #expect(result.code == 4)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.contains("openlibrary") == true)
    }

    @Test("an empty result exits 0 with items []")
    func empty() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/search.json", .json(OpenLibrarySamples.emptySearch))
        let environment = harness.environment
        let result = try await offThePool {
            try SeekBinary.run(["search", "nothing", "--providers", "openlibrary", "--format", "json"], environment: environment)
        }
        try await harness.stop()
        #expect(result.code == 0)
        #expect(result.stdout.contains("\"items\" : [\n\n  ]") || (result.json?["items"] as? [Any])?.isEmpty == true)
    }
}
