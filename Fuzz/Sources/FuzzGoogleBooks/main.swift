import Foundation
import FuzzSupport
import GoogleBooksProvider
import SeekCore
import SeekKit

/// Google Books' search (plain and `isbn:`) and detail on any body and status, its error reasons
/// included. The first input byte chooses the call (bits 0…1), the status (bits 2…4, `fuzzStatuses`) and
/// the request (bits 5…7, `fuzzRequest`); the rest is the body.
let settings = Settings(environment: [
    "SEEK_GOOGLEBOOKS_URL": "http://googlebooks.invalid",
    "SEEK_GOOGLEBOOKS_API_KEY": "AIzafuzzkey0123456789",
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzProvider(data, size, settings: settings, factory: GoogleBooksProvider.factory) { provider, selector in
        switch selector & 0x03 {
        case 0, 2:
            let query = selector & 0x03 == 0 ? "harry potter" : "isbn:9784815602666"
            let request = fuzzRequest(selector: selector, query: query)
            let page = try await provider.search(request, options: CallOptions())
            checkPage(page, from: provider, limit: min(request.limit, GoogleBooksProvider.maxLimit))
            for item in page.items {
                for image in item.images.values { require(image.url.scheme == "https", "an http cover: \(image.url)") }
                require(!item.identifiers.isbn13.contains("9780000000002"), "a placeholder ISBN kept")
            }
        default:
            let value = selector & 0x03 == 1 ? "XkEvAAAAMAAJ" : "pnJZAAAAcAAJ"
            let id = ItemID(provider: GoogleBooksProvider.id, value: value)
            let detail = try await provider.detail(id)
            require(detail.item.id.provider == GoogleBooksProvider.id, "a detail of another provider: \(detail.item.id)")
            _ = try? detail.verify(answers: id, from: provider)
        }
    }
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzGoogleBooks_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
