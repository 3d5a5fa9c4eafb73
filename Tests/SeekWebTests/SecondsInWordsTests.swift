import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SeekCore
import SeekWeb
import Testing

/// "1 second", never "1 seconds": the rate-limited page, the reader's message for a provider's
/// Retry-After, the request deadline (issue 52).
@Suite("seconds in words")
struct SecondsInWordsTests {
    @Test("SeekError.secondsInWords: 1 second, 2 seconds, 2.5 seconds, 0 seconds")
    func words() {
        #expect(SeekError.secondsInWords(1) == "1 second")
        #expect(SeekError.secondsInWords(2) == "2 seconds")
        #expect(SeekError.secondsInWords(2.5) == "2.5 seconds")
        #expect(SeekError.secondsInWords(0) == "0 seconds")
        #expect(SeekError.secondsInWords(60) == "60 seconds")
    }

    @Test("a provider's Retry-After of a second or less is 'Try again in 1 second.'")
    func readerMessage() {
        let error = SeekError(.rateLimited(retryAfterSeconds: 0.4), provider: "giphy", detail: "429")
        let words = error.inWords(nil)
        #expect(words.hasSuffix("Try again in 1 second."), "\(words)")
    }

    @Test("the rate-limited page says 'Try again in 1 second.' when the wait is a second, in English and Korean")
    func limitedPage() async throws {
        let instance = try await PublicServer.start(["SEEK_CLIENT_RATE_LIMIT": "1/s,burst=1"])
        let (pages, korean) = try await instance.withRouter { client in
            var pages: [(HTTPResponse.Status, String, String?)] = []
            for _ in 0..<2 {
                pages.append(try await client.execute(uri: "/search?q=harbor", method: .get) { ($0.status, $0.text, $0.headers[.retryAfter]) })
            }
            var headers = HTTPFields()
            headers[.acceptLanguage] = "ko"
            let korean = try await client.execute(uri: "/search?q=harbor", method: .get, headers: headers) { ($0.status, $0.text, $0.headers[.retryAfter]) }
            return (pages, korean)
        }
        try await instance.stop()
        #expect(pages[0].0 == .ok)
        #expect(pages[1].0 == .tooManyRequests)
        #expect(pages[1].2 == "1")
        #expect(pages[1].1.contains("Try again in 1 second."), "\(pages[1].1.prefix(2000))")
        #expect(!pages[1].1.contains("1 seconds"))
        #expect(korean.0 == .tooManyRequests)
        if korean.2 == "1" { #expect(korean.1.contains("1초 후에")) }
    }
}
