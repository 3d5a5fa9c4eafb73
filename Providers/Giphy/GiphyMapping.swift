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
    static let renditionPreferences: [(ImageSize, [String])] = [
        (.small, ["fixed_width_small", "fixed_height_small", "preview_gif", "fixed_width_downsampled"]),
        (.medium, ["fixed_width", "fixed_height", "downsized_medium", "downsized", "fixed_width_downsampled"]),
        (.large, ["downsized_large", "downsized_medium", "downsized", "original"]),
        (.original, ["original", "downsized_large"]),
    ]

    /// The flat rendition names of the 2016 `/random` shape (`fixed_width_small_url`, `…_width`, `…_height`).
    static let legacyRenditions = [
        "fixed_width_small", "fixed_height_small", "fixed_width_downsampled", "fixed_height_downsampled",
        "fixed_width", "fixed_height",
    ]

    /// A list entry as an item; nil when it has no id or no usable image (GIPHY's own rule for a usable GIF).
    static func listItem(_ object: [String: JSONValue]) -> Item? {
        guard let item = item(object, fallbackID: nil), !item.images.isEmpty else { return nil }
        return item
    }

    static func item(_ object: [String: JSONValue], fallbackID: String?) -> Item? {
        guard let id = text(object, "id") ?? fallbackID else { return nil }
        let username = text(object, "username") ?? object["user"]?["username"]?.stringValue.flatMap(nonEmpty)
        var item = Item(
            id: ItemID(provider: GiphyProvider.id, value: id),
            kind: .gif,
            title: title(object, id: id),
            creators: username.map { [$0] } ?? [],
            year: year(text(object, "import_datetime")),
            identifiers: Identifiers(other: ["giphy": id]),
            images: images(object))
        item.address = text(object, "url").flatMap(URLText.init(web:))
        return item
    }

    static func detail(_ object: [String: JSONValue], fallbackID: String) -> ItemDetail? {
        guard let item = item(object, fallbackID: fallbackID) else { return nil }
        var attributes: [String: String] = [:]
        attributes["rating"] = text(object, "rating")
        attributes["source"] = text(object, "source_post_url") ?? text(object, "source")
        attributes["imported"] = usefulDate(text(object, "import_datetime"))
        attributes["trending"] = usefulDate(text(object, "trending_datetime"))
        attributes["embedURL"] = text(object, "embed_url")
        attributes["shortURL"] = text(object, "bitly_url")
        attributes["mp4"] = object["images"]?["original"]?["mp4"]?.stringValue.flatMap(nonEmpty)
            ?? text(object, "image_mp4_url")
        let displayName = object["user"]?["display_name"]?.stringValue.flatMap(nonEmpty)
        let contributors = (displayName ?? item.creators.first).map { [Contributor(name: $0, role: "uploader")] } ?? []
        return ItemDetail(
            item: item,
            description: text(object, "alt_text"),
            contributors: contributors,
            publishDate: usefulDate(text(object, "import_datetime")).map { String($0.prefix(10)) },
            attributes: attributes)
    }

    // MARK: - Fields

    /// `title`, else the 2016 `caption`, else the slug (or the page URL's last segment, which is the slug)
    /// made readable (`funny-cat-<id>` → "funny cat"), else the id.
    static func title(_ object: [String: JSONValue], id: String) -> String {
        if let title = text(object, "title") ?? text(object, "caption") { return title }
        let slug = text(object, "slug") ?? text(object, "url").flatMap(URLText.init(web:))?.url.lastPathComponent
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

    /// A rendition the preferences name, with the flat 2016 fields it may stand in (`legacyRenditions`).
    struct RenditionName {
        var name: String
        var legacy: (url: String, width: String, height: String)?
    }

    /// Every rendition the preferences name, once each, and the preferences as positions in it: a GIF's
    /// renditions are looked up by position, each at most once, with no name compared or built
    /// (comparing and joining names was a fifth of mapping a GIF; issue 30).
    static let renditionNames: [RenditionName] = {
        var names: [String] = []
        for (_, preferred) in renditionPreferences {
            for name in preferred where !names.contains(name) { names.append(name) }
        }
        return names.map { name in
            RenditionName(name: name, legacy: legacyRenditions.contains(name) ? (name + "_url", name + "_width", name + "_height") : nil)
        }
    }()

    static let preferencePositions: [(ImageSize, [Int])] = renditionPreferences.map { size, preferred in
        (size, preferred.compactMap { name in renditionNames.firstIndex { $0.name == name } })
    }

    static func images(_ object: [String: JSONValue]) -> [ImageSize: ImageReference] {
        // Only the renditions a size asks for are parsed: a GIF lists ~25, a size uses one, and a
        // URL costs a few microseconds to parse.
        let renditions = object["images"]?.objectValue
        // By position in `renditionNames`: nil until looked at, then the usable rendition or .some(nil).
        var looked = [Rendition??](repeating: nil, count: renditionNames.count)
        var images: [ImageSize: ImageReference] = [:]
        images.reserveCapacity(preferencePositions.count)
        for (size, positions) in preferencePositions {
            for position in positions where looked.indices.contains(position) {
                if looked[position] == nil {
                    looked[position] = .some(rendition(renditionNames[position], in: object, renditions: renditions))
                }
                guard let found = looked[position] ?? nil else { continue }
                images[size] = ImageReference(address: found.address, size: size, width: found.width, height: found.height)
                break
            }
        }
        return images
    }

    typealias Rendition = (address: URLText, width: Int?, height: Int?)

    /// The rendition `name` with a usable URL, from `renditions` (the GIF's `images`) or from the
    /// flat 2016 fields.
    static func rendition(_ name: RenditionName, in object: [String: JSONValue], renditions: [String: JSONValue]?) -> Rendition? {
        if let value = renditions?[name.name], let url = value["url"]?.stringValue.flatMap(URLText.init(web:)) {
            return (url, dimension(value["width"]), dimension(value["height"]))
        }
        if name.name == "original", let url = (text(object, "image_original_url") ?? text(object, "image_url")).flatMap(URLText.init(web:)) {
            return (url, dimension(object["image_width"]), dimension(object["image_height"]))
        }
        if let legacy = name.legacy, let url = text(object, legacy.url).flatMap(URLText.init(web:)) {
            return (url, dimension(object[legacy.width]), dimension(object[legacy.height]))
        }
        return nil
    }

    // MARK: - Lenient values

    static func text(_ object: [String: JSONValue], _ key: String) -> String? {
        object[key]?.stringValue.flatMap(nonEmpty)
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
