import Foundation
import FuzzSupport
import SeekCore
import SeekKit

/// `Retry-After` as a response carries it (delta-seconds, or an HTTP date through `HTTPDate.parse`), on
/// any text: nil or a wait from 0 to `HTTPResponse.maxRetryAfterSeconds`, never -0, never a crash.
///
/// One `retryAfter` call per input: `HTTPDate.parse` makes a `DateFormatter` per format per call, which
/// under ASan costs about a millisecond, so every further call would slow the target as much again.
let now = Date(timeIntervalSince1970: 1_764_028_800)  // 2025-11-25 00:00:00 GMT

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = FuzzInput(data, size).text
    let response = HTTPResponse(status: 429, headers: ["Retry-After": text])
    guard let wait = response.retryAfter(now: now) else { return 0 }
    require(wait.isFinite && wait >= 0 && wait <= HTTPResponse.maxRetryAfterSeconds, "Retry-After '\(text)' gave \(wait)")
    require(wait.sign == .plus, "Retry-After '\(text)' gave -0")
    return 0
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzRetryAfter_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
