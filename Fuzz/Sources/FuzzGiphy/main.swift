import Foundation
import FuzzSupport
import GiphyProvider
import SeekKit
import SeekCore

/// GIPHY's search, detail, trending and suggest on any body. The first input byte chooses the call
/// (bits 0…1), the status (bits 2…4, `fuzzStatuses`) and the request (bits 5…7, `fuzzRequest`); the
/// rest is the body.
let settings = Settings(environment: [
    "SEEK_GIPHY_URL": "https://giphy.invalid",
    "SEEK_GIPHY_API_KEY": "fuzz-key-0123456789",
    "SEEK_GIPHY_RATING": "pg",
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzProvider(data, size, settings: settings, factory: GiphyProvider.factory) { provider, selector in
        switch selector & 0x03 {
        case 0:
            let request = fuzzRequest(selector: selector)
            let page = try await provider.search(request, options: CallOptions())
            checkPage(page, from: provider, limit: min(request.limit, GiphyProvider.maxLimit))
        case 1:
            let detail = try await provider.detail(ItemID(provider: GiphyProvider.id, value: "3o7TKSjRrfIPjeiVyM"))
            require(detail.item.id.provider == GiphyProvider.id, "a detail of another provider: \(detail.item.id)")
        case 2:
            let limit = Int(selector >> 5) * 10 + 1
            let page = try await provider.trending(limit: limit, options: CallOptions(rating: "g"))
            checkPage(page, from: provider, limit: min(limit, GiphyProvider.maxLimit))
        default:
            let names = try await provider.suggest("harb", limit: 5)
            require(names.allSatisfy { !$0.isEmpty }, "an empty suggestion")
        }
    }
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzGiphy_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
