import Foundation
import GRDB
import SeekCore
import SeekKit

/// Seek's own search index of a Calibre library: an SQLite file in Seek's cache folder with an FTS5
/// table over title, authors, series, tags, publisher and identifiers, and the fields a result shows.
///
/// Tokenizer `unicode61 remove_diacritics 2`: words split on anything that is not a letter or a digit
/// in any script (Hangul included), case and diacritics folded ("Émile" is found by "emile"); every
/// query word of two or more characters matches as a prefix, so "소년" finds "소년이". ISBNs are
/// indexed as ISBN-13 and ISBN-10 digits and a query ISBN in any form is read as its ISBN-13.
///
/// Kept fresh without a restart: each search compares the library's signature (size, mtime, SQLite's
/// change counter) with the one the index was built from, and on a change re-reads the books whose
/// `last_modified` differs (all of them the first time), drops the removed ones and indexes the rest.
final class CalibreIndex: Sendable {
    let library: CalibreLibrary
    /// The index file.
    let url: URL
    private let state = Locked(State())

    private struct State {
        var queue: DatabaseQueue?
        /// The library signature the open index is known to match.
        var fresh: CalibreLibrary.Signature?
    }

    /// The layout of the index; an index of another layout is rebuilt.
    static let layout = "1"
    /// The statements that build an empty index of `layout`, under the target's folder.
    static let schemaFile = "SQL/index.sql"

    /// A build without the EmbedFiles plugin, which carries no `schemaFile` (said as the index's failure).
    struct MissingSchema: Error, CustomStringConvertible {
        var description: String { "this build of Seek does not carry the index's schema (\(CalibreIndex.schemaFile))" }
    }
    /// Rows read from the library one query a table when more books than this changed.
    static let bulkThreshold = 2_000

    init(library: CalibreLibrary, directory: URL) {
        self.library = library
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in library.root.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        url = directory.appendingPathComponent("calibre-\(String(hash, radix: 16)).sqlite")
    }

    // MARK: - Searching

    /// One result row of the index.
    struct Hit: Sendable {
        var id: Int64
        var title: String
        var authors: [String]
        var year: Int?
        var isbns: [String]
        var other: [String: String]
        var formats: [String]
        var path: String
        var hasCover: Bool
        var stamp: String
    }

    /// Up to `limit` books matching the FTS5 expression `match` from `offset`, best first.
    func search(_ match: String, limit: Int, offset: Int) async throws -> [Hit] {
        let queue = try await freshQueue()
        return try await queue.read { db in
            var hits: [Hit] = []
            let rows = try Row.fetchCursor(
                db,
                // Ranked on the FTS table alone (row ids and scores in the sorter, not every match's
                // fields), then the page's rows joined: a common word matches tens of thousands of books.
                sql: """
                    SELECT b.id, b.title, b.authors, b.year, b.isbns, b.other, b.formats, b.path, b.has_cover, b.stamp
                    FROM (SELECT rowid, bm25(book_text, 10.0, 6.0, 4.0, 2.0, 2.0, 8.0) AS score FROM book_text
                          WHERE book_text MATCH ? ORDER BY score, rowid LIMIT ? OFFSET ?) AS hit
                    JOIN books b ON b.id = hit.rowid ORDER BY hit.score, hit.rowid
                    """,
                arguments: [match, limit, offset])
            while let row = try rows.next() {
                hits.append(Hit(
                    id: row[0], title: row[1] ?? "", authors: Self.list(row[2]), year: row[3], isbns: Self.list(row[4]),
                    other: Self.pairs(row[5]), formats: Self.list(row[6]), path: row[7] ?? "",
                    hasCover: (row[8] as Int64?).map { $0 != 0 } ?? false, stamp: row[9] ?? ""))
            }
            return hits
        }
    }

    /// How many books the index holds (after bringing it up to date).
    func count() async throws -> Int {
        let queue = try await freshQueue()
        return try await queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM books") ?? 0 }
    }

    /// Brings the index up to date with the library now (what a search does first).
    func refresh() async throws {
        _ = try await freshQueue()
    }

    // MARK: - Keeping it fresh

    /// The index's queue, brought up to date with the library's current signature.
    private func freshQueue() async throws -> DatabaseQueue {
        let signature = try library.signature()
        let (queue, fresh) = try state.withLock { state -> (DatabaseQueue, Bool) in
            if let queue = state.queue { return (queue, state.fresh == signature) }
            let queue = try openIndex()
            state.queue = queue
            return (queue, false)
        }
        if fresh { return queue }
        let library = self.library
        do {
            try await queue.write { db in try Self.sync(db, library: library, signature: signature) }
        } catch let error as CalibreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            // A damaged index is Seek's own file: rebuilt from the library.
            state.withLock { $0 = State() }
            try? FileManager.default.removeItem(at: url)
            throw CalibreError.unreadable(library.root, reason: "Seek's index of it was damaged and has been removed; search again to rebuild it")
        } catch {
            throw CalibreError.unreadable(library.root, reason: "Seek's index of it (\(url.path)) failed: \(error)")
        }
        state.withLock { if $0.queue === queue { $0.fresh = signature } }
        return queue
    }

    private func openIndex() throws -> DatabaseQueue {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            configuration.label = "calibre-index"
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = OFF")
            }
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            try queue.write { db in try Self.createSchema(db) }
            return queue
        } catch {
            throw CalibreError.unreadable(library.root, reason: "Seek's index of it (\(url.path)) cannot be opened: \(error)")
        }
    }

    private static func createSchema(_ db: Database) throws {
        let layout = try? String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'layout'")
        guard layout != Self.layout else { return }
        // The schema is a file beside the sources (SQL/index.sql), compiled in by EmbedFiles.
        guard let schema = EmbeddedFiles.text(Self.schemaFile) else { throw MissingSchema() }
        try db.execute(sql: schema)
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('layout', ?)", arguments: [Self.layout])
    }

    /// Brings the index in `db` (in a write transaction) up to date with the library at `signature`.
    private static func sync(_ db: Database, library: CalibreLibrary, signature: CalibreLibrary.Signature) throws {
        let mark = "\(library.root.path)|\(signature)"
        if try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'source'") == mark { return }
        var indexed: [Int64: String] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, stamp FROM books")
        while let row = try rows.next() { indexed[row[0]] = row[1] }
        let (current, changed) = try library.read { source -> ([Int64: String], [CalibreBook]) in
            let current = try CalibreBook.stamps(source)
            let changedIDs = current.compactMap { id, stamp in indexed[id] == stamp ? nil : id }
            if changedIDs.isEmpty { return (current, []) }
            if changedIDs.count > bulkThreshold {
                let wanted = Set(changedIDs)
                return (current, try CalibreBook.load(source).filter { wanted.contains($0.id) })
            }
            return (current, try CalibreBook.load(source, ids: changedIDs))
        }
        let removed = indexed.keys.filter { current[$0] == nil }
        let deleteBook = try db.makeStatement(sql: "DELETE FROM books WHERE id = ?")
        let deleteText = try db.makeStatement(sql: "DELETE FROM book_text WHERE rowid = ?")
        for id in removed {
            try deleteBook.execute(arguments: [id])
            try deleteText.execute(arguments: [id])
        }
        let insertBook = try db.makeStatement(sql: """
            INSERT OR REPLACE INTO books (id, stamp, title, authors, year, isbns, other, formats, path, has_cover)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertText = try db.makeStatement(sql: """
            INSERT INTO book_text (rowid, title, authors, series, tags, publisher, identifiers) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for book in changed {
            if indexed[book.id] != nil { try deleteText.execute(arguments: [book.id]) }
            let identifiers = book.identifierValues
            let isbns = identifiers.isbn13 + identifiers.isbn10
            let other = identifiers.other.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            try insertBook.execute(arguments: [
                book.id, book.lastModified, book.title, join(book.authors), book.year, join(isbns), join(other),
                join(book.formats), book.path, book.hasCover ? 1 : 0,
            ])
            // Identifier values as typed (another scheme's id, a hyphenated ISBN) beside the ISBNs' digits.
            let searchable = isbns + book.identifiers.values.filter { !isbns.contains($0) }
            try insertText.execute(arguments: [
                book.id, book.title, book.authors.joined(separator: " "),
                [book.series, book.seriesNumber.map { "#\($0)" }].compactMap { $0 }.joined(separator: " "),
                book.tags.joined(separator: " "), book.publisher ?? "", searchable.joined(separator: " "),
            ])
        }
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('source', ?)", arguments: [mark])
    }

    // MARK: - Lists in one column

    /// The separator of lists kept in one column (the ASCII unit separator: never in a title).
    private static let separator = "\u{1F}"

    private static func join(_ values: [String]) -> String {
        values.map { $0.replacingOccurrences(of: separator, with: " ") }.joined(separator: separator)
    }

    private static func list(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.components(separatedBy: separator)
    }

    private static func pairs(_ text: String?) -> [String: String] {
        var pairs: [String: String] = [:]
        for entry in list(text) {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            pairs[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return pairs
    }
}
