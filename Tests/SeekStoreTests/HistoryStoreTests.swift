import Foundation
import SeekKit
import SeekLoopback
@testable import SeekStore
import Testing

@Suite("History store")
struct HistoryStoreTests {
    @Test("entries are most recent first, with query and providers")
    func order() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let history = SQLiteHistoryStore(database: store.database)
        try await history.record(query: "fox", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await history.record(query: "cats", providers: ["giphy", "openlibrary"], at: Date(timeIntervalSince1970: 2))
        let entries = try await history.entries()
        #expect(entries.map(\.query) == ["cats", "fox"])
        #expect(entries.first?.providers == ["giphy", "openlibrary"])
        #expect(entries.last?.searchedAt == Date(timeIntervalSince1970: 1))
    }

    @Test("a repeated query moves to the top instead of appearing twice")
    func dedupe() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let history = SQLiteHistoryStore(database: store.database)
        for query in ["fox", "cats", "dogs", "  Fox "] {
            try await history.record(query: query, providers: ["openlibrary"])
        }
        #expect(try await history.entries().map(\.query) == ["Fox", "dogs", "cats"])
    }

    @Test("queries differing only in case, spacing or Unicode form are one entry")
    func normalization() {
        #expect(SearchHistoryEntry.normalize("  Harry   Potter ") == "harry potter")
        #expect(SearchHistoryEntry.normalize("caf\u{65}\u{301}") == SearchHistoryEntry.normalize("caf\u{E9}"))
        // Swift's `==` equates canonically equivalent strings: the scalars show the composed form.
        #expect(Array(SearchHistoryEntry.normalize("CAF\u{45}\u{301}").unicodeScalars) == Array("caf\u{E9}".unicodeScalars))
        #expect(SearchHistoryEntry.normalize("\tDune\n  Messiah") == "dune messiah")
    }

    @Test("ASCII queries are normalised on their bytes exactly as the full normalisation does")
    func asciiNormalizationAgrees() {
        var generator = SystemRandomNumberGenerator()
        // Every ASCII byte, white space and upper case weighted up: runs of spaces, tabs, CR LF, mixed case.
        let alphabet = Array(UInt8(0)...UInt8(0x7F)) + Array(" \t\r\n\u{0B}\u{0C}  ABCZ".utf8)
        for length in [0, 1, 2, 5, 17, 64] {
            for _ in 0..<300 {
                let query = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0x20 }, as: UTF8.self)
                #expect(Array(SearchHistoryEntry.normalize(query).utf8) == Array(SearchHistoryEntry.normalizedInFull(query).utf8), "\(Array(query.utf8))")
            }
        }
        #expect(SearchHistoryEntry.asciiNormalized("\r\n  Dune\r\nMESSIAH \u{1F}x ") == "dune messiah \u{1F}x")
        #expect(SearchHistoryEntry.asciiNormalized("caf\u{E9}") == nil)
    }

    @Test("the history keeps at most its limit, dropping the oldest", arguments: [1, 3, 10])
    func bounded(limit: Int) async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let history = SQLiteHistoryStore(database: store.database, limit: limit)
        for n in 1...13 { try await history.record(query: "query \(n)", providers: ["openlibrary"]) }
        let expected = (1...13).reversed().prefix(limit).map { "query \($0)" }
        #expect(try await history.entries().map(\.query) == Array(expected))
        let unbounded = SQLiteHistoryStore(database: store.database, limit: 100)
        #expect(try await unbounded.entries().count == limit)
    }

    @Test("a lower limit than the history was kept with drops every entry past it at the next search")
    func lowerLimit() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let wide = SQLiteHistoryStore(database: store.database, limit: 10)
        for n in 1...8 { try await wide.record(query: "query \(n)", providers: ["openlibrary"]) }
        // A repeated query moves to the top; the oldest six go.
        try await SQLiteHistoryStore(database: store.database, limit: 3).record(query: "query 2", providers: ["giphy"])
        #expect(try await wide.entries().map(\.query) == ["query 2", "query 8", "query 7"])
    }

    @Test("a limit of 0 on a history with entries forgets them all at the next search")
    func limitZeroForgetsEarlierEntries() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let wide = SQLiteHistoryStore(database: store.database, limit: 10)
        for n in 1...4 { try await wide.record(query: "query \(n)", providers: ["openlibrary"]) }
        try await SQLiteHistoryStore(database: store.database, limit: 0).record(query: "query 5", providers: ["openlibrary"])
        #expect(try await wide.entries().isEmpty)
    }

    @Test("a limit of 0 keeps no history")
    func limitZero() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let history = SQLiteHistoryStore(database: store.database, limit: 0)
        try await history.record(query: "fox", providers: ["openlibrary"])
        #expect(try await history.entries().isEmpty)
    }

    @Test("blank queries are not recorded")
    func blank() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let history = SQLiteHistoryStore(database: store.database)
        try await history.record(query: "   ", providers: ["openlibrary"])
        #expect(try await history.entries().isEmpty)
    }

    @Test("clear forgets every entry")
    func clear() async throws {
        let store = TemporaryStore()
        defer { store.remove() }
        let history = SQLiteHistoryStore(database: store.database)
        try await history.record(query: "fox", providers: ["openlibrary"])
        try await history.clear()
        #expect(try await history.entries().isEmpty)
    }
}
