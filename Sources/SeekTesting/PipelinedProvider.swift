import Foundation
import SeekCore
import SeekKit

/// A provider whose every call goes through `pipeline`, so a test sees middleware (cache,
/// resilience) from the caller's side, as the engine calls it. Test support only: in Seek itself
/// middleware wraps calls (`ProviderPipeline`), never providers.
public struct PipelinedProvider: SearchProvider {
    public let base: any SearchProvider
    public let pipeline: ProviderPipeline

    public init(_ base: any SearchProvider, through middlewares: [any ProviderMiddleware]) {
        self.base = base
        self.pipeline = ProviderPipeline(middlewares)
    }

    public var descriptor: ProviderDescriptor { base.descriptor }
    public var isConfigured: Bool { base.isConfigured }
    public var requirements: [ProviderRequirement] { base.requirements }
    public var endpoint: String { base.endpoint }
    public func answerScope(_ options: CallOptions) -> String { base.answerScope(options) }
    public func imageURL(for item: Item, size: ImageSize) -> URL? { base.imageURL(for: item, size: size) }

    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        try await pipeline.search(request, on: base, options: options)
    }

    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        try await pipeline.detail(id, on: base, options: options)
    }

    public func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        try await pipeline.trending(limit: limit, on: base, options: options)
    }

    public func suggest(_ prefix: String, limit: Int, options: CallOptions) async throws -> [String] {
        try await pipeline.suggest(prefix, limit: limit, on: base, options: options)
    }
}
