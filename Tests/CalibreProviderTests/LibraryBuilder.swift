import CalibreProvider
import Foundation
import GRDB
import SeekCore
import SeekKit
import Testing

/// One book to put in a test library.
struct BookSpec {
    var title: String
    var authors: [String] = []
    var identifiers: [String: String] = [:]
    var publisher: String?
    var series: String?
    var seriesIndex: Double = 1
    var tags: [String] = []
    var formats: [String] = []
    var languages: [String] = []
    var comment: String?
    var pubdate = "0101-01-01 00:00:00+00:00"
    /// Write `cover.jpg` in the book's folder.
    var coverFile = false
    /// `books.has_cover` (can say yes while the file is missing).
    var hasCover = false
}

/// A Calibre library made from Calibre's own schema (`fixtures/calibre/metadata_sqlite.sql`), written
/// the way Calibre writes it (with stand-ins for the SQL functions Calibre registers). The tests
/// write it only through `add`, never while checking that Seek leaves it untouched.
struct TestLibrary {
    let root: URL
    let cache: URL

    var database: URL { root.appendingPathComponent("metadata.db") }

    /// The schema, or nil (the test then skips, saying why) when the shared fixtures are absent.
    static var schema: String? {
        schemaURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) }
    }

    /// `$SEEK_SHARED_FIXTURES/calibre/metadata_sqlite.sql`, else `<package>/../shared/fixtures/calibre/…`.
    static var schemaURL: URL? {
        var candidates: [URL] = []
        if let shared = ProcessInfo.processInfo.environment["SEEK_SHARED_FIXTURES"], !shared.isEmpty {
            candidates.append(URL(fileURLWithPath: shared))
        }
        // This file is <package>/Tests/CalibreProviderTests/LibraryBuilder.swift.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(package.deletingLastPathComponent().appendingPathComponent("shared/fixtures"))
        return candidates.map { $0.appendingPathComponent("calibre/metadata_sqlite.sql") }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// A new library with `books`, in a temporary folder of its own.
    static func make(_ books: [BookSpec] = []) throws -> TestLibrary? {
        guard let schema else {
            print("skipped: ../shared/fixtures/calibre/metadata_sqlite.sql is absent (SEEK_SHARED_FIXTURES)")
            return nil
        }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("seek-calibre-\(UUID().uuidString)")
        let root = base.appendingPathComponent("Calibre Library")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let library = TestLibrary(root: root, cache: base.appendingPathComponent("cache"))
        try library.write { db in try db.execute(sql: schema) }
        for book in books { try library.add(book) }
        return library
    }

    /// Runs `body` on a read-write connection with Calibre's functions stood in for, as Calibre would.
    func write(_ body: (Database) throws -> Void) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("title_sort", argumentCount: 1, pure: true) { $0[0] })
            db.add(function: DatabaseFunction("uuid4", argumentCount: 0, pure: false) { _ in UUID().uuidString.lowercased() })
        }
        let queue = try DatabaseQueue(path: database.path, configuration: configuration)
        try queue.write(body)
        try queue.close()
    }

    /// Adds a book as Calibre does (its folder, its format files, its cover); returns its id.
    @discardableResult
    func add(_ book: BookSpec) throws -> Int64 {
        var id: Int64 = 0
        let author = book.authors.first ?? "Unknown"
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO books (title, sort, timestamp, pubdate, series_index, author_sort, path, has_cover, last_modified)
                    VALUES (?, ?, '2026-01-01 00:00:00+00:00', ?, ?, ?, '', ?, ?)
                    """,
                arguments: [book.title, book.title, book.pubdate, book.seriesIndex, author, book.hasCover || book.coverFile ? 1 : 0,
                            "2026-12-06 10:00:\(String(format: "%02d", Int.random(in: 0..<60))).\(Int.random(in: 100_000..<999_999))+00:00"])
            id = db.lastInsertedRowID
            let path = "\(author)/\(book.title) (\(id))"
            try db.execute(sql: "UPDATE books SET path = ? WHERE id = ?", arguments: [path, id])
            for name in book.authors {
                try db.execute(sql: "INSERT OR IGNORE INTO authors (name, sort) VALUES (?, ?)", arguments: [name, name])
                try db.execute(
                    sql: "INSERT INTO books_authors_link (book, author) SELECT ?, id FROM authors WHERE name = ?", arguments: [id, name])
            }
            for (type, value) in book.identifiers {
                try db.execute(sql: "INSERT INTO identifiers (book, type, val) VALUES (?, ?, ?)", arguments: [id, type, value])
            }
            if let publisher = book.publisher {
                try db.execute(sql: "INSERT OR IGNORE INTO publishers (name) VALUES (?)", arguments: [publisher])
                try db.execute(
                    sql: "INSERT INTO books_publishers_link (book, publisher) SELECT ?, id FROM publishers WHERE name = ?",
                    arguments: [id, publisher])
            }
            if let series = book.series {
                try db.execute(sql: "INSERT OR IGNORE INTO series (name, sort) VALUES (?, ?)", arguments: [series, series])
                try db.execute(
                    sql: "INSERT INTO books_series_link (book, series) SELECT ?, id FROM series WHERE name = ?", arguments: [id, series])
            }
            for tag in book.tags {
                try db.execute(sql: "INSERT OR IGNORE INTO tags (name) VALUES (?)", arguments: [tag])
                try db.execute(sql: "INSERT INTO books_tags_link (book, tag) SELECT ?, id FROM tags WHERE name = ?", arguments: [id, tag])
            }
            for (order, code) in book.languages.enumerated() {
                try db.execute(sql: "INSERT OR IGNORE INTO languages (lang_code) VALUES (?)", arguments: [code])
                try db.execute(
                    sql: "INSERT INTO books_languages_link (book, lang_code, item_order) SELECT ?, id, ? FROM languages WHERE lang_code = ?",
                    arguments: [id, order, code])
            }
            for format in book.formats {
                try db.execute(
                    sql: "INSERT INTO data (book, format, uncompressed_size, name) VALUES (?, ?, 1000, ?)",
                    arguments: [id, format, "\(book.title) - \(author)"])
            }
            if let comment = book.comment {
                try db.execute(sql: "INSERT INTO comments (book, text) VALUES (?, ?)", arguments: [id, comment])
            }
        }
        let folder = root.appendingPathComponent("\(author)/\(book.title) (\(id))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for format in book.formats {
            try Data("book".utf8).write(to: folder.appendingPathComponent("\(book.title) - \(author).\(format.lowercased())"))
        }
        if book.coverFile { try TestLibrary.jpeg.write(to: folder.appendingPathComponent("cover.jpg")) }
        return id
    }

    /// A provider over this library, its index in the library's own cache folder.
    func provider() -> CalibreProvider {
        CalibreProvider(root: root, indexDirectory: cache)
    }

    /// The database's bytes, to compare after Seek read it.
    func bytes() throws -> Data { try Data(contentsOf: database) }

    /// Files next to `metadata.db` that SQLite would make when writing (none may appear).
    func journals() -> [String] {
        ["-journal", "-wal", "-shm"].map { database.path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Checks Seek left the library as it found it: the same bytes and no journal beside it.
    func expectUntouched(_ before: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try bytes() == before, "metadata.db changed", sourceLocation: sourceLocation)
        #expect(journals().isEmpty, "files beside metadata.db: \(journals())", sourceLocation: sourceLocation)
    }

    func remove() {
        try? FileManager.default.removeItem(at: root.deletingLastPathComponent())
    }

    /// A small valid JPEG (SOI, APP0/JFIF, EOI…): what the image cache's sniffing accepts.
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
                            0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: 64) + [0xFF, 0xD9])
}
