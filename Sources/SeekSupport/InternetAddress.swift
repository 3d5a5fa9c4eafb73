#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// IP addresses between their text and their bytes, with the C library's `inet_pton` and `inet_ntop`.
///
/// SAFETY: `in_addr` and `in6_addr` are plain 4- and 16-byte values; their bytes are copied out of a
/// local variable with `withUnsafeBytes(of:)` inside the call. `inet_ntop` is given 4 or 16 bytes
/// (checked) and a 64-byte buffer with its size, more than INET6_ADDRSTRLEN (46).
package enum InternetAddress {
    /// The 4 bytes of an IPv4 address in dotted form (`1.2.3.4`); nil for any other text.
    package static func ipv4Bytes(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// The 16 bytes of an IPv6 address (`::1`, `::ffff:1.2.3.4`); nil for any other text.
    package static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// The text of a 4-byte (IPv4) or 16-byte (IPv6) address, as `inet_ntop` writes it; nil for
    /// another count.
    package static func text(of bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: 64)
        let written: Bool = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return false }
            return inet_ntop(family, base, &buffer, socklen_t(buffer.count)) != nil
        }
        guard written else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
