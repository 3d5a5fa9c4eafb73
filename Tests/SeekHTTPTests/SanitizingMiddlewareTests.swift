import Foundation
import SeekCore
import SeekKit
import Testing

/// A provider whose every answer echoes another provider's key and carries terminal escapes.
private struct EchoingProvider: SearchProvider {
    var descriptor = ProviderDescriptor(id: "echo", name: "Echo", kinds: [.book], capabilities: [.search, .detail, .suggest], paging: .page)
    var endpoint: String { "http://127.0.0.1:1" }
    var failure: (any Error)?

    static let hostile = "\u{1B}]0;owned\u{07}Title with other-key-123456\nseek: giphy: forged"

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        if let failure { throw failure }
        let item = Item(
            id: ItemID(provider: "echo", value: "1\u{1B}[2J"), kind: .book, title: Self.hostile, subtitle: Self.hostile,
            creators: ["Author own-key-abcdef"], identifiers: Identifiers(other: ["note": "x\r\ny"]),
            images: [.small: ImageReference(url: URL(string: "https://img.example/a.jpg?api_key=own-key-abcdef")!, size: .small)],
            url: URL(string: "https://example.org/item?k=other-key-123456"))
        return SearchPage(items: [item], total: 1, next: "2", staleBecause: SeekError(.network, provider: "echo", detail: Self.hostile))
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        if let failure { throw failure }
        let page = try await search(SearchRequest(query: "x"), options: options)
        return ItemDetail(
            item: page.items[0], description: "first\r\nsecond \u{1B}[31mother-key-123456", contributors: [Contributor(name: Self.hostile, role: "\u{07}")],
            subjects: [Self.hostile], publishers: ["own-key-abcdef Press"], publishDate: "2020\n", attributes: ["price\n": Self.hostile])
    }

    func imageURL(for item: Item, size: ImageSize) -> URL? { nil }

    func suggest(_ prefix: String, limit: Int, options: CallOptions) async throws -> [String] {
        ["cats other-key-123456", "\u{1B}[1mdogs"]
    }
}

private let secrets = ["own-key-abcdef", "other-key-123456", "abc"]

/// Every string an answer holds, for checking that none is unsafe.
private func strings(_ detail: ItemDetail) -> [String] {
    let item = detail.item
    return [item.id.description, item.title, item.subtitle ?? "", item.url?.absoluteString ?? "", detail.description ?? "",
            detail.publishDate ?? ""] + item.creators + Array(item.identifiers.other.values)
        + item.images.values.map(\.url.absoluteString) + detail.contributors.flatMap { [$0.name, $0.role ?? ""] }
        + detail.subjects + detail.publishers + Array(detail.attributes.keys) + Array(detail.attributes.values)
}

private func isSafe(_ text: String, allowingNewline: Bool = false) -> Bool {
    !text.contains("own-key-abcdef") && !text.contains("other-key-123456")
        && !text.unicodeScalars.contains { ($0.value < 0x20 && !(allowingNewline && $0 == "\n")) || (0x7F...0x9F).contains($0.value) }
}

@Suite("The sanitising middleware: answers and errors leave a provider call safe, with every key redacted")
struct SanitizingMiddlewareTests {
    let pipeline = ProviderPipeline([SanitizingMiddleware(secrets: secrets)])

    @Test("every field of a detail is clean and holds no configured key, its own or another provider's")
    func detailFieldsAreClean() async throws {
        let detail = try await pipeline.detail(ItemID(provider: "echo", value: "1\u{1B}[2J"), on: EchoingProvider(), options: CallOptions())
        for text in strings(detail) where text != detail.description {
            #expect(isSafe(text), "unsafe: \(text.debugDescription)")
        }
        #expect(isSafe(detail.description ?? "", allowingNewline: true))
        #expect(detail.description == "first\nsecond [31mREDACTED")
        #expect(detail.item.title == "]0;ownedTitle with REDACTED seek: giphy: forged")
        #expect(detail.item.id.value == "1[2J")
        #expect(detail.item.url?.absoluteString == "https://example.org/item?k=REDACTED")
    }

    @Test("a search page's items, its next token and its stale error are clean")
    func searchPageIsClean() async throws {
        let page = try await pipeline.search(SearchRequest(query: "x"), on: EchoingProvider(), options: CallOptions())
        let item = try #require(page.items.first)
        #expect(isSafe(item.title) && isSafe(item.creators.joined()) && isSafe(item.identifiers.other["note"] ?? "x"))
        #expect(item.images[.small]?.url.absoluteString == "https://img.example/a.jpg?api_key=REDACTED")
        #expect(isSafe(page.staleBecause?.detail ?? "x"))
        #expect(page.next == "2")
    }

    @Test("in collections of several values, the clean ones are kept as they are and only the unsafe ones change")
    func mixedCollections() throws {
        let middleware = SanitizingMiddleware(secrets: secrets)
        let clean = try #require(URL(string: "https://img.example/clean.jpg"))
        let keyed = try #require(URL(string: "https://img.example/b.jpg?api_key=own-key-abcdef"))
        let item = Item(
            id: ItemID(provider: "echo", value: "1"), kind: .book, title: "T",
            creators: ["Ann", "Bob own-key-abcdef", "Cy\u{1B}[2J", "Dee"],
            identifiers: Identifiers(other: ["a": "plain", "b": "x\ny", "c": "other-key-123456"]),
            images: [.small: ImageReference(url: clean, size: .small), .large: ImageReference(url: keyed, size: .large, width: 5)])
        let cleaned = middleware.clean(item)
        #expect(cleaned.creators == ["Ann", "Bob REDACTED", "Cy[2J", "Dee"])
        #expect(cleaned.identifiers.other == ["a": "plain", "b": "x y", "c": "REDACTED"])
        #expect(cleaned.images[.small] == ImageReference(url: clean, size: .small))
        #expect(cleaned.images[.large]?.url.absoluteString == "https://img.example/b.jpg?api_key=REDACTED")
        #expect(cleaned.images[.large]?.width == 5)
    }

    @Test("an item with nothing unsafe comes back equal to itself")
    func cleanItemUnchanged() throws {
        let item = Item(
            id: ItemID(provider: "echo", value: "OL1W"), kind: .book, title: "Dune", subtitle: "A novel", creators: ["Frank Herbert", "권 영"],
            year: 1965, identifiers: Identifiers(isbns: ["9780441172719"], other: ["openlibraryWork": "OL1W"]),
            images: [.large: ImageReference(url: try #require(URL(string: "https://covers.example/1-L.jpg")), size: .large)],
            url: URL(string: "https://example.org/works/OL1W"))
        #expect(SanitizingMiddleware(secrets: secrets).clean(item) == item)
    }

    @Test("suggestions are clean")
    func suggestionsAreClean() async throws {
        let suggestions = try await pipeline.suggest("c", limit: 5, on: EchoingProvider(), options: CallOptions())
        #expect(suggestions == ["cats REDACTED", "[1mdogs"])
    }

    @Test("a thrown error's text is one clean line of at most 300 characters, its kind and provider kept")
    func errorsAreClean() async throws {
        let message = "denied\nseek: openlibrary: forged \u{1B}[2J other-key-123456 " + String(repeating: "y", count: 1 << 20)
        let provider = EchoingProvider(failure: SeekError(.unauthorized, provider: "echo", detail: message))
        do {
            _ = try await pipeline.search(SearchRequest(query: "x"), on: provider, options: CallOptions())
            Issue.record("expected an error")
        } catch let error as SeekError {
            #expect(error.kind == .unauthorized)
            #expect(error.provider == "echo")
            #expect(isSafe(error.detail))
            #expect(error.detail.count <= UntrustedText.lineLimit)
            #expect(error.detail.hasPrefix("denied seek: openlibrary: forged [2J REDACTED yyy"))
        }
    }

    @Test("an error of another type becomes a SeekError naming the provider; cancellation stays cancellation")
    func foreignErrors() async throws {
        struct Odd: Error, CustomStringConvertible { var description: String { "odd\u{1B}[0m other-key-123456" } }
        await #expect(throws: SeekError.self) {
            _ = try await pipeline.search(SearchRequest(query: "x"), on: EchoingProvider(failure: Odd()), options: CallOptions())
        }
        do {
            _ = try await pipeline.search(SearchRequest(query: "x"), on: EchoingProvider(failure: Odd()), options: CallOptions())
        } catch let error as SeekError {
            #expect(error.provider == "echo" && isSafe(error.detail))
        }
        await #expect(throws: CancellationError.self) {
            _ = try await pipeline.search(SearchRequest(query: "x"), on: EchoingProvider(failure: CancellationError()), options: CallOptions())
        }
    }

    @Test("secrets shorter than four characters are not redacted (they would mangle ordinary words)")
    func shortSecretsAreIgnored() {
        #expect(SanitizingMiddleware(secrets: secrets).secrets.sorted() == ["other-key-123456", "own-key-abcdef"])
    }
}
