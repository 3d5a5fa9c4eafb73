#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import SeekCLI
import SeekKit
import Testing

/// `seek` and `seek-hosts` copied by hand to a folder of their own: everything they need is inside
/// them, and `seek` hands its process only to the `seek-hosts` of its own build.
@Suite("a copied install", .serialized, .enabled(if: CopiedInstall.built, "seek and seek-hosts were not built"))
struct CopiedInstallTests {
    @Test("seek copied alone to an empty folder runs a demo search from the recordings inside it")
    func demoSearchFromACopiedSeek() async throws {
        let install = try CopiedInstall(hosts: .none)
        defer { install.remove() }
        let harness = try await CLIHarness.start()
        let environment = harness.environment
        let result = try await offThePool {
            try SeekBinary.run(["search", "the lord of the rings", "--demo", "--format", "json"], environment: environment, executable: install.seek)
        }
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let titles = (result.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        #expect(titles.contains { $0.contains("Lord of the Rings") }, "\(titles)")
    }

    @Test("seek and seek-hosts copied to an empty folder serve --demo: the web UI, its script and a demo search answer")
    func demoServerFromACopiedPair() async throws {
        let install = try CopiedInstall(hosts: .built)
        defer { install.remove() }
        let harness = try await CLIHarness.start()
        let serve = try await ServeProcessTests.ServeProcess(environment: harness.environment, executable: install.seek, arguments: ["--demo"])
        let home = try await serve.request("/")
        let script = try await serve.request("/static/app.js")
        let search = try await serve.request("/api/v1/search?q=the%20lord%20of%20the%20rings&providers=openlibrary")
        kill(serve.process.processIdentifier, SIGTERM)
        let process = serve.process
        try await offThePool { process.waitUntilExit() }
        try await harness.stop()
        #expect(home.status == 200)
        #expect(script.status == 200 && !script.body.isEmpty)
        #expect(search.status == 200)
        #expect(String(decoding: search.body, as: UTF8.self).contains("Lord of the Rings"))
    }

    @Test("a seek-hosts beside seek that carries no build id (a script) is refused, not run, exit 64")
    func foreignHostIsRefusedUnrun() async throws {
        let install = try CopiedInstall(hosts: .script(marker: nil))
        defer { install.remove() }
        let result = try await install.serve()
        #expect(result.code == 64)
        #expect(result.stderr.contains("\(install.hosts.path) is not a seek-hosts built with this seek"), "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: install.ranMarker.path), "the foreign seek-hosts was run")
    }

    @Test("a seek-hosts of another build (another build id) is refused, not run, with the rebuild command for seek's configuration")
    func staleHostIsRefusedWithTheRebuildCommand() async throws {
        let stale = String(repeating: "0123456789abcdef", count: 2)
        let install = try CopiedInstall(hosts: .script(marker: HostExecutable.markerPrefix + stale))
        defer { install.remove() }
        let result = try await install.serve()
        #expect(result.code == 64)
        #expect(result.stderr.contains("is another build of seek-hosts (build \(stale)"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(HostExecutable.rebuildHint), "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: install.ranMarker.path), "the stale seek-hosts was run")
    }

    @Test("the seek-hosts built beside seek carries seek's build id")
    func builtHostIsTheSameBuild() throws {
        let hosts = try #require(CopiedInstall.builtHosts)
        #expect(HostExecutable.build(of: hosts.path) == .same)
    }

    @Test("seek itself does not carry the marker: a copy of seek named seek-hosts is foreign")
    func seekIsNotItsOwnHost() throws {
        let seek = try #require(SeekBinary.url)
        #expect(HostExecutable.build(of: seek.path) == .foreign)
    }
}

@Suite("the rebuild command seek names")
struct RebuildHintTests {
    #if DEBUG
    @Test("a debug seek names the debug build, not a release one")
    func debugSeekNamesTheDebugBuild() {
        #expect(HostExecutable.rebuildHint.contains("`swift build`"))
        #expect(!HostExecutable.rebuildHint.contains("-c release"))
    }
    #else
    @Test("a release seek names the release build of both executables")
    func releaseSeekNamesTheReleaseBuild() {
        #expect(HostExecutable.rebuildHint.contains("swift build -c release --product seek "))
        #expect(HostExecutable.rebuildHint.contains("swift build -c release --product seek-hosts "))
    }
    #endif
}

/// A temporary folder with a copy of the built `seek` and, as `seek-hosts`, the built one, a script, or nothing.
struct CopiedInstall {
    enum Hosts {
        case none
        case built
        /// A shell script that creates `ran` beside itself when run, carrying `marker` in a comment.
        case script(marker: String?)
    }

    static var builtHosts: URL? {
        guard let seek = SeekBinary.url else { return nil }
        let hosts = seek.deletingLastPathComponent().appendingPathComponent("seek-hosts")
        return FileManager.default.isExecutableFile(atPath: hosts.path) ? hosts : nil
    }

    static var built: Bool { builtHosts != nil }

    let folder: URL
    var seek: URL { folder.appendingPathComponent("seek") }
    var hosts: URL { folder.appendingPathComponent("seek-hosts") }
    /// What the script `seek-hosts` creates if it is ever run.
    var ranMarker: URL { folder.appendingPathComponent("ran") }

    init(hosts: Hosts) throws {
        let seek = try #require(SeekBinary.url)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-copied-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: seek, to: self.seek)
        switch hosts {
        case .none:
            break
        case .built:
            try FileManager.default.copyItem(at: try #require(Self.builtHosts), to: self.hosts)
        case .script(let marker):
            let script = "#!/bin/sh\n# \(marker ?? "no build id")\ntouch '\(ranMarker.path)'\n"
            try Data(script.utf8).write(to: self.hosts)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: self.hosts.path)
        }
    }

    /// `seek serve --port 0` from this folder, with a test harness's private home.
    func serve() async throws -> RunResult {
        let harness = try await CLIHarness.start()
        let environment = harness.environment, seek = self.seek
        let result = try await offThePool { try SeekBinary.run(["serve", "--port", "0"], environment: environment, executable: seek) }
        try await harness.stop()
        return result
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
