import CalibreProvider
import Foundation
import SeekCore
import SeekKit
import Testing

/// Libraries made by Calibre itself (`calibredb`, Debian's `calibre` package), when it is installed:
/// `apt-get install -y calibre`. Without it these tests say so and pass.
@Suite("Calibre: libraries made by calibredb", .serialized)
struct RealCalibreTests {
    /// `calibredb`'s path, or nil.
    static let calibredb: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/calibredb" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `calibredb ARGUMENTS --library-path LIBRARY` headless, with a configuration folder of its own.
    static func run(_ arguments: [String], library: URL, config: URL) throws -> String {
        guard let calibredb else { return "" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: calibredb)
        process.arguments = arguments + ["--library-path", library.path]
        var environment = ProcessInfo.processInfo.environment
        environment["QT_QPA_PLATFORM"] = "offscreen"
        environment["CALIBRE_CONFIG_DIRECTORY"] = config.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw SeekError(.configuration, detail: "calibredb \(arguments.first ?? "") failed: \(text.suffix(400))")
        }
        return text
    }

    @Test("books added by calibredb (ISBNs, several formats, a cover, a Korean title) are found, owned, with their formats; one added while the session runs is found by the next search; metadata.db untouched by Seek")
    func realLibrary() async throws {
        guard Self.calibredb != nil else {
            print("skipped: calibredb is not on PATH (apt-get install -y calibre) — the Calibre-made library tests did not run")
            return
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("seek-calibredb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let library = base.appendingPathComponent("Calibre Library"), config = base.appendingPathComponent("config")
        let files = base.appendingPathComponent("files")
        for folder in [library, config, files] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let cover = files.appendingPathComponent("cover.jpg")
        try TestLibrary.jpeg.write(to: cover)
        let epub = files.appendingPathComponent("lotr.epub"), pdf = files.appendingPathComponent("lotr.pdf")
        try Data("not really an epub".utf8).write(to: epub)
        try Data("%PDF-1.4\n%%EOF\n".utf8).write(to: pdf)
        _ = try Self.run(
            ["add", "--empty", "--title", "The Lord of the Rings", "--authors", "J. R. R. Tolkien", "--isbn", "9780618640157",
             "--cover", cover.path], library: library, config: config)
        _ = try Self.run(["add_format", "1", epub.path], library: library, config: config)
        _ = try Self.run(["add_format", "1", pdf.path], library: library, config: config)
        _ = try Self.run(
            ["add", "--empty", "--title", "소년이 온다", "--authors", "한강", "--isbn", "978-89-364-3412-0", "--languages", "kor"],
            library: library, config: config)
        _ = try Self.run(
            ["add", "--empty", "--title", "Many Hands", "--authors", "Ann One & Bob Two & Cy Three & Di Four"],
            library: library, config: config)

        let database = library.appendingPathComponent("metadata.db")
        var before = try Data(contentsOf: database)
        let provider = CalibreProvider(root: library, indexDirectory: base.appendingPathComponent("cache"))
        let lotr = try #require(try await provider.search(SearchRequest(query: "the lord of the rings")).items.first)
        #expect(lotr.title == "The Lord of the Rings")
        #expect(lotr.creators == ["J. R. R. Tolkien"])
        #expect(lotr.identifiers.isbn13 == ["9780618640157"])
        #expect(lotr.owned?.formats == ["EPUB", "PDF"])
        #expect(lotr.owned?.id == lotr.id)
        let coverURL = try #require(lotr.image(.large)?.url)
        // Through the image cache's transport, as the image route reads it.
        let transport = LibraryFilesTransport(roots: [library], base: NoFiles())
        let image = try await transport.send(HTTPRequest(url: coverURL))
        #expect(image.status == 200 && image.body.count > 2 && image.body.prefix(2) == Data([0xFF, 0xD8]))
        #expect(try await transport.send(HTTPRequest(url: URL(fileURLWithPath: "/etc/hostname"))).status == 403)
        #expect(try await provider.search(SearchRequest(query: "0618640150")).items.first?.id == lotr.id)
        let korean = try #require(try await provider.search(SearchRequest(query: "소년")).items.first)
        #expect(korean.title == "소년이 온다")
        #expect(korean.identifiers.isbn13 == ["9788936434120"])
        let many = try #require(try await provider.search(SearchRequest(query: "many hands")).items.first)
        #expect(many.creators == ["Ann One", "Bob Two", "Cy Three", "Di Four"])
        let detail = try await provider.detail(lotr.id)
        #expect(detail.attributes["formats"] == "EPUB, PDF")
        #expect(try Data(contentsOf: database) == before)
        #expect(["-journal", "-wal", "-shm"].allSatisfy { !FileManager.default.fileExists(atPath: database.path + $0) })

        // Calibre adds a book while the session runs: the next search finds it, no restart.
        _ = try Self.run(["add", "--empty", "--title", "The Hobbit", "--authors", "J. R. R. Tolkien"], library: library, config: config)
        before = try Data(contentsOf: database)
        let hobbit = try await provider.search(SearchRequest(query: "hobbit"))
        #expect(hobbit.items.map(\.title) == ["The Hobbit"])
        #expect(try Data(contentsOf: database) == before)
        #expect(["-journal", "-wal", "-shm"].allSatisfy { !FileManager.default.fileExists(atPath: database.path + $0) })
    }
}
