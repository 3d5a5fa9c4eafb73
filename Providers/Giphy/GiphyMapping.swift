import Foundation
import SeekCore
import SeekKit

/// Turns GIPHY GIF objects (any era: 2016 flat `/random`, 2017–2023 `images`) into items and details.
enum GiphyMapping {
    /// Which GIPHY renditions stand for each image size, first usable one wins:
    /// - small: `fixed_width_small` (100px wide), `fixed_height_small`, `preview_gif`, `fixed_width_downsampled`
    /// - medium: `fixed_width` (200px wide), `fixed_height`, `downsized_medium`, `downsized`, `fixed_width_downsampled`
    /// - large: `downsized_large` (< 8 MB), `downsized_medium`, `downsized`, `original`
    /// - original: `original`, then `downsized_large`
    /// Renditions without a usable http(s) `url` (MP4-only ones, blank `{}`) are skipped; media URLs are kept
    /// unchanged, query string included, as GIPHY's terms require. Width and height arrive as strings.
    static let renditionPreferences: [(ImageSize, [GiphyRendition.Name])] = [
        (.small, [.fixedWidthSmall, .fixedHeightSmall, .previewGIF, .fixedWidthDownsampled]),
        (.medium, [.fixedWidth, .fixedHeight, .downsizedMedium, .downsized, .fixedWidthDownsampled]),
        (.large, [.downsizedLarge, .downsizedMedium, .downsized, .original]),
        (.original, [.original, .downsizedLarge]),
    ]

    /// The renditions with flat fields in the 2016 `/random` shape (`fixed_width_small_url`, `…_width`,
    /// `…_height`), and those names, by position in `GiphyRendition.Name.allCases`.
    static let legacyRenditions: [GiphyRendition.Name] = [
        .fixedWidthSmall, .fixedHeightSmall, .fixedWidthDownsampled, .fixedWidth, .fixedHeight,
    ]
    static let legacyFields: [(url: String, width: String, height: String)?] = GiphyRendition.Name.allCases.map { name in
        legacyRenditions.contains(name) ? (name.rawValue + "_url", name.rawValue + "_width", name.rawValue + "_height") : nil
    }

    /// A list entry as an item; nil when it has no id or no usable image (GIPHY's own rule for a usable GIF).
    static func listItem(_ gif: GiphyGIF) -> Item? {
        guard let item = item(gif, fallbackID: nil), !item.images.isEmpty else { return nil }
        return item
    }

    static func item(_ gif: GiphyGIF, fallbackID: String?) -> Item? {
        guard let id = text(gif.id) ?? fallbackID else { return nil }
        let username = text(gif.username) ?? text(gif.userName)
        var item = Item(
            id: ItemID(provider: GiphyProvider.id, value: id),
            kind: .gif,
            title: title(gif, id: id),
            creators: username.map { [$0] } ?? [],
            year: year(text(gif.importDatetime)),
            identifiers: Identifiers(other: ["giphy": id]),
            images: images(gif))
        item.address = text(gif.url).flatMap(URLText.init(web:))
        return item
    }

    static func detail(_ gif: GiphyGIF, fallbackID: String) -> ItemDetail? {
        guard let item = item(gif, fallbackID: fallbackID) else { return nil }
        var attributes: [String: String] = [:]
        attributes["rating"] = text(gif.rating)
        attributes["source"] = text(gif.sourcePostURL) ?? text(gif.source)
        attributes["imported"] = usefulDate(text(gif.importDatetime))
        attributes["trending"] = usefulDate(text(gif.trendingDatetime))
        attributes["embedURL"] = text(gif.embedURL)
        attributes["shortURL"] = text(gif.bitlyURL)
        attributes["mp4"] = text(gif.rendition(.original)?.mp4) ?? text(gif.imageMP4URL)
        let displayName = text(gif.userDisplayName)
        let contributors = (displayName ?? item.creators.first).map { [Contributor(name: $0, role: "uploader")] } ?? []
        return ItemDetail(
            item: item,
            description: text(gif.altText),
            contributors: contributors,
            publishDate: usefulDate(text(gif.importDatetime)).map { String($0.prefix(10)) },
            attributes: attributes)
    }

    // MARK: - Fields

    /// `title`, else the 2016 `caption`, else the slug (or the page URL's last segment, which is the slug)
    /// made readable (`funny-cat-<id>` → "funny cat"), else the id.
    static func title(_ gif: GiphyGIF, id: String) -> String {
        if let title = text(gif.title) ?? text(gif.caption) { return title }
        let slug = text(gif.slug) ?? text(gif.url).flatMap(URLText.init(web:))?.url.lastPathComponent
        if let slug, slug != id {
            var words = slug
            if words.hasSuffix("-" + id) { words.removeLast(id.count + 1) }
            let readable = words.replacingAll("-", with: " ").trimmed()
            if !readable.isEmpty { return readable }
        }
        return id
    }

    /// The year of a `yyyy-MM-dd HH:mm:ss` stamp; the sentinels `0000-…` and `1970-…` give nil.
    static func year(_ stamp: String?) -> Int? {
        guard let stamp, stamp.count >= 4, let year = Int(stamp.prefix(4)), year > 1970 else { return nil }
        return year
    }

    /// A GIPHY date unless it is one of its sentinels.
    static func usefulDate(_ stamp: String?) -> String? {
        year(stamp) == nil ? nil : stamp
    }

    /// Each size's first usable rendition. A rendition two sizes name is looked at once: only the
    /// renditions a size asks for are checked, and a URL is checked once.
    static func images(_ gif: GiphyGIF) -> [ImageSize: ImageReference] {
        // By position in `GiphyRendition.Name.allCases`: nil until looked at, then the usable rendition or .some(nil).
        var looked = [Rendition??](repeating: nil, count: GiphyRendition.Name.count)
        var images = [ImageSize: ImageReference](minimumCapacity: renditionPreferences.count)
        for (size, preferred) in renditionPreferences {
            for name in preferred {
                let position = name.position
                guard looked.indices.contains(position) else { continue }
                if looked[position] == nil { looked[position] = .some(rendition(name, of: gif)) }
                guard let found = looked[position] ?? nil else { continue }
                images[size] = ImageReference(address: found.address, size: size, width: found.width, height: found.height)
                break
            }
        }
        return images
    }

    typealias Rendition = (address: URLText, width: Int?, height: Int?)

    /// The rendition `name` with a usable URL, from the GIF's `images` or from the flat 2016 fields.
    static func rendition(_ name: GiphyRendition.Name, of gif: GiphyGIF) -> Rendition? {
        if let value = gif.rendition(name), let url = value.url?.stringValue.flatMap(URLText.init(web:)) {
            return (url, dimension(value.width), dimension(value.height))
        }
        if name == .original, let url = (text(gif.imageOriginalURL) ?? text(gif.imageURL)).flatMap(URLText.init(web:)) {
            return (url, dimension(gif.imageWidth), dimension(gif.imageHeight))
        }
        if !gif.flat.isEmpty, legacyFields.indices.contains(name.position), let legacy = legacyFields[name.position],
           let url = text(gif.flat[legacy.url]).flatMap(URLText.init(web:)) {
            return (url, dimension(gif.flat[legacy.width]), dimension(gif.flat[legacy.height]))
        }
        return nil
    }

    // MARK: - Lenient values

    /// A member as trimmed text (numbers and booleans written out); nil when absent or empty.
    static func text(_ value: JSONValue?) -> String? {
        value?.stringValue.flatMap(nonEmpty)
    }

    static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmed()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A pixel size from `"480"` or `480`; `"0"`, `""` and junk give nil.
    static func dimension(_ value: JSONValue?) -> Int? {
        guard let number = value?.intValue, number > 0 else { return nil }
        return number
    }
}
