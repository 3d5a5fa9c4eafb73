import Foundation
import FuzzSupport
import SeekCore

/// `SearchCursor(token:)` on any text: a cursor or `.invalidInput`, never a crash, and bounded work.
/// A cursor it accepts makes a token that decodes to the same cursor, and validating it against
/// providers of every paging style answers (a typed error or nothing).
///
/// The first input byte chooses how the rest becomes a token: bit 0 clear, the rest is the token text
/// as a user pastes it; bit 0 set, the rest is the token's binary record, base64url-encoded here so
/// that mutations reach the record's reader (versions, varints, lengths, UTF-8, fingerprints).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let token: String
    if input.selector & 1 == 0 {
        token = String(decoding: input.rest, as: UTF8.self)
    } else {
        token = input.rest.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    guard let cursor = try? SearchCursor(token: token) else { return 0 }
    require((1...SearchRequest.maxPage).contains(cursor.page), "a decoded cursor has page \(cursor.page)")
    let again = try? SearchCursor(token: cursor.token)
    require(again == cursor, "a cursor's own token does not decode to it: \(cursor.token.prefix(200))")
    for limit in [1, 20, 100] {
        _ = try? cursor.validate(for: pagingProviders, limit: limit)
    }
    for (provider, position) in cursor.positions.prefix(8) {
        _ = SearchCursor.fingerprint(provider + position)
    }
    return 0
}

/// Providers of each paging style, as `validate(for:limit:)` reads them: only their descriptors count.
struct PagingProvider: SearchProvider {
    let descriptor: ProviderDescriptor

    init(_ id: String, _ paging: PagingStyle) {
        descriptor = ProviderDescriptor(id: id, name: id, kinds: [.book], capabilities: [.search], paging: paging)
    }

    var endpoint: String { "https://\(descriptor.id).invalid" }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        throw SeekError(.unsupported(capability: "search"), provider: descriptor.id)
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        throw SeekError(.unsupported(capability: "detail"), provider: descriptor.id)
    }
}

let pagingProviders: [any SearchProvider] = [
    PagingProvider("openlibrary", .offset), PagingProvider("giphy", .offset), PagingProvider("aladin", .page),
    PagingProvider("cursorly", .cursor), PagingProvider("a", .page),
]

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzCursor_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
