import Crypto
import Foundation
import SeekCore

/// The anonymous visitor id of a public instance, carried in a signed cookie `seek_visitor`:
/// `v1.<id>.<issued>.<signature>`, the signature an HMAC-SHA256 of the rest under `SEEK_SECRET`.
///
/// A cookie that does not verify — altered, signed with another secret, too old, too long, malformed —
/// is no visitor at all: the request is treated as a new visitor's, never as someone else's.
public struct VisitorCookies: Sendable {
    /// The cookie's name.
    public static let name = "seek_visitor"
    /// The shortest secret accepted.
    public static let minimumSecretLength = 32
    /// How long a cookie stays valid after it was issued; a visitor seen again gets a fresh one daily.
    public static let lifetime: TimeInterval = 400 * 86_400
    /// How old a cookie may be before it is issued anew.
    public static let refreshAfter: TimeInterval = 86_400
    /// The longest cookie value read; anything longer is refused unread.
    static let maximumLength = 200

    /// The secret's bytes (a `SymmetricKey` is made per use: it is not Sendable).
    private let secret: Data
    private var key: SymmetricKey { SymmetricKey(data: secret) }

    /// Cookies signed with `secret`; a secret shorter than 32 characters is a configuration error.
    public init(secret: String) throws {
        guard secret.count >= Self.minimumSecretLength else {
            throw SeekError(
                .configuration, detail: "SEEK_SECRET must be at least \(Self.minimumSecretLength) characters (it signs the visitor cookie)")
        }
        self.secret = Data(secret.utf8)
    }

    /// A visitor the cookie says a request comes from.
    public struct Visitor: Sendable, Hashable {
        /// 22 URL-safe characters: 128 random bits.
        public let id: String
        /// When the cookie was issued (whole seconds).
        public let issued: Date
    }

    /// A new visitor, issued at `now`.
    public func newVisitor(now: Date = Date()) -> Visitor {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Visitor(id: Base64URL.encode(bytes), issued: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
    }

    /// `visitor` with a cookie issued anew at `now` (a visitor seen again keeps their id).
    public func renewed(_ visitor: Visitor, now: Date = Date()) -> Visitor {
        Visitor(id: visitor.id, issued: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
    }

    /// The cookie value for `visitor`.
    public func value(for visitor: Visitor) -> String {
        let payload = "v1.\(visitor.id).\(Int64(visitor.issued.timeIntervalSince1970))"
        return payload + "." + Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)))
    }

    /// The visitor a cookie value stands for, or nil when it does not verify at `now`.
    public func visitor(fromValue value: Substring, now: Date = Date()) -> Visitor? {
        guard value.utf8.count <= Self.maximumLength else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", parts[1].utf8.count == 22, parts[1].allSatisfy(Base64URL.isDigit),
              parts[2].utf8.count <= 12, parts[2].allSatisfy({ $0.isASCII && $0.isNumber }),
              let issuedSeconds = Int64(parts[2]),
              let signature = Base64URL.decode(parts[3]), signature.count == 32,
              // One spelling per signature: base64's last character has spare bits, which must be zero.
              Base64URL.encode(signature) == parts[3]
        else { return nil }
        let payload = "v1.\(parts[1]).\(parts[2])"
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(payload.utf8), using: key) else { return nil }
        let issued = Date(timeIntervalSince1970: Double(issuedSeconds))
        let age = now.timeIntervalSince(issued)
        // Issued in the future (beyond a little clock skew) or too long ago: expired.
        guard age > -300, age < Self.lifetime else { return nil }
        return Visitor(id: String(parts[1]), issued: issued)
    }

    /// The visitor of the first `seek_visitor` cookie in `headers` (the values of every Cookie header)
    /// that verifies.
    public func visitor(fromCookieHeaders headers: [String], now: Date = Date()) -> Visitor? {
        var examined = 0
        for header in headers {
            // Split on scalars: a character that joins the next (U+0600) must not hide the `;` after it.
            for pair in header.fields(separatedBy: ";") {
                examined += 1
                // A request stuffed with cookies is read only so far.
                guard examined <= 64 else { return nil }
                let parts = pair.fields(separatedBy: "=", maxSplits: 1, keepingEmpty: true)
                guard parts.count == 2, parts[0].trimmed() == Self.name else { continue }
                var value = parts[1].unicodeScalars
                while let first = value.first, first == " " || first == "\t" { value = value.dropFirst() }
                while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                if let visitor = visitor(fromValue: Substring(value), now: now) { return visitor }
            }
        }
        return nil
    }

    /// The `Set-Cookie` header value that gives `visitor` their cookie: HttpOnly, SameSite=Lax, Path=/,
    /// Secure when the request came over HTTPS.
    public func setCookie(for visitor: Visitor, secure: Bool) -> String {
        "\(Self.name)=\(value(for: visitor)); Max-Age=\(Int(Self.lifetime)); Path=/; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 §5).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count <= 64, text.allSatisfy(isDigit) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }

    static func isDigit(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }
}
