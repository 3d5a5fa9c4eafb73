import Foundation
import SeekCore
import Testing

/// `SeekError.inWords`: what a reader is told, naming the provider by its display name and never
/// carrying the technical detail (URL, status line, body excerpt).
@Suite("A failed call in a reader's words")
struct ReaderMessageTests {
    static let books = ProviderDescriptor(id: "openlibrary", name: "Open Library", kinds: [.book], capabilities: [.search], paging: .page)
    static let gifs = ProviderDescriptor(id: "giphy", name: "GIPHY", kinds: [.gif], capabilities: [.search], paging: .offset)
    static let technical = "http://127.0.0.1:9/works/OL1W.json — {\"error\": \"notfound\"}"

    @Test("an item the provider no longer has names the provider and what it holds, without the detail")
    func notFound() {
        let error = SeekError(.notFound, provider: "openlibrary", detail: Self.technical)
        #expect(error.inWords(Self.books) == "Open Library no longer has this book.")
        #expect(SeekError(.notFound, provider: "giphy", detail: Self.technical).inWords(Self.gifs) == "GIPHY no longer has this GIF.")
    }

    @Test("a rate-limited provider says when to try again, in whole seconds")
    func rateLimited() {
        let error = SeekError(.rateLimited(retryAfterSeconds: 29.2), provider: "giphy", detail: Self.technical)
        #expect(error.inWords(Self.gifs) == "GIPHY is receiving too many requests from Seek just now. Try again in 30 seconds.")
    }

    @Test("no failure of a provider's answer shows its technical detail", arguments: [
        SeekError.Kind.notFound, .network, .timeout(seconds: 10), .httpStatus(502), .httpStatus(418), .undecodable,
        .bodyTooLarge(limitBytes: 1024), .rateLimited(retryAfterSeconds: nil), .unauthorized,
    ])
    func noTechnicalDetail(kind: SeekError.Kind) {
        let words = SeekError(kind, provider: "openlibrary", detail: Self.technical).inWords(Self.books)
        #expect(words.hasPrefix("Open Library "), "\(words)")
        #expect(!words.contains("127.0.0.1") && !words.contains("notfound") && !words.contains("/works/"), "\(words)")
    }

    @Test("a missing setting's cause names it: a key, one variable that 'is not set', two that 'are not set'")
    func missingSettingCause() {
        #expect(SeekError(.missingKey(variable: "SEEK_GIPHY_API_KEY"), provider: "giphy").description
            == "giphy: no API key (set SEEK_GIPHY_API_KEY)")
        #expect(SeekError(.missingKey(variable: "SEEK_CALIBRE_LIBRARY")).cause == "SEEK_CALIBRE_LIBRARY is not set")
        #expect(SeekError(.missingKey(variable: "SEEK_NAVER_CLIENT_ID and SEEK_NAVER_CLIENT_SECRET")).cause
            == "SEEK_NAVER_CLIENT_ID and SEEK_NAVER_CLIENT_SECRET are not set")
        // In a reader's words: a key is a key, a folder is a setting.
        let library = ProviderDescriptor(id: "calibre", name: "Your library", kinds: [.book], capabilities: [.search], paging: .offset)
        #expect(SeekError(.missingKey(variable: "SEEK_CALIBRE_LIBRARY"), provider: "calibre").inWords(library)
            == "Your library needs a setting: set SEEK_CALIBRE_LIBRARY.")
        #expect(SeekError(.missingKey(variable: "SEEK_GIPHY_API_KEY"), provider: "giphy").inWords(Self.gifs)
            == "GIPHY needs an API key: set SEEK_GIPHY_API_KEY.")
    }

    @Test("an error of no known provider says 'The provider'")
    func unknownProvider() {
        #expect(SeekError(.timeout(seconds: 5)).inWords(nil) == "The provider took too long to answer. Try again in a moment.")
    }
}
