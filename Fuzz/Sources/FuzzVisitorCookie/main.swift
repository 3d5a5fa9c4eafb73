import Foundation
import FuzzSupport
import SeekAccess
import SeekCore
import SeekKit

/// The `Cookie` header of a public instance's request, on any text: never a crash, and never a visitor
/// unless the text holds a cookie this secret signed. Each input is read twice: as the whole header,
/// and with a cookie the server really issued appended (which must then be found, whatever precedes it).
/// The cookies are made per input: a global's Data would stay behind as a "leak" LeakSanitizer reports.

let secret = "fuzzing-secret-fuzzing-secret-fuzzing"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let cookies = try? VisitorCookies(secret: secret) else { return 0 }
    let issued = cookies.newVisitor(now: Date(timeIntervalSince1970: 1_764_028_800))
    let text = FuzzInput(data, size).text
    let now = Date(timeIntervalSince1970: 1_764_028_900)
    if let visitor = cookies.visitor(fromCookieHeaders: [text], now: now) {
        // Only a value this secret signed names a visitor: it must round-trip.
        require(text.contains(cookies.value(for: visitor)), "'\(text.prefix(200))' named a visitor it does not carry")
    }
    let genuine = cookies.value(for: issued)
    let pairs = text.fields(separatedBy: ";").count
    if pairs < 60, !text.containsBytes(of: VisitorCookies.name) {
        let found = cookies.visitor(fromCookieHeaders: [text + "; \(VisitorCookies.name)=\(genuine)"], now: now)
        require(found == issued, "a genuine cookie after '\(text.prefix(200))' was not found")
    }
    return 0
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzVisitorCookie_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
