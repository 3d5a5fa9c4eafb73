#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekStore
import SeekTesting
import Testing

/// The built `seek` executable, used as a real writer process.
enum SeekExecutable {
    static var url: URL? {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            var dir = URL(fileURLWithPath: first).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(dir.appendingPathComponent("seek"))
                dir = dir.deletingLastPathComponent()
            }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/seek"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) && !$0.hasDirectoryPath }
    }
}

@Suite("A writer killed mid-way", .enabled(if: SeekExecutable.url != nil, "the seek executable was not built"))
struct KilledWriterTests {
    /// Serves an Open Library work for any id, so `seek favorites add` can add as many as asked.
    static func serveWorks(on server: FixtureServer) {
        server.route("/ol/works/*") { request in
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            let id = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            return .json(#"{"title": "Book \#(id)", "key": "/works/\#(id)", "type": {"key": "/type/work"}}"#)
        }
    }

    @Test("kill -9 during a stream of writes leaves a sound database with every committed row", arguments: [10, 40, 90])
    func killedWriter(killAfter rows: Int) async throws {
        let executable = try #require(SeekExecutable.url)
        let server = try await FixtureServer.start()
        Self.serveWorks(on: server)
        let store = TemporaryStore()
        defer { store.remove() }
        let home = store.folder.appendingPathComponent("home")
        let favorites = SQLiteFavoritesStore(database: store.database)
        try await store.database.open()

        // A first writer that finishes: its rows must survive the second writer's death.
        let settled = (1...5).map { "openlibrary:OL\($0)W" }
        let first = try Self.launch(executable, ids: settled, server: server, store: store, home: home)
        while first.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        #expect(first.terminationStatus == 0)

        let ids = (100..<2100).map { "openlibrary:OL\($0)W" }
        let writer = try Self.launch(executable, ids: ids, server: server, store: store, home: home)
        var seen: Set<String> = []
        let deadline = ContinuousClock.now + .seconds(60)
        while seen.count < rows + settled.count, writer.isRunning, ContinuousClock.now < deadline {
            seen = Set(try await favorites.all().map(\.id.description))
            try await Task.sleep(for: .milliseconds(5))
        }
        let killedMidWay = writer.isRunning
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        try await server.shutdown()
        #expect(killedMidWay, "the writer ended (status \(writer.terminationStatus)) before it could be killed")

        // A fresh connection, as the next process would open it.
        let reopened = store.secondConnection()
        #expect(try await reopened.integrityCheck() == ["ok"])
        let after = Set(try await SQLiteFavoritesStore(database: reopened).all().map(\.id.description))
        #expect(seen.isSubset(of: after), "lost committed rows: \(seen.subtracting(after).sorted())")
        #expect(Set(settled).isSubset(of: after))
        #expect(after.count >= rows)
        // The file still takes writes.
        try await SQLiteFavoritesStore(database: reopened).add(.sample("OL999999W"))
    }

    static func launch(_ executable: URL, ids: [String], server: FixtureServer, store: TemporaryStore, home: URL) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["favorites", "add"] + ids
        process.environment = [
            "PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "SEEK_DATA_DIR": store.folder.path, "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path,
            "SEEK_OPENLIBRARY_URL": server.url("/ol").absoluteString, "NO_COLOR": "1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
