import Foundation
import GRDB
import SeekCore

/// One book of a Calibre library, as Seek reads it from the base tables.
struct CalibreBook: Sendable, Hashable {
    var id: Int64
    var title: String
    /// In Calibre's order (`books_authors_link.id`).
    var authors: [String]
    /// `books.pubdate` as stored (`2009-12-08 00:00:00+00:00`); year 101 is Calibre's "no date".
    var pubdate: String?
    var series: String?
    var seriesIndex: Double?
    /// The book's folder, relative to the library (`J. R. R. Tolkien/The Hobbit (1)`).
    var path: String
    var hasCover: Bool
    var lastModified: String
    /// Identifiers by type (`isbn`, `google`, `doi`…), values as stored.
    var identifiers: [String: String]
    var publisher: String?
    var tags: [String]
    /// Formats owned, upper case (`EPUB`, `PDF`), sorted.
    var formats: [String]
    /// Three-letter language codes in Calibre's order.
    var languages: [String]

    /// The publication year, unless unknown (Calibre's sentinel year 101, any year before 1000).
    var year: Int? {
        guard let pubdate, pubdate.utf8.count >= 4, let year = Int(pubdate.prefix(4)), year >= 1000 else { return nil }
        return year
    }

    /// The publication date as `YYYY-MM-DD`, unless unknown.
    var publishDate: String? {
        guard year != nil, let pubdate, pubdate.utf8.count >= 10 else { return nil }
        return String(pubdate.prefix(10))
    }

    /// The ISBN-13s and ISBN-10s its identifiers give (`isbn`, and ISBNs a metadata source stored
    /// under another name), normalised; junk values are left out.
    var identifierValues: Identifiers {
        var identifiers = Identifiers()
        for (type, value) in self.identifiers {
            switch type {
            case "isbn", "isbn13", "isbn10", "isbn-13", "isbn-10": identifiers.add(isbn: value)
            default:
                if let key = Self.schemes[type] { identifiers.other[key] = value }
            }
        }
        return identifiers
    }

    /// Calibre identifier types under the names Seek's other sources (and its identity rules) use.
    static let schemes: [String: String] = [
        "doi": "doi", "oclc": "oclc", "lccn": "lccn", "google": "google", "goodreads": "goodreads",
        "amazon": "amazon", "openlibrary": "openlibraryEdition", "olwork": "openlibraryWork", "isfdb": "isfdb",
    ]

    /// The `series_index` as people write it (`2`, `2.5`).
    var seriesNumber: String? {
        guard let seriesIndex else { return nil }
        return seriesIndex == seriesIndex.rounded() && abs(seriesIndex) < 1e9
            ? String(Int(seriesIndex)) : String(seriesIndex)
    }
}

extension CalibreBook {
    /// Every book of the library (`ids` nil) or the books of `ids`, read from the base tables only,
    /// one query a table. Call inside a read transaction (`CalibreLibrary.read`).
    static func load(_ db: Database, ids: [Int64]? = nil) throws -> [CalibreBook] {
        let filterArgument: StatementArguments
        func filter(_ column: String) -> String {
            ids == nil ? "" : " WHERE \(column) IN (SELECT value FROM json_each(?))"
        }
        if let ids {
            filterArgument = [ "[" + ids.map(String.init).joined(separator: ",") + "]" ]
        } else {
            filterArgument = []
        }
        var books: [CalibreBook] = []
        var position: [Int64: Int] = [:]
        let bookRows = try Row.fetchCursor(
            db, sql: "SELECT id, title, pubdate, series_index, path, has_cover, last_modified FROM books\(filter("id")) ORDER BY id",
            arguments: filterArgument)
        while let row = try bookRows.next() {
            let id: Int64 = row[0]
            position[id] = books.count
            books.append(CalibreBook(
                id: id, title: row[1] ?? "", authors: [], pubdate: row[2], series: nil, seriesIndex: row[3],
                path: row[4] ?? "", hasCover: (row[5] as Int64?).map { $0 != 0 } ?? false, lastModified: row[6] ?? "",
                identifiers: [:], publisher: nil, tags: [], formats: [], languages: []))
        }
        guard !books.isEmpty else { return [] }
        // Each link table in one pass, its rows added to their book in place.
        func each(_ sql: String, _ body: (inout CalibreBook, Row) -> Void) throws {
            let rows = try Row.fetchCursor(db, sql: sql, arguments: filterArgument)
            while let row = try rows.next() {
                let book: Int64 = row[0]
                if let index = position[book] { body(&books[index], row) }
            }
        }
        try each(
            "SELECT l.book, a.name FROM books_authors_link l JOIN authors a ON a.id = l.author\(filter("l.book")) ORDER BY l.book, l.id"
        ) { book, row in
            if let name: String = row[1] { book.authors.append(name.replacingOccurrences(of: "|", with: ",")) }
        }
        try each("SELECT book, type, val FROM identifiers\(filter("book"))") { book, row in
            if let type: String = row[1], let value: String = row[2] { book.identifiers[type.lowercased()] = value }
        }
        try each("SELECT l.book, p.name FROM books_publishers_link l JOIN publishers p ON p.id = l.publisher\(filter("l.book"))") {
            $0.publisher = $1[1]
        }
        try each("SELECT l.book, s.name FROM books_series_link l JOIN series s ON s.id = l.series\(filter("l.book"))") {
            $0.series = $1[1]
        }
        try each("SELECT l.book, t.name FROM books_tags_link l JOIN tags t ON t.id = l.tag\(filter("l.book")) ORDER BY l.book, t.name") {
            if let name: String = $1[1] { $0.tags.append(name) }
        }
        try each("SELECT book, format FROM data\(filter("book")) ORDER BY book, format") {
            if let format: String = $1[1] { $0.formats.append(format.uppercased()) }
        }
        try each(
            "SELECT l.book, g.lang_code FROM books_languages_link l JOIN languages g ON g.id = l.lang_code\(filter("l.book")) ORDER BY l.book, l.item_order"
        ) {
            if let code: String = $1[1] { $0.languages.append(code) }
        }
        return books
    }

    /// The HTML description (`comments.text`) of book `id`, if it has one.
    static func comment(_ db: Database, id: Int64) throws -> String? {
        try String.fetchOne(db, sql: "SELECT text FROM comments WHERE book = ?", arguments: [id])
    }

    /// The rating of book `id` out of 10 (half stars), if it has one.
    static func rating(_ db: Database, id: Int64) throws -> Int? {
        try Int.fetchOne(
            db, sql: "SELECT r.rating FROM books_ratings_link l JOIN ratings r ON r.id = l.rating WHERE l.book = ?", arguments: [id])
    }

    /// Every book's id and `last_modified`, to tell which rows of an index changed.
    static func stamps(_ db: Database) throws -> [Int64: String] {
        var stamps: [Int64: String] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, last_modified FROM books")
        while let row = try rows.next() { stamps[row[0]] = row[1] ?? "" }
        return stamps
    }
}
