import Foundation
import SeekCore
import Testing

@Suite("URLs kept as text")
struct URLTextTests {
    /// What `URL(string:)` makes of `text` that every plain text must also give: the same text back,
    /// an http(s) scheme and a host.
    private static func foundationAgrees(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme else { return false }
        return url.absoluteString == text && (scheme == "http" || scheme == "https") && url.host != nil
    }

    @Test("every ASCII character, in every part of a URL, is plain only where URL(string:) reads it unchanged")
    func everyCharacterInEveryPart() {
        let templates = [
            "https://X/", "https://aX.com/", "https://a.com:X/", "https://a.com/X", "https://a.com/p?X", "https://a.com/p#X",
            "http://a.com?X", "http://a.com#X", "https://a.com/pX/q", "https://X", "http://a.com:80X", "http://a.com/%X",
        ]
        var plain = 0
        for template in templates {
            for first in 0..<128 {
                for second in [nil, 0x25, 0x3F, 0x23, 0x2F, 0x3A, 0x40, 0x41] as [Int?] {
                    var inserted = String(UnicodeScalar(UInt8(first)))
                    if let second { inserted.append(Character(UnicodeScalar(UInt8(second)))) }
                    let text = template.replacingOccurrences(of: "X", with: inserted)
                    guard URLText.isPlainAbsolute(text) else { continue }
                    plain += 1
                    #expect(Self.foundationAgrees(text), "\(text.debugDescription) is plain, but URL(string:) disagrees")
                }
            }
        }
        #expect(plain > 3000)
    }

    @Test("generated URLs are plain only where URL(string:) reads them unchanged")
    func generatedText() {
        var random = SplitMix(seed: 30)
        let alphabet = Array("abAZ09-._~!$&'()*+,;=:@/?#%[] \"<>\\^`{|}é")
        var plain = 0
        for _ in 0..<20_000 {
            var text = Bool.random(using: &random) ? "https://" : "http://"
            for _ in 0..<Int.random(in: 0...25, using: &random) {
                text.append(alphabet.randomElement(using: &random) ?? "a")
            }
            guard URLText.isPlainAbsolute(text) else { continue }
            plain += 1
            #expect(Self.foundationAgrees(text), "\(text.debugDescription) is plain, but URL(string:) disagrees")
        }
        #expect(plain > 200)
    }

    @Test("the URLs providers build are plain and kept as written")
    func providersURLsArePlain() throws {
        for text in [
            "https://covers.openlibrary.org/b/id/8739161-L.jpg?default=false",
            "http://127.0.0.1:49152/covers/b/id/1000-S.jpg?default=false",
            "https://openlibrary.org/works/OL45804W",
            "https://media2.giphy.com/media/v1.Y2lkPTc5/3o7TKSjRrfIPjeiVyM/200w.gif?cid=790b7611&rid=200w.gif&ct=g",
            "https://image.aladin.co.kr/product/2345/21/cover500/8937460440_2.jpg",
            "http://www.aladin.co.kr/shop/wproduct.aspx?ItemId=234521&partner=openAPI&start=api",
        ] {
            #expect(URLText.isPlainAbsolute(text))
            let address = try #require(URLText(text))
            #expect(address.text == text)
            #expect(address.url.absoluteString == text)
            #expect(address.url.host != nil)
        }
    }

    @Test("text outside the plain subset is parsed as URL(string:) parses it")
    func otherTextIsParsed() throws {
        for text in [
            "HTTPS://example.com/a", "https://example.com/a b", "https://user:pass@example.com/", "https://[::1]:8080/x",
            "https://例え.jp/本", "ftp://example.com/file", "https://example.com/%zz", "https://example.com:99999/",
            "https://example.com/a#b#c", "mailto:someone@example.com",
        ] {
            #expect(!URLText.isPlainAbsolute(text))
            let address = URLText(text)
            #expect(address?.text == URL(string: text)?.absoluteString, "\(text)")
            #expect(address?.url == URL(string: text), "\(text)")
        }
    }

    @Test("a web address is an absolute http(s) URL with a host, trimmed")
    func webAddresses() {
        #expect(URLText(web: "  https://example.com/a \n")?.text == "https://example.com/a")
        #expect(URLText(web: "HTTP://Example.com/a")?.text == "HTTP://Example.com/a")
        #expect(URLText(web: "https://example.com/a b")?.text == URL(string: "https://example.com/a b")?.absoluteString)
        for rejected in ["", "   ", "ftp://example.com/a", "javascript:alert(1)", "mailto:a@example.com", "/relative/path",
                         "example.com/a", "https://", "https:///path", "data:image/gif;base64,R0lGOD"] {
            #expect(URLText(web: rejected) == nil, "\(rejected)")
        }
    }

    @Test("a value is equal, and hashes equal, whether it was kept as text or parsed")
    func equalityAcrossStorage() throws {
        let text = "https://covers.openlibrary.org/b/id/1-M.jpg?default=false"
        let kept = try #require(URLText(text))
        let parsed = URLText(try #require(URL(string: text)))
        #expect(kept == parsed)
        #expect(Set([kept, parsed]).count == 1)
        #expect(kept != URLText(try #require(URL(string: text + "&x=1"))))
    }

    @Test("it is encoded as one string, the way URL is, and a string that is no URL does not decode")
    func codable() throws {
        let text = "https://example.com/a?b=c"
        let address = try #require(URLText(text))
        let encoded = try JSONEncoder().encode(address)
        #expect(encoded == (try JSONEncoder().encode(try #require(URL(string: text)))))
        #expect(try JSONDecoder().decode(URLText.self, from: encoded) == address)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(URLText.self, from: Data(#""""#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(URLText.self, from: Data("12".utf8)) }
    }

    @Test("models keep their URL fields: the same JSON as before, and url reads and writes the address")
    func modelsKeepTheirURLs() throws {
        let image = try #require(URL(string: "https://example.com/cover.jpg"))
        let page = try #require(URL(string: "https://example.com/book"))
        var item = Item(
            id: ItemID(provider: "p", value: "1"), kind: .book, title: "T",
            images: [.large: ImageReference(url: image, size: .large, width: 10)], url: page)
        #expect(item.url == page)
        #expect(item.address?.text == page.absoluteString)
        #expect(item.images[.large]?.url == image)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(item)) as? [String: Any])
        #expect(object["url"] as? String == "https://example.com/book")
        #expect(object["address"] == nil)
        let images = try #require(object["images"] as? [Any])
        #expect((images.last as? [String: Any])?["url"] as? String == "https://example.com/cover.jpg")
        #expect(try JSONDecoder().decode(Item.self, from: JSONEncoder().encode(item)) == item)

        item.url = nil
        #expect(item.address == nil)
        item.images[.large]?.url = page
        #expect(item.images[.large]?.address.text == "https://example.com/book")
    }
}
