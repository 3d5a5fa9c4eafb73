import Foundation
import FuzzSupport
import OpenLibraryProvider
import SeekKit
import SeekCore

/// Open Library's search and detail on any body. The first input byte chooses the call (bits 0…1:
/// search, work detail, edition detail, search again), the status (bits 2…4, `fuzzStatuses`) and the
/// request (bits 5…7, `fuzzRequest`); the rest is the body of every response, author lookups and
/// redirects included.
let settings = Settings(environment: [
    "SEEK_OPENLIBRARY_URL": "https://openlibrary.invalid",
    "SEEK_OPENLIBRARY_COVERS_URL": "https://covers.openlibrary.invalid",
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzProvider(data, size, settings: settings, factory: OpenLibraryProvider.factory) { provider, selector in
        switch selector & 0x03 {
        case 1, 2:
            let value = selector & 0x03 == 1 ? "OL45804W" : "OL22951843M"
            let id = ItemID(provider: OpenLibraryProvider.id, value: value)
            let detail = try await provider.detail(id, options: CallOptions(timeout: .seconds(5)))
            require(detail.item.id.provider == OpenLibraryProvider.id, "a detail of another provider: \(detail.item.id)")
            // The engine's check that the answer is the record asked for: a typed error or nothing.
            _ = try? detail.verify(answers: id, from: provider)
        default:
            let request = fuzzRequest(selector: selector)
            let page = try await provider.search(request, options: CallOptions())
            checkPage(page, from: provider, limit: min(request.limit, OpenLibraryProvider.maxLimit))
        }
    }
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzOpenLibrary_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
