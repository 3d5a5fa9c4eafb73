import Foundation
@testable import SeekAccess
import SeekCore
import Testing

@Suite("The visitor cookie")
struct VisitorCookieTests {
    static let secret = "an-operator-secret-of-at-least-32-characters"
    let cookies: VisitorCookies

    init() throws {
        cookies = try VisitorCookies(secret: Self.secret)
    }

    @Test("a cookie the server issued names its visitor")
    func roundTrip() {
        let visitor = cookies.newVisitor()
        let value = cookies.value(for: visitor)
        #expect(cookies.visitor(fromValue: value[...]) == visitor)
        #expect(cookies.visitor(fromCookieHeaders: ["theme=dark; seek_visitor=\(value); other=1"]) == visitor)
        #expect(visitor.id.count == 22)
    }

    @Test("a cookie after a pair that ends in a character joining the next (U+0600) is still found", arguments: [
        "theme=dark\u{600}; ", "\u{600}; ", "a=\u{110BD};", "x=\u{600}\u{600};\t",
    ])
    func cookieAfterJoiningCharacter(_ before: String) {
        let visitor = cookies.newVisitor()
        #expect(cookies.visitor(fromCookieHeaders: [before + "seek_visitor=\(cookies.value(for: visitor))"]) == visitor)
    }

    @Test("a cookie value quoted or padded with spaces and tabs reads as the bare value")
    func quotedAndPadded() {
        let visitor = cookies.newVisitor()
        let value = cookies.value(for: visitor)
        #expect(cookies.visitor(fromCookieHeaders: ["a=1;  seek_visitor = \t\"\(value)\" \t; b=2"]) == visitor)
        #expect(cookies.visitor(fromCookieHeaders: ["seek_visitor=\"\(value)"]) == nil)
    }

    @Test("two new visitors never share an id")
    func distinctIDs() {
        let ids = Set((0..<1000).map { _ in cookies.newVisitor().id })
        #expect(ids.count == 1000)
    }

    @Test("a cookie altered in any one character is no visitor")
    func alteredInOneCharacter() {
        let value = Array(cookies.value(for: cookies.newVisitor()))
        for index in value.indices {
            for replacement in ["A", "z", "0", "-", ".", "_"] where String(value[index]) != replacement {
                var altered = value
                altered[index] = Character(replacement)
                #expect(cookies.visitor(fromValue: String(altered)[...]) == nil, "altered at \(index) to \(replacement)")
            }
        }
    }

    @Test("a cookie signed with another secret is no visitor")
    func otherSecret() throws {
        let other = try VisitorCookies(secret: String(repeating: "x", count: 40))
        let value = other.value(for: other.newVisitor())
        #expect(cookies.visitor(fromValue: value[...]) == nil)
    }

    @Test("an expired cookie, or one issued in the future, is no visitor")
    func expired() {
        let now = Date()
        let old = cookies.newVisitor(now: now.addingTimeInterval(-VisitorCookies.lifetime - 10))
        let future = cookies.newVisitor(now: now.addingTimeInterval(3600))
        #expect(cookies.visitor(fromValue: cookies.value(for: old)[...], now: now) == nil)
        #expect(cookies.visitor(fromValue: cookies.value(for: future)[...], now: now) == nil)
    }

    @Test("absent, empty and malformed cookies are no visitor, and never a crash",
          arguments: ["", "seek_visitor=", "seek_visitor", "seek_visitor=v1", "seek_visitor=v1...", "seek_visitor=v2.a.b.c",
                      "seek_visitor=v1.AAAAAAAAAAAAAAAAAAAAAA.99999999999999999999.AAAA", "seek_visitor=v1.AAAAAAAAAAAAAAAAAAAAAA.-5.AAAA",
                      "seek_visitor=\u{0}\u{FFFF}", "seek_visitor=v1.ÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄÄ.1.x"])
    func malformed(_ header: String) {
        #expect(cookies.visitor(fromCookieHeaders: [header]) == nil)
    }

    /// Not arguments of `malformed`: the test log writes out every argument, 140 KB of them.
    @Test("huge cookies are no visitor, and never a crash")
    func huge() {
        for header in ["seek_visitor=" + String(repeating: "A", count: 100_000), String(repeating: "a=b;", count: 10_000)] {
            #expect(cookies.visitor(fromCookieHeaders: [header]) == nil, "\(header.prefix(20))… (\(header.count) characters)")
        }
    }

    @Test("a secret shorter than 32 characters is a configuration error")
    func shortSecret() {
        #expect(throws: SeekError.self) { try VisitorCookies(secret: String(repeating: "s", count: 31)) }
    }

    @Test("Set-Cookie is HttpOnly, SameSite=Lax, Path=/, and Secure only over HTTPS")
    func setCookieAttributes() {
        let visitor = cookies.newVisitor()
        let plain = cookies.setCookie(for: visitor, secure: false)
        #expect(plain.hasPrefix("seek_visitor="))
        #expect(plain.contains("; HttpOnly") && plain.contains("; SameSite=Lax") && plain.contains("; Path=/"))
        #expect(!plain.contains("Secure"))
        #expect(cookies.setCookie(for: visitor, secure: true).hasSuffix("; Secure"))
    }
}

@Suite("Who a request comes from (SEEK_TRUSTED_PROXIES, X-Forwarded-For)")
struct ClientAddressTests {
    let nginx: TrustedProxies
    let loopback = IPAddress("127.0.0.1")

    init() throws {
        nginx = try TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8, ::1")
    }

    @Test("addresses parse with and without ports, IPv6 in brackets; names and garbage do not",
          arguments: [("1.2.3.4", "1.2.3.4"), ("1.2.3.4:8080", "1.2.3.4"), ("::1", "::1"), ("[::1]:443", "::1"),
                      ("[2001:db8::1]", "2001:db8::1"), ("::ffff:192.0.2.1", "192.0.2.1"), (" 10.0.0.1 ", "10.0.0.1")])
    func parses(_ text: String, _ expected: String) {
        #expect(IPAddress(text)?.description == expected)
    }

    @Test("names, garbage and out-of-range numbers are not addresses", arguments: ["example.com", "unknown", "1.2.3", "256.1.1.1", "1.2.3.4:x", "[::1", "", ":::", "1.2.3.4/8"])
    func notAddresses(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test("without trusted proxies the connecting address is the client, whatever X-Forwarded-For says")
    func noTrust() {
        let client = TrustedProxies.none.client(connectingFrom: IPAddress("203.0.113.9"), forwardedFor: ["1.1.1.1", "2.2.2.2"])
        #expect(client == "203.0.113.9")
        #expect(TrustedProxies.none.client(connectingFrom: loopback, forwardedFor: ["9.9.9.9"]) == "127.0.0.1")
    }

    @Test("behind a trusted proxy the right-most untrusted X-Forwarded-For entry is the client")
    func rightMostUntrusted() {
        // A client that sends its own X-Forwarded-For only adds entries on the left.
        let client = nginx.client(connectingFrom: loopback, forwardedFor: ["6.6.6.6, 203.0.113.7", "10.1.2.3"])
        #expect(client == "203.0.113.7")
    }

    @Test("a client's entry ending in a character that joins the next (U+0600) does not swallow the address its proxy appended")
    func joiningCharacterBeforeComma() {
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: ["6.6.6.6\u{600}, 203.0.113.7"]) == "203.0.113.7")
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: ["x\u{600},203.0.113.7", "10.1.2.3"]) == "203.0.113.7")
    }

    @Test("when every entry is a trusted proxy the left-most is the client")
    func allTrusted() {
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: ["10.0.0.5, 10.0.0.6"]) == "10.0.0.5")
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: []) == "127.0.0.1")
    }

    @Test("X-Forwarded-For with spaces, ports, IPv6 and garbage reads as entries")
    func awkwardEntries() {
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: ["  203.0.113.7:5555 ,  "]) == "203.0.113.7")
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: ["[2001:db8::7]:1234"]) == "2001:db8::7")
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: ["1.1.1.1, UNKNOWN\u{1}<script>"]) == "unknown<script>")
    }

    @Test("a hundred entries read the same as their right end")
    func hundredEntries() {
        let many = (1...100).map { "198.51.100.\($0)" }.joined(separator: ", ")
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: [many]) == "198.51.100.100")
        let trustedTail = many + ", " + (1...100).map { "10.0.0.\($0)" }.joined(separator: ",")
        #expect(nginx.client(connectingFrom: loopback, forwardedFor: [trustedTail]) == "198.51.100.100")
    }

    @Test("CIDR ranges match by prefix, for IPv4 and IPv6")
    func cidr() throws {
        let ranges = try TrustedProxies(parsing: "192.168.0.0/16, fd00::/8, 0.0.0.0/0")
        #expect(ranges.contains(try #require(IPAddress("192.168.200.1"))))
        #expect(ranges.contains(try #require(IPAddress("fdab::1"))))
        #expect(!ranges.contains(try #require(IPAddress("fe80::1"))))
        #expect(ranges.contains(try #require(IPAddress("8.8.8.8"))))
    }

    @Test("a bad SEEK_TRUSTED_PROXIES is a configuration error", arguments: ["nginx", "10.0.0.0/33", "::1/129", "1.2.3.4/-1", "1.2.3.4/999999999999", "[::1]"])
    func badProxies(_ text: String) {
        #expect(throws: SeekError.self) { try TrustedProxies(parsing: text) }
    }

    @Test("only a trusted proxy's X-Forwarded-Proto says HTTPS")
    func forwardedProto() {
        #expect(nginx.saysHTTPS(connectingFrom: loopback, forwardedProto: ["https"]))
        #expect(!TrustedProxies.none.saysHTTPS(connectingFrom: loopback, forwardedProto: ["https"]))
    }
}

@Suite("Same-origin writes (Sec-Fetch-Site, Origin)")
struct SameOriginTests {
    static let own = "http://127.0.0.1:8080"

    @Test("Sec-Fetch-Site same-origin or none passes; cross-site and same-site do not")
    func secFetchSite() {
        #expect(SameOrigin.allows(secFetchSite: "same-origin", origin: "http://evil.example", ownOrigin: Self.own))
        #expect(SameOrigin.allows(secFetchSite: "none", origin: nil, ownOrigin: Self.own))
        #expect(!SameOrigin.allows(secFetchSite: "cross-site", origin: nil, ownOrigin: Self.own))
        #expect(!SameOrigin.allows(secFetchSite: "same-site", origin: Self.own, ownOrigin: Self.own))
    }

    @Test("without Sec-Fetch-Site, an Origin other than the instance's own is refused, null included")
    func origin() {
        #expect(SameOrigin.allows(secFetchSite: nil, origin: "http://127.0.0.1:8080", ownOrigin: Self.own))
        #expect(SameOrigin.allows(secFetchSite: nil, origin: "HTTP://127.0.0.1:8080/", ownOrigin: Self.own))
        #expect(SameOrigin.allows(secFetchSite: nil, origin: "https://seek.example:443", ownOrigin: "https://seek.example"))
        #expect(!SameOrigin.allows(secFetchSite: nil, origin: "http://evil.example", ownOrigin: Self.own))
        #expect(!SameOrigin.allows(secFetchSite: nil, origin: "null", ownOrigin: Self.own))
        #expect(!SameOrigin.allows(secFetchSite: nil, origin: "http://127.0.0.1:8081", ownOrigin: Self.own))
        #expect(!SameOrigin.allows(secFetchSite: nil, origin: String(repeating: "x", count: 10_000), ownOrigin: Self.own))
    }

    @Test("a request with neither header (curl, a script) passes")
    func neither() {
        #expect(SameOrigin.allows(secFetchSite: nil, origin: nil, ownOrigin: Self.own))
    }
}
