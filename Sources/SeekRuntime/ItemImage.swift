import Foundation
import SeekCore
import SeekImageCache

/// An item's image, and when Seek drew it in place of the source's own, why the source's was not used.
public struct ItemImage: Sendable {
    public var image: CachedImage
    /// The failure that kept the source's image (or the item's record) from being used: a 404, a
    /// page that is not an image, a source that did not answer. Nil when the source's image was used
    /// or the item has none (the drawn cover is then simply its cover).
    public var unused: SeekError?

    public init(image: CachedImage, unused: SeekError? = nil) {
        self.image = image
        self.unused = unused
    }
}

extension SeekSession {
    /// `image(of:size:options:)` saying why a drawn cover stands in for the source's image, so that a
    /// host can name the source and the cause (`seek image` does on stderr).
    public func itemImage(of id: ItemID, size: ImageSize, options: CallOptions = CallOptions()) async throws -> ItemImage {
        let owner = try registry.require(id.provider)
        let detail: ItemDetail
        do {
            detail = try await engine.detail(id, options: options)
        } catch let error as SeekError where error.kind != .cancelled {
            guard let seen = recentItems.entry(id) else { throw error }
            let drawn = GeneratedCover.image(title: seen.title, subtitle: seen.subtitle, creators: seen.creators, kind: seen.kind, size: size)
            return ItemImage(image: drawn, unused: error.attributed(to: id.provider))
        }
        let item = detail.item
        let drawn = {
            GeneratedCover.image(title: item.title, subtitle: item.subtitle,
                                 creators: item.creators.isEmpty ? detail.contributors.map(\.name) : item.creators, kind: item.kind, size: size)
        }
        guard let url = owner.imageURL(for: item, size: size) else { return ItemImage(image: drawn()) }
        do {
            return ItemImage(image: try await imageStore.image(at: url, provider: id.provider))
        } catch let error as SeekError where error.kind != .cancelled {
            return ItemImage(image: drawn(), unused: error.attributed(to: id.provider))
        }
    }
}
