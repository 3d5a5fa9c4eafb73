import Foundation
import FuzzSupport
import SeekKit
import SeekCore

/// ISBN extraction, cleaning and normalisation on any text: every ISBN found is a valid ISBN-13 that
/// the text's own reading confirms, found once, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = FuzzInput(data, size).text
    let found = ISBN.extract(from: text)
    require(Set(found).count == found.count, "extract returned a repeat: \(found)")
    for isbn in found {
        require(ISBN.isValid13(isbn), "extract returned '\(isbn)', not a valid ISBN-13, from '\(text.prefix(200))'")
        require(ISBN.normalized(isbn) == isbn, "a found ISBN-13 '\(isbn)' does not normalise to itself")
    }
    let cleaned = ISBN.clean(text)
    _ = ISBN.isValid10(cleaned)
    if let normalized = ISBN.normalized(text) {
        require(ISBN.isValid13(normalized), "normalized returned '\(normalized)', not a valid ISBN-13")
    }
    if let converted = ISBN.isbn13(from: cleaned) {
        require(ISBN.isValid13(converted), "isbn13(from:) returned '\(converted)', not a valid ISBN-13")
    }
    return 0
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzISBN_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
