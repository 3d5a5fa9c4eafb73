import Foundation
import FuzzSupport
import SeekAccess
import SeekCore

/// `X-Forwarded-For` and `SEEK_TRUSTED_PROXIES` on any text: never a crash; without trusted proxies the
/// client is always the connecting address; behind one, the client is never a trusted proxy unless every
/// entry is one, and is at most 64 characters of printable ASCII; whatever a client sent, the address
/// its proxy appended after it is the client.
let loopback = IPAddress("127.0.0.1")
let nginx = try? TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8, ::1")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let nginx, let loopback else { return 0 }
    let text = FuzzInput(data, size).text
    require(TrustedProxies.none.client(connectingFrom: loopback, forwardedFor: [text]) == "127.0.0.1", "untrusted XFF was believed")
    let client = nginx.client(connectingFrom: loopback, forwardedFor: [text])
    require(client.utf8.count <= 64 || IPAddress(client) != nil, "client '\(client)' is too long")
    require(client.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }, "client '\(client)' is not printable ASCII")
    let appended = nginx.client(connectingFrom: loopback, forwardedFor: [text + ", 203.0.113.7"])
    require(appended == "203.0.113.7", "the proxy's appended address after '\(text.prefix(200))' was read as '\(appended)'")
    _ = IPAddress(text)
    _ = try? TrustedProxies(parsing: text)
    return 0
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzForwardedFor_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    // Made before the first input, so the leak check of that input does not count these globals.
    _ = (loopback, nginx)
    return runLibFuzzer(argc, argv, fuzz)
}
