import Foundation
import AladinProvider
import FuzzSupport
import SeekKit
import SeekCore

/// Aladin's search, detail (by ISBN-13 and by itemId) and bestsellers on any body, through its
/// JavaScript-literal normalisation. The first input byte chooses the call (bits 0…1), the status
/// (bits 2…4, `fuzzStatuses`) and the request (bits 5…7, `fuzzRequest`); the rest is the body.
let settings = Settings(environment: [
    "SEEK_ALADIN_URL": "http://aladin.invalid/ttb/api",
    "SEEK_ALADIN_TTB_KEY": "ttbfuzzkey0123456789",
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzProvider(data, size, settings: settings, factory: AladinProvider.factory) { provider, selector in
        switch selector & 0x03 {
        case 0:
            let request = fuzzRequest(selector: selector, query: "위대한 이야기")
            let page = try await provider.search(request, options: CallOptions())
            checkPage(page, from: provider, limit: min(request.limit, AladinProvider.maxLimit))
        case 1, 3:
            let value = selector & 0x03 == 1 ? "9791130605210" : "345678901"
            let id = ItemID(provider: AladinProvider.id, value: value)
            let detail = try await provider.detail(id)
            require(detail.item.id.provider == AladinProvider.id, "a detail of another provider: \(detail.item.id)")
            _ = try? detail.verify(answers: id, from: provider)
        default:
            let limit = Int(selector >> 5) * 10 + 1
            let page = try await provider.trending(limit: limit)
            checkPage(page, from: provider, limit: min(limit, AladinProvider.maxLimit))
        }
    }
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzAladin_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
