import Foundation
import SeekCore

/// Marks another source's detail record as owned when the library holds the book — one of its ISBNs,
/// or its title and an author (issue 49): `seek detail openlibrary:OL27448W`, the API's and MCP's detail, the web UI's detail
/// page and a favourite's snapshot then say the reader owns it, as a search's merged row does.
///
/// The composition root puts it outermost, before the response cache: a cached record is marked
/// afresh on every call, so a book added to or removed from the library shows at once. A library
/// that cannot be read leaves the record as it is.
public struct LibraryOwnershipMiddleware: ProviderMiddleware {
    public let library: CalibreProvider

    public init(library: CalibreProvider) {
        self.library = library
    }

    public func handle(
        _ request: ProviderRequest, context: ProviderCallContext,
        next: @escaping @Sendable (ProviderRequest, ProviderCallContext) async throws -> ProviderResponse
    ) async throws -> ProviderResponse {
        let response = try await next(request, context)
        guard case .detail(var detail) = response, detail.item.owned == nil, context.providerID != CalibreProvider.id,
              detail.item.kind == .book, library.isConfigured
        else { return response }
        let creators = detail.item.creators + detail.contributors.map(\.name)
        guard let copy = try? await library.ownedCopy(of: detail.item, creators: creators) else { return response }
        detail.item.owned = copy
        return .detail(detail)
    }
}
