#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SeekCore
import SeekSupport

/// An IPv4 or IPv6 address, as its 4 or 16 bytes (an IPv4-mapped IPv6 address is its IPv4 address).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Parses `1.2.3.4`, `::1`, `[::1]`, and either with a port (`1.2.3.4:80`, `[::1]:80`); nil for
    /// anything else (a name, `unknown`, garbage).
    public init?(_ text: some StringProtocol) {
        var host = Substring(text).trimmingCharacters(in: .whitespaces)[...]
        guard !host.isEmpty, host.utf8.count <= 64 else { return nil }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }) else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            // IPv4 with a port.
            guard host[host.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            host = host[..<colon]
        }
        guard let parsed = Self.parse(String(host)) else { return nil }
        bytes = parsed
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private static func parse(_ text: String) -> [UInt8]? {
        if let v4 = InternetAddress.ipv4Bytes(text) { return v4 }
        guard let bytes = InternetAddress.ipv6Bytes(text) else { return nil }
        // ::ffff:a.b.c.d is a.b.c.d.
        if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
        return bytes
    }

    public var description: String {
        InternetAddress.text(of: bytes) ?? bytes.map { String($0) }.joined(separator: ".")
    }

    /// Whether the first `bits` bits equal `other`'s (both of one family).
    func shares(_ bits: Int, with other: IPAddress) -> Bool {
        guard bytes.count == other.bytes.count, bits >= 0, bits <= bytes.count * 8 else { return false }
        let whole = bits / 8
        guard bytes.prefix(whole) == other.bytes.prefix(whole) else { return false }
        let rest = bits % 8
        guard rest > 0 else { return true }
        let mask = UInt8(0xFF) << UInt8(8 - rest)
        return bytes[whole] & mask == other.bytes[whole] & mask
    }

    /// Whether this is a loopback address (127.0.0.0/8, ::1).
    public var isLoopback: Bool {
        bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }
}

/// `SEEK_TRUSTED_PROXIES`: the addresses and CIDR ranges of the reverse proxies whose
/// `X-Forwarded-For`, `X-Forwarded-Host` and `X-Forwarded-Proto` are believed.
public struct TrustedProxies: Sendable, Hashable {
    private struct Range: Sendable, Hashable {
        let network: IPAddress
        let bits: Int
    }

    private let ranges: [Range]

    /// No proxy is trusted.
    public static let none = TrustedProxies(ranges: [])

    private init(ranges: [Range]) { self.ranges = ranges }

    /// Parses `127.0.0.1, 10.0.0.0/8, ::1, fd00::/8`; a mistake is a configuration error naming it.
    public init(parsing text: String) throws {
        var ranges: [Range] = []
        for part in text.fields(separatedBy: ",") {
            let entry = part.trimmingCharacters(in: .whitespaces)
            guard !entry.isEmpty else { continue }
            let pieces = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(pieces[0]), !pieces[0].contains("[") else {
                throw SeekError(.configuration, detail: "SEEK_TRUSTED_PROXIES: '\(entry.prefix(64))' is not an address or CIDR range")
            }
            let width = address.bytes.count * 8
            var bits = width
            if pieces.count == 2 {
                guard pieces[1].utf8.count <= 3, let value = Int(pieces[1]), (0...width).contains(value) else {
                    throw SeekError(.configuration, detail: "SEEK_TRUSTED_PROXIES: '\(entry.prefix(64))' has a prefix length out of 0-\(width)")
                }
                bits = value
            }
            ranges.append(Range(network: address, bits: bits))
        }
        self.init(ranges: ranges)
    }

    /// Whether `address` is one of the trusted proxies.
    public func contains(_ address: IPAddress) -> Bool {
        ranges.contains { address.shares($0.bits, with: $0.network) }
    }

    /// Whether any proxy is trusted at all.
    public var isEmpty: Bool { ranges.isEmpty }

    /// The client a request comes from: the connecting address; or — only when that is a trusted
    /// proxy — the right-most `X-Forwarded-For` entry that is not itself a trusted proxy (the
    /// left-most when all are). `forwardedFor` holds every X-Forwarded-For header's value, in order.
    /// An entry that is not an address stands for itself (lowercased, at most 64 characters).
    public func client(connectingFrom address: IPAddress?, forwardedFor: [String]) -> String {
        guard let address else { return "unknown" }
        guard contains(address) else { return address.description }
        let entries = Self.entries(forwardedFor)
        guard !entries.isEmpty else { return address.description }
        for entry in entries.reversed() {
            if let parsed = IPAddress(entry) {
                if contains(parsed) { continue }
                return parsed.description
            }
            return Self.opaque(entry)
        }
        return entries.first.map { IPAddress($0)?.description ?? Self.opaque($0) } ?? address.description
    }

    /// Whether a trusted proxy says the request came over HTTPS (`X-Forwarded-Proto: https`, its last value).
    public func saysHTTPS(connectingFrom address: IPAddress?, forwardedProto: [String]) -> Bool {
        guard let address, contains(address) else { return false }
        return Self.entries(forwardedProto).last?.lowercased() == "https"
    }

    /// A trusted proxy's `X-Forwarded-Host` (its last value), if any.
    public func forwardedHost(connectingFrom address: IPAddress?, forwardedHost: [String]) -> String? {
        guard let address, contains(address) else { return nil }
        return Self.entries(forwardedHost).last.map(String.init)
    }

    /// Comma-separated entries of several header values, trimmed, empty ones dropped; at most 256.
    static func entries(_ values: [String]) -> [Substring] {
        var entries: [Substring] = []
        for value in values {
            // Split on scalars: a character that joins the next (U+0600) must not hide the `,` after it,
            // or a client's own entry would swallow the address its proxy appended.
            for entry in value.fields(separatedBy: ",") {
                let trimmed = entry.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty { entries.append(Substring(trimmed)) }
            }
        }
        return Array(entries.suffix(256))
    }

    private static func opaque(_ entry: Substring) -> String {
        String(entry.lowercased().unicodeScalars.filter { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }.prefix(64).map(Character.init))
    }
}

/// Whether a request that changes state comes from the instance's own pages (or from no browser at
/// all), by the headers browsers send: `Sec-Fetch-Site`, else `Origin`.
public enum SameOrigin {
    /// `Sec-Fetch-Site` present: allowed when it is `same-origin` or `none`. Else `Origin` present
    /// (`null` included): allowed when it is `ownOrigin`. Neither (curl, scripts): allowed.
    public static func allows(secFetchSite: String?, origin: String?, ownOrigin: String) -> Bool {
        if let site = secFetchSite {
            let value = site.trimmingCharacters(in: .whitespaces).lowercased()
            return value == "same-origin" || value == "none"
        }
        guard let origin else { return true }
        guard let theirs = normalized(origin), let ours = normalized(ownOrigin) else { return false }
        return theirs == ours
    }

    /// Whether two origins are the same once normalised (case, default ports).
    public static func same(_ first: String, _ second: String) -> Bool {
        guard let first = normalized(first) else { return false }
        return first == normalized(second)
    }

    /// `scheme://host` of a request: its Host header (or a trusted proxy's X-Forwarded-Host) and scheme.
    public static func origin(scheme: String, host: String) -> String {
        "\(scheme)://\(host)"
    }

    /// `scheme://host[:port]`, lowercased, the scheme's default port dropped; nil for anything else.
    static func normalized(_ text: String) -> String? {
        guard text.utf8.count <= 512, let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host?.lowercased(), !host.isEmpty,
              components.path.isEmpty || components.path == "/", components.query == nil, components.user == nil
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components.port.flatMap { $0 == defaultPort ? nil : $0 }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)" + (port.map { ":\($0)" } ?? "")
    }
}
