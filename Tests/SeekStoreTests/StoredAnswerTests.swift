import Foundation
import SeekCore
@testable import SeekStore
import Testing

/// Items with every field set, and with every optional left out.
private let full = Item(
    id: ItemID(provider: "openlibrary", value: "OL45804W"), kind: .book, title: "Fantastic Mr Fox \"quoted\" / ½ 위대한",
    subtitle: "A tale\nin two lines", creators: ["Roald Dahl", "Quentin Blake"], year: 1970,
    identifiers: Identifiers(isbns: ["0140328726", "9780307352149"], other: ["openlibraryWork": "OL45804W", "note": "\u{1}"]),
    images: [
        .small: ImageReference(url: URL(string: "https://covers.example/b/id/1-S.jpg")!, size: .small, width: 40, height: 60),
        .large: ImageReference(url: URL(string: "https://covers.example/b/id/1-L.jpg?x=1&y=%20")!, size: .large),
        .original: ImageReference(url: URL(string: "https://covers.example/b/id/1.jpg")!, size: .original, width: 800),
    ],
    url: URL(string: "https://openlibrary.org/works/OL45804W"))
private let bare = Item(id: ItemID(provider: "giphy", value: "xT9"), kind: .gif, title: "")

@Suite("Cached answers are written by JSONWriter in the layout JSONDecoder reads")
struct StoredAnswerTests {
    @Test("a page with full and bare items reads back equal, as a JSONEncoder-written one does")
    func pageRoundTrip() throws {
        for page in [SearchPage(items: [full, bare], total: 251, next: "20"), SearchPage(items: [])] {
            let stored = CachedPage(page)
            let read = try JSONDecoder().decode(CachedPage.self, from: stored.storedJSON).page()
            #expect(read == page)
            let viaEncoder = try JSONDecoder().decode(CachedPage.self, from: JSONEncoder().encode(stored)).page()
            #expect(read == viaEncoder)
        }
    }

    @Test("a detail with every field, and one with none of the optional ones, reads back equal")
    func detailRoundTrip() throws {
        let details = [
            ItemDetail(
                item: full, description: "Line one.\nLine two.", contributors: [Contributor(name: "Roald Dahl", role: "author"), Contributor(name: "Anon")],
                subjects: ["Foxes"], publishers: ["Puffin"], publishDate: "1970", pageCount: 96, attributes: ["price": "₩12000", "a\"b": "c"],
                redirect: ItemRedirect(from: ItemID(provider: "openlibrary", value: "OL1W"), to: full.id)),
            ItemDetail(item: bare),
        ]
        for detail in details {
            #expect(try JSONDecoder().decode(ItemDetail.self, from: detail.storedJSON) == detail)
        }
    }

    @Test("the images are written in size order, so the same answer is always the same bytes")
    func deterministic() {
        #expect(CachedPage(SearchPage(items: [full])).storedJSON == CachedPage(SearchPage(items: [full])).storedJSON)
        let text = String(decoding: CachedPage(SearchPage(items: [full])).storedJSON, as: UTF8.self)
        #expect(text.contains(#""images":["small",{"#))
    }
}
