import AladinProvider
import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import Testing

private func aladin(_ value: String) -> ItemID { ItemID(provider: "aladin", value: value) }

private func book(isbn13: String, isbn10: String, itemID: String) -> Item {
    var identifiers = Identifiers(isbns: [isbn13, isbn10])
    identifiers.other["aladinItemId"] = itemID
    return Item(id: aladin(isbn13.isEmpty ? itemID : isbn13), kind: .book, title: "Book", identifiers: identifiers)
}

@Suite("Aladin: ids compared as Aladin looks books up, and pages bounded")
struct AladinBoundsTests {
    let provider = AladinProvider(baseURL: URL(fileURLWithPath: "/"), apiKey: "k", transport: NoTransport())
    let harbor = book(isbn13: "9788936434120", isbn10: "8936434128", itemID: "123")

    @Test("a book is the record of its ISBN-13, its ISBN-10 (hyphens or not) and its itemId")
    func sameBook() {
        for value in ["9788936434120", "978-89-364-3412-0", "8936434128", "89-364-3412-8", "123"] {
            #expect(provider.isRecord(harbor, of: aladin(value)), "\(value)")
        }
    }

    @Test("a book is not the record of another ISBN or itemId")
    func anotherBook() {
        for value in ["9780140328721", "0140328726", "456"] {
            #expect(!provider.isRecord(harbor, of: aladin(value)), "\(value)")
        }
    }

    @Test("a book without an ISBN is the record of its itemId")
    func itemIDOnly() {
        let magazine = book(isbn13: "", isbn10: "", itemID: "789")
        #expect(provider.isRecord(magazine, of: aladin("789")))
        #expect(!provider.isRecord(magazine, of: aladin("790")))
    }

    @Test("a page cursor of 2^63 − 1 or past the deepest page is invalid input, with no request made",
          arguments: ["9223372036854775807", "100002", "-1", "0", "1e3"])
    func hugeCursor(cursor: String) async throws {
        try await withAladin { provider, server in
            let error = await seekError { _ = try await provider.search(SearchRequest(query: "harbor", cursor: cursor)) }
            #expect(error?.kind == .invalidInput)
            #expect(error?.provider == "aladin")
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("page 10^18 asked directly is an empty page past the reachable results, without a call")
    func hugePage() async throws {
        try await withAladin { provider, server in
            let page = try await provider.search(SearchRequest(query: "harbor", page: 1_000_000_000_000_000_000, limit: 50))
            #expect(page.items.isEmpty && page.next == nil)
            #expect(server.totalRequestCount == 0)
        }
    }
}

/// A transport that is never called.
private struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw SeekError(.network, detail: "no transport in this test")
    }
}
