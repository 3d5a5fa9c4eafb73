import CrossrefProvider
import Foundation
import FuzzSupport
import SeekCore
import SeekKit

/// Crossref's search and detail (a plain DOI and one with characters that must be encoded) on any body
/// and status: JSON `work-list` and `work` messages, JSON failures whose `message` is an array, plain text.
/// The first input byte chooses the call (bits 0…1), the status (bits 2…4, `fuzzStatuses`) and the
/// request (bits 5…7, `fuzzRequest`); the rest is the body.
let settings = Settings(environment: [
    "SEEK_CROSSREF_URL": "http://crossref.invalid",
    "SEEK_CROSSREF_MAILTO": "fuzz@example.invalid",
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzProvider(data, size, settings: settings, factory: CrossrefProvider.factory) { provider, selector in
        switch selector & 0x03 {
        case 0, 2:
            let request = fuzzRequest(selector: selector, query: selector & 0x03 == 0 ? "widget" : "ecology")
            let page = try await provider.search(request, options: CallOptions())
            checkPage(page, from: provider, limit: min(request.limit, CrossrefProvider.maxLimit))
            for item in page.items {
                require(item.id.value == item.id.value.lowercased(), "a DOI id not in lower case: \(item.id)")
                require(item.identifiers.other["doi"] == item.id.value, "the DOI identifier differs from the id")
            }
        default:
            let value = selector & 0x03 == 1 ? "10.1371/journal.pone.0033693" : "10.1000/a?b#c%20d"
            let id = ItemID(provider: CrossrefProvider.id, value: value)
            let detail = try await provider.detail(id)
            require(detail.item.id.provider == CrossrefProvider.id, "a detail of another provider: \(detail.item.id)")
            _ = try? detail.verify(answers: id, from: provider)
        }
    }
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzCrossref_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
