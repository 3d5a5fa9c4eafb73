import Foundation
import OpenLibraryProvider
import SeekCore
import SeekKit
import SeekLoopback
import Testing


@Suite("Open Library detail: which record it is, and authors within their own deadline")
struct OpenLibraryDetailIdentityTests {
    static let work = #"{"key": "/works/OL1W", "title": "A Work", "type": {"key": "/type/work"}, "authors": [{"author": {"key": "/authors/OL1A"}}, {"author": {"key": "/authors/OL2A"}}]}"#

    @Test("the item carries the id the record names itself by, not the one asked for")
    func itemTakesTheRecordsKey() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(#"{"key": "/works/OL7W", "title": "Another", "type": {"key": "/type/work"}}"#))
            let detail = try await provider.detail(olid("OL1W"))
            #expect(detail.item.id == olid("OL7W"))
            #expect(detail.redirect == nil)
            #expect(!provider.isRecord(detail.item, of: olid("OL1W")))
        }
    }

    @Test("a followed redirect is reported from the id asked for to the id fetched")
    func redirectIsReported() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(#"{"type": {"key": "/type/redirect"}, "location": "/works/OL2W"}"#))
            server.route("/works/OL2W.json", .json(#"{"key": "/works/OL2W", "title": "Merged", "type": {"key": "/type/work"}}"#))
            let asked = olid("ol1w")
            let detail = try await provider.detail(asked)
            #expect(detail.redirect == ItemRedirect(from: asked, to: olid("OL2W")))
            #expect(throws: Never.self) { try detail.verify(answers: asked, from: provider) }
        }
    }

    @Test("ids compare without regard to case or key path; works and editions differ")
    func isRecordNormalises() {
        let provider = OpenLibraryProvider(
            baseURL: URL(fileURLWithPath: "/"), coversURL: URL(fileURLWithPath: "/"), transport: NoTransport())
        let item = Item(id: olid("OL45804W"), kind: .book, title: "Fantastic Mr Fox")
        #expect(provider.isRecord(item, of: olid("ol45804w")))
        #expect(provider.isRecord(item, of: olid("/works/OL45804W")))
        #expect(!provider.isRecord(item, of: olid("OL45804M")))
        #expect(!provider.isRecord(item, of: olid("OL45805W")))
        #expect(!provider.isRecord(item, of: ItemID(provider: "aladin", value: "OL45804W")))
    }

    @Test("a hung author leaves only that name out, within a quarter of the detail's deadline")
    func hungAuthorIsDropped() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/works/OL1W.json", .json(Self.work))
            server.route("/authors/OL1A.json", fault: .hang)
            server.route("/authors/OL2A.json", .json(#"{"key": "/authors/OL2A", "name": "Second Author"}"#))
            let started = ContinuousClock.now
            let detail = try await provider.detail(olid("OL1W"), options: CallOptions(timeout: .seconds(2)))
            #expect(ContinuousClock.now - started < .milliseconds(1500))
            #expect(detail.item.title == "A Work")
            #expect(detail.item.creators == ["Second Author"])
        }
    }

    @Test("an edition whose work hangs still shows, without creators")
    func hungWorkOfEdition() async throws {
        try await withOpenLibrary { server, provider in
            server.route("/books/OL5M.json", .json(#"{"key": "/books/OL5M", "title": "Quiet", "works": [{"key": "/works/OL7W"}], "type": {"key": "/type/edition"}}"#))
            server.route("/works/OL7W.json", fault: .hang)
            let started = ContinuousClock.now
            let detail = try await provider.detail(olid("OL5M"), options: CallOptions(timeout: .seconds(2)))
            #expect(ContinuousClock.now - started < .milliseconds(1500))
            #expect(detail.item.title == "Quiet")
            #expect(detail.item.creators.isEmpty)
        }
    }

    @Test("the author lookups end after a quarter of the deadline, at most 3 s, never after half of what is left")
    func authorDeadline() {
        let start = ContinuousClock.now
        let due = OpenLibraryProvider.authorDeadline(start: start, deadline: .seconds(60))
        #expect(due - start <= .milliseconds(3050))
        let short = OpenLibraryProvider.authorDeadline(start: start, deadline: .seconds(2))
        #expect(short - start <= .milliseconds(550))
        let spent = OpenLibraryProvider.authorDeadline(start: start - .seconds(10), deadline: .seconds(10))
        #expect(spent <= ContinuousClock.now + .milliseconds(50))
    }
}

/// A transport that is never called.
private struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw SeekError(.network, detail: "no transport in this test")
    }
}
