@testable import CalibreProvider
import Foundation
import GRDB
import SeekCore
import SeekKit
import Testing

private let hobbit = BookSpec(
    title: "The Hobbit", authors: ["J. R. R. Tolkien"], identifiers: ["isbn": "978-0-618-26030-0", "google": "pD6arNyKyi8C"],
    publisher: "Houghton Mifflin", tags: ["Fantasy", "Classics"], formats: ["EPUB", "PDF"], languages: ["eng"],
    comment: "<div><p>Bilbo Baggins is a <b>hobbit</b> &amp; enjoys a comfortable life.</p><p>Then Gandalf&#39;s knock.</p></div>",
    pubdate: "1937-09-21 00:00:00+00:00", coverFile: true)
private let fellowship = BookSpec(
    title: "The Fellowship of the Ring", authors: ["J. R. R. Tolkien"], identifiers: ["isbn": "0618574948"],
    series: "The Lord of the Rings", seriesIndex: 1, formats: ["AZW3"], pubdate: "1954-07-29 00:00:00+00:00")
private let hangang = BookSpec(
    title: "소년이 온다", authors: ["한강"], identifiers: ["isbn": "9788936434120"], publisher: "창비", formats: ["EPUB"],
    languages: ["kor"], pubdate: "2014-05-19 00:00:00+00:00")
private let emile = BookSpec(title: "Émile, ou De l'éducation", authors: ["Jean-Jacques Rousseau"], formats: ["PDF"])
private let anthology = BookSpec(
    title: "The Big Book of Science Fiction", authors: (1...30).map { "Author Number \($0)" }, tags: ["Anthology"])

@Suite("Calibre: a library read-only, searched through Seek's own index")
struct CalibreProviderTests {
    @Test("search finds books by title, author, series, tag, publisher and identifier; items carry owned formats")
    func searchFields() async throws {
        guard let library = try TestLibrary.make([hobbit, fellowship, hangang, emile, anthology]) else { return }
        defer { library.remove() }
        let before = try library.bytes()
        let provider = library.provider()
        for (query, title) in [
            ("hobbit", "The Hobbit"), ("tolkien hobbit", "The Hobbit"), ("lord of the rings", "The Fellowship of the Ring"),
            ("classics", "The Hobbit"), ("houghton", "The Hobbit"), ("pD6arNyKyi8C", "The Hobbit"),
            ("Author Number 27", "The Big Book of Science Fiction"), ("창비", "소년이 온다"),
        ] {
            let page = try await provider.search(SearchRequest(query: query))
            #expect(page.items.map(\.title).contains(title), "\(query) → \(page.items.map(\.title))")
        }
        let page = try await provider.search(SearchRequest(query: "hobbit"))
        let item = try #require(page.items.first)
        #expect(item.id.provider == "calibre")
        #expect(item.owned == OwnedCopy(id: item.id, formats: ["EPUB", "PDF"]))
        #expect(item.creators == ["J. R. R. Tolkien"])
        #expect(item.year == 1937)
        #expect(item.identifiers.isbn13 == ["9780618260300"])
        #expect(item.identifiers.other["google"] == "pD6arNyKyi8C")
        let cover = try #require(item.image(.large)?.url)
        #expect(cover.isFileURL && cover.path.hasSuffix("The Hobbit (1)/cover.jpg"))
        try library.expectUntouched(before)
    }

    @Test("Korean words, diacritics folded, and ISBNs in every form are found")
    func koreanDiacriticsISBN() async throws {
        guard let library = try TestLibrary.make([hobbit, fellowship, hangang, emile]) else { return }
        defer { library.remove() }
        let before = try library.bytes()
        let provider = library.provider()
        let cases: [(String, String)] = [
            ("소년", "소년이 온다"), ("한강", "소년이 온다"), ("소년이 온다", "소년이 온다"),
            ("emile education", "Émile, ou De l'éducation"), ("ÉMILE", "Émile, ou De l'éducation"), ("rousseau", "Émile, ou De l'éducation"),
            ("9780618260300", "The Hobbit"), ("978-0-618-26030-0", "The Hobbit"), ("0618260307", "The Hobbit"), ("0-618-26030-7", "The Hobbit"),
            ("ISBN 978 0 618 26030 0", "The Hobbit"), ("9780618574940", "The Fellowship of the Ring"), ("0618574948", "The Fellowship of the Ring"),
            ("89-364-3412-8", "소년이 온다"),
        ]
        for (query, title) in cases {
            let page = try await provider.search(SearchRequest(query: query))
            #expect(page.items.first?.title == title, "\(query) → \(page.items.map(\.title))")
        }
        let none = try await provider.search(SearchRequest(query: "9780140328721"))
        #expect(none.items.isEmpty)
        try library.expectUntouched(before)
    }

    @Test("detail: authors, series and index, tags, publisher, languages, identifiers, formats, comment as clean text")
    func detail() async throws {
        guard let library = try TestLibrary.make([hobbit, fellowship]) else { return }
        defer { library.remove() }
        let before = try library.bytes()
        let provider = library.provider()
        let detail = try await provider.detail(ItemID(provider: "calibre", value: "1"))
        #expect(detail.item.title == "The Hobbit")
        #expect(detail.contributors == [Contributor(name: "J. R. R. Tolkien", role: "author")])
        #expect(detail.subjects == ["Classics", "Fantasy"])
        #expect(detail.publishers == ["Houghton Mifflin"])
        #expect(detail.publishDate == "1937-09-21")
        #expect(detail.attributes["languages"] == "eng")
        #expect(detail.attributes["formats"] == "EPUB, PDF")
        #expect(detail.item.owned?.formats == ["EPUB", "PDF"])
        #expect(detail.item.identifiers.other["google"] == "pD6arNyKyi8C")
        #expect(detail.description == "Bilbo Baggins is a hobbit & enjoys a comfortable life.\nThen Gandalf's knock.")
        let second = try await provider.detail(ItemID(provider: "calibre", value: "2"))
        #expect(second.attributes["series"] == "The Lord of the Rings #1")
        #expect(second.publishDate == "1954-07-29")
        await #expect(throws: SeekError.self) { try await provider.detail(ItemID(provider: "calibre", value: "99")) }
        do {
            _ = try await provider.detail(ItemID(provider: "calibre", value: "99"))
        } catch let error as SeekError {
            #expect(error.kind == .notFound)
        }
        do {
            _ = try await provider.detail(ItemID(provider: "calibre", value: "x1"))
            Issue.record("a malformed id was accepted")
        } catch let error as SeekError {
            #expect(error.kind == .invalidInput)
        }
        try library.expectUntouched(before)
    }

    @Test("no ISBN, no date (Calibre's year 101), many authors, a cover flagged but missing")
    func edgeCases() async throws {
        var missingCover = BookSpec(title: "Coverless", authors: ["Nobody"], formats: ["TXT"])
        missingCover.hasCover = true
        guard let library = try TestLibrary.make([emile, anthology, missingCover]) else { return }
        defer { library.remove() }
        let before = try library.bytes()
        let provider = library.provider()
        let emilePage = try await provider.search(SearchRequest(query: "emile"))
        let found = try #require(emilePage.items.first)
        #expect(found.identifiers.isbn13.isEmpty)
        #expect(found.year == nil)
        let many = try #require(try await provider.search(SearchRequest(query: "science fiction")).items.first)
        #expect(many.creators.count == 30)
        #expect(many.creators.first == "Author Number 1" && many.creators.last == "Author Number 30")
        let coverless = try #require(try await provider.search(SearchRequest(query: "coverless")).items.first)
        #expect(coverless.images.isEmpty)
        #expect(provider.imageURL(for: coverless, size: .medium) == nil)
        let empty = try await provider.search(SearchRequest(query: "zzzzqqq"))
        #expect(empty.items.isEmpty)
        let punctuation = try await provider.search(SearchRequest(query: "- & ."))
        #expect(punctuation.items.isEmpty)
        try library.expectUntouched(before)
    }

    @Test("paging: limit and offset cursor, the last page has no next")
    func paging() async throws {
        let books = (1...7).map { BookSpec(title: "Harbor \($0)", authors: ["Writer"]) }
        guard let library = try TestLibrary.make(books) else { return }
        defer { library.remove() }
        let before = try library.bytes()
        let provider = library.provider()
        let first = try await provider.search(SearchRequest(query: "harbor", limit: 5))
        #expect(first.items.count == 5)
        #expect(first.next == "5")
        let second = try await provider.search(SearchRequest(query: "harbor", cursor: first.next, limit: 5))
        #expect(second.items.count == 2)
        #expect(second.next == nil)
        #expect(Set(first.items.map(\.id)).isDisjoint(with: second.items.map(\.id)))
        try library.expectUntouched(before)
    }

    @Test("a book added (and one removed or changed) while the session runs is seen by the next search")
    func seesChanges() async throws {
        guard let library = try TestLibrary.make([hobbit]) else { return }
        defer { library.remove() }
        let provider = library.provider()
        #expect(try await provider.search(SearchRequest(query: "hangang 한강")).items.isEmpty)
        let scope = provider.answerScope
        try library.add(hangang)
        #expect(provider.answerScope != scope, "the response cache would answer with the library as it was")
        let found = try await provider.search(SearchRequest(query: "한강"))
        #expect(found.items.map(\.title) == ["소년이 온다"])
        try library.write { db in
            try db.execute(sql: "UPDATE books SET title = 'The Hobbit, or There and Back Again', last_modified = '2026-12-07 00:00:00+00:00' WHERE id = 1")
            try db.execute(sql: "DELETE FROM books WHERE id = 2")
        }
        #expect(try await provider.search(SearchRequest(query: "there and back")).items.count == 1)
        #expect(try await provider.search(SearchRequest(query: "한강")).items.isEmpty)
        // A second process (a new provider, the same index file) starts from the index as it is.
        let again = library.provider()
        #expect(try await again.search(SearchRequest(query: "back again")).items.count == 1)
    }

    @Test("unset: skipped, naming the variable")
    func unset() async throws {
        let provider = CalibreProvider(root: nil, indexDirectory: FileManager.default.temporaryDirectory)
        #expect(!provider.isConfigured)
        #expect(provider.missingRequirements.map(\.variable) == ["SEEK_CALIBRE_LIBRARY"])
        do {
            _ = try await provider.search(SearchRequest(query: "hobbit"))
            Issue.record("an unset library searched")
        } catch let error as SeekError {
            #expect(error.kind == .missingKey(variable: "SEEK_CALIBRE_LIBRARY"))
            #expect(ProviderStatus(error: error) == .skipped)
            #expect(error.description.contains("SEEK_CALIBRE_LIBRARY"))
        }
        let settings = Settings(environment: ["SEEK_CALIBRE_LIBRARY": "/nowhere/library", "SEEK_CACHE_DIR": "/tmp/x"])
        let configured = try CalibreProvider(environment: ProviderEnvironment(settings: settings, transport: NoFiles()))
        #expect(configured.isConfigured)
        #expect(configured.descriptor.shortcuts == ["lib"])
        #expect(configured.descriptor.name == "Your library")
    }

    @Test("a folder that is not a library: a clear message, and nothing written into it")
    func notALibrary() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-not-a-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("../\(folder.lastPathComponent)-cache").standardizedFileURL
        defer { try? FileManager.default.removeItem(at: cache) }
        let provider = CalibreProvider(root: folder, indexDirectory: cache)
        await expectFailure(provider, containing: "is not a Calibre library: it has no metadata.db")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)

        // A metadata.db that is some other program's database.
        let other = folder.appendingPathComponent("metadata.db")
        let queue = try DatabaseQueue(path: other.path)
        try await queue.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)") }
        try queue.close()
        let before = try Data(contentsOf: other)
        await expectFailure(provider, containing: "not Calibre's schema")
        #expect(try Data(contentsOf: other) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["metadata.db"])

        // A metadata.db that is not SQLite at all.
        try Data("hello, this is not a database, just text long enough to have a header".utf8).write(to: other)
        let text = try Data(contentsOf: other)
        await expectFailure(provider, containing: "not an SQLite database")
        #expect(try Data(contentsOf: other) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["metadata.db"])

        // The folder is missing.
        let gone = CalibreProvider(root: folder.appendingPathComponent("gone"), indexDirectory: cache)
        await expectFailure(gone, containing: "does not exist")
    }

    @Test("a library Calibre is writing (locked): a clear timeout, then found once the write ends; nothing written")
    func locked() async throws {
        guard let library = try TestLibrary.make([hobbit]) else { return }
        defer { library.remove() }
        let provider = CalibreProvider(root: library.root, indexDirectory: library.cache)
        // Calibre's write transaction: an exclusive lock held while Seek searches.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // a transaction left open across calls, as a running Calibre's
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("title_sort", argumentCount: 1, pure: true) { $0[0] })
            db.add(function: DatabaseFunction("uuid4", argumentCount: 0, pure: false) { _ in UUID().uuidString })
        }
        let writer = try DatabaseQueue(path: library.database.path, configuration: configuration)
        let shortWait = CalibreIndex(library: CalibreLibraryTestAccess.library(library.root, busyTimeout: 0.3), directory: library.cache)
        try writer.inDatabase { db in
            try db.execute(sql: "BEGIN EXCLUSIVE")
            try db.execute(sql: "INSERT INTO books (title, path) VALUES ('Written meanwhile', 'x/y')")
        }
        do {
            _ = try await shortWait.search("\"hobbit\"*", limit: 5, offset: 0)
            Issue.record("a locked library was read")
        } catch let error as CalibreError {
            #expect(error.description.contains("stayed locked"))
            #expect(ProviderStatus(error: error.seekError) == .timeout)
        }
        try writer.inDatabase { db in try db.execute(sql: "COMMIT") }
        try writer.close()
        let before = try library.bytes()
        #expect(try await provider.search(SearchRequest(query: "written meanwhile")).items.count == 1)
        try library.expectUntouched(before)
    }

    @Test("a half-written library (a hot journal beside it): a clear message, nothing written or rolled back")
    func halfWritten() async throws {
        guard let library = try TestLibrary.make([hobbit]) else { return }
        defer { library.remove() }
        // What a crash in the middle of a Calibre write leaves: the journal with the pages to restore.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // a transaction left open across calls, as a running Calibre's
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("title_sort", argumentCount: 1, pure: true) { $0[0] })
            db.add(function: DatabaseFunction("uuid4", argumentCount: 0, pure: false) { _ in UUID().uuidString })
            try db.execute(sql: "PRAGMA cache_size = 1")
        }
        let writer = try DatabaseQueue(path: library.database.path, configuration: configuration)
        try writer.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            for index in 0..<400 {
                try db.execute(
                    sql: "INSERT INTO feeds (title, script) VALUES (?, ?)", arguments: ["feed \(index)", String(repeating: "x", count: 900)])
            }
        }
        let journal = library.database.path + "-journal"
        let journalBytes = FileManager.default.contents(atPath: journal)
        let databaseBytes = try library.bytes()
        try writer.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try writer.close()
        guard let journalBytes, !journalBytes.isEmpty else {
            print("skipped: SQLite kept the transaction in memory (no journal written), so no hot journal to test with")
            return
        }
        // The crash: the half-written database with its hot journal beside it.
        try databaseBytes.write(to: library.database)
        #expect(FileManager.default.createFile(atPath: journal, contents: journalBytes))
        let provider = library.provider()
        await expectFailure(provider, containing: "half-written")
        #expect(try library.bytes() == databaseBytes, "Seek rolled the journal back (it must never write the library)")
        #expect(FileManager.default.contents(atPath: journal) == journalBytes)
    }

    @Test("comments: HTML as clean text")
    func commentText() {
        #expect(CommentText.plain("<p>One&nbsp;&amp;&#x20;two</p><p>Three<br/>four</p><script>alert(1)</script><ul><li>a</li><li>b</li></ul>")
            == "One & two\nThree\nfour\n• a\n• b")
        #expect(CommentText.plain("plain text, no markup") == "plain text, no markup")
        #expect(CommentText.plain("<div></div>") == "")
    }

    @Test("queries: words as prefixes, ISBNs as ISBN-13s, FTS5 syntax quoted away")
    func queries() {
        #expect(CalibreQuery.match("lord rings") == "\"lord\"* AND \"rings\"*")
        #expect(CalibreQuery.match("the lord of the rin") == "\"the\" AND \"lord\"* AND \"of\" AND \"the\" AND \"rin\"*")
        #expect(CalibreQuery.match("소년 온다") == "\"소년\"* AND \"온다\"*")
        #expect(CalibreQuery.match("978-0-618-26030-0") == "identifiers : \"9780618260300\"")
        #expect(CalibreQuery.match("0618260307") == "identifiers : \"9780618260300\"")
        #expect(CalibreQuery.match("a \"NEAR(x\" OR") == "\"a\" AND \"\"\"NEAR(x\"\"\"* AND \"OR\"*")
        #expect(CalibreQuery.match("  ") == nil)
        #expect(CalibreQuery.match("1984") == "\"1984\"*")
    }

    private func expectFailure(_ provider: CalibreProvider, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await provider.search(SearchRequest(query: "hobbit"))
            Issue.record("the search succeeded", sourceLocation: sourceLocation)
        } catch let error as SeekError {
            #expect(error.description.contains(text), "\(error.description)", sourceLocation: sourceLocation)
            #expect(error.provider == "calibre", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a SeekError: \(error)", sourceLocation: sourceLocation)
        }
    }
}

enum CalibreLibraryTestAccess {
    static func library(_ root: URL, busyTimeout: TimeInterval) -> CalibreLibrary {
        CalibreLibrary(root: root, busyTimeout: busyTimeout)
    }
}

/// A transport that is never called.
struct NoFiles: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw SeekError(.network, detail: "no network in this test")
    }
}
