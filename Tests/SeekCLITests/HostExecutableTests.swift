import ArgumentParser
import Foundation
import ITBookstoreProvider
@testable import SeekCLI
import Testing

/// `seek serve` and `seek mcp` hand the process to `seek-hosts`; when they cannot, they say why.
@Suite("serve and mcp in seek-hosts")
struct HostExecutableTests {
    @Test("serve's options are checked by seek itself: --port 70000 is a usage error, nothing is started")
    func serveOptionsValidatedBeforeHandOver() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["serve", "--port", "70000"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("--port must be between 0 and 65535"))
    }

    @Test("serve's help is seek's, with every option and its default")
    func serveHelp() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["serve", "--help"])
        try await harness.stop()
        #expect(result.code == 0)
        #expect(result.stdout.contains("USAGE: seek serve [--host <host>] [--port <port>] [--demo]"))
        #expect(result.stdout.contains("(default: 8080)"))
    }

    @Test("the launcher passes each option on as seek-hosts parses it")
    func optionsBecomeArgumentsAgain() throws {
        let serve = try ServeLauncher.parse(["--host", "0.0.0.0", "--port", "0", "--demo"])
        #expect(serve.options.arguments == ["--host", "0.0.0.0", "--port", "0", "--demo"])
        let defaults = try ServeLauncher.parse([])
        #expect(defaults.options.arguments == ["--host", "127.0.0.1", "--port", "8080"])
        #expect(try McpLauncher.parse(["--demo"]).options.arguments == ["--demo"])
        #expect(try McpLauncher.parse([]).options.arguments.isEmpty)
    }

    @Test("an executable that adds providers without the hosts refuses to serve without them, naming SeekHostsMain")
    func extraProvidersNeedTheHostsLinked() async throws {
        let harness = try await CLIHarness.start()
        let stdout = CapturedText(), stderr = CapturedText()
        let context = CLIContext(
            environment: harness.environment, stdout: stdout, stderr: stderr, extraProviders: [ITBookstoreProvider.factory])
        let code = await SeekMain.run(arguments: ["mcp"], context: context)
        try await harness.stop()
        #expect(code == 64)
        #expect(stderr.text.contains("SeekHostsMain.main(extraProviders:)"), "stderr: \(stderr.text)")
        #expect(stdout.text.isEmpty)
    }

    @Test("an in-process run with captured output never hands its process over: serve is an error naming why")
    func capturedRunDoesNotReplaceTheProcess() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["serve", "--port", "0"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("captured in memory"), "stderr: \(result.stderr)")
    }

    @Test("seek without seek-hosts beside it: serve and mcp exit 64 naming the missing file and how to build it for seek's configuration",
          .enabled(if: SeekBinary.url != nil, "the seek executable was not built"))
    func missingHostExecutable() async throws {
        let seek = try #require(SeekBinary.url)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seek-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = directory.appendingPathComponent("seek")
        try FileManager.default.copyItem(at: seek, to: alone)
        let harness = try await CLIHarness.start()
        let environment = harness.environment
        let serve = try await offThePool { try SeekBinary.run(["serve", "--port", "0"], environment: environment, executable: alone) }
        let mcp = try await offThePool { try SeekBinary.run(["mcp"], environment: environment, executable: alone) }
        try await harness.stop()
        for result in [serve, mcp] {
            #expect(result.code == 64)
            #expect(result.stderr.contains(directory.appendingPathComponent("seek-hosts").path), "stderr: \(result.stderr)")
            #expect(result.stderr.contains(HostExecutable.rebuildHint))
            #expect(result.stdout.isEmpty)
        }
    }
}
