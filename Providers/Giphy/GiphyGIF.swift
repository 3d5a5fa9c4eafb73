import SeekCore
import SeekKit

/// A GIF object of any era (2016 flat `/random`, 2017–2023 `images`), as the members the mapping
/// reads, each the JSON value GIPHY gave (nil when absent), read value by value: the ~25 renditions
/// and ~30 other members a real GIF has are skipped unless the mapping uses them. A member given
/// twice counts as its last, as in a parsed object.
struct GiphyGIF: GiphyEntry {
    var id: JSONValue?
    var username: JSONValue?
    /// `user.username` and `user.display_name`.
    var userName: JSONValue?
    var userDisplayName: JSONValue?
    var title: JSONValue?
    var caption: JSONValue?
    var slug: JSONValue?
    var url: JSONValue?
    var rating: JSONValue?
    var source: JSONValue?
    var sourcePostURL: JSONValue?
    var importDatetime: JSONValue?
    var trendingDatetime: JSONValue?
    var embedURL: JSONValue?
    var bitlyURL: JSONValue?
    var altText: JSONValue?
    /// The 2016 flat fields of the original: `image_original_url`, `image_url`, `image_width`, …
    var imageOriginalURL: JSONValue?
    var imageURL: JSONValue?
    var imageWidth: JSONValue?
    var imageHeight: JSONValue?
    var imageMP4URL: JSONValue?
    /// The renditions the mapping may use, by position in `GiphyRendition.Name.allCases`; nil when
    /// `images` is absent or no object. A rendition that is no object has no members.
    var renditions: [GiphyRendition?]?
    /// The 2016 flat fields of the other renditions (`fixed_width_url`, `…_width`, `…_height`), by name.
    var flat: [String: JSONValue] = [:]
    private(set) var isEmpty = true

    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        let isObject = try reader.readObject(GiphyFields.gif) { reader, field throws(JSONParseError) in
            isEmpty = false
            guard let field else { return }
            switch field {
            case .id: id = try reader.readValue()
            case .username: username = try reader.readValue()
            case .user: try readUser(&reader)
            case .title: title = try reader.readValue()
            case .caption: caption = try reader.readValue()
            case .slug: slug = try reader.readValue()
            case .url: url = try reader.readValue()
            case .rating: rating = try reader.readValue()
            case .source: source = try reader.readValue()
            case .sourcePostURL: sourcePostURL = try reader.readValue()
            case .importDatetime: importDatetime = try reader.readValue()
            case .trendingDatetime: trendingDatetime = try reader.readValue()
            case .embedURL: embedURL = try reader.readValue()
            case .bitlyURL: bitlyURL = try reader.readValue()
            case .altText: altText = try reader.readValue()
            case .imageOriginalURL: imageOriginalURL = try reader.readValue()
            case .imageURL: imageURL = try reader.readValue()
            case .imageWidth: imageWidth = try reader.readValue()
            case .imageHeight: imageHeight = try reader.readValue()
            case .imageMP4URL: imageMP4URL = try reader.readValue()
            case .images: try readRenditions(&reader)
            default: flat[field.rawValue] = try reader.readValue()
            }
        }
        guard isObject else { return nil }
    }

    private mutating func readUser(_ reader: inout JSONReader) throws(JSONParseError) {
        var name: JSONValue?, displayName: JSONValue?
        try reader.readObject(GiphyFields.user) { reader, field throws(JSONParseError) in
            switch field {
            case .username: name = try reader.readValue()
            case .displayName: displayName = try reader.readValue()
            case nil: break
            }
        }
        userName = name
        userDisplayName = displayName
    }

    private mutating func readRenditions(_ reader: inout JSONReader) throws(JSONParseError) {
        var read = [GiphyRendition?](repeating: nil, count: GiphyRendition.Name.count)
        let isObject = try reader.readObject(GiphyFields.renditions) { reader, name throws(JSONParseError) in
            guard let name, read.indices.contains(name.position) else { return }
            read[name.position] = try GiphyRendition(reading: &reader)
        }
        renditions = isObject ? read : nil
    }

    /// The rendition `name`, when `images` lists it.
    func rendition(_ name: GiphyRendition.Name) -> GiphyRendition? {
        guard let renditions, renditions.indices.contains(name.position) else { return nil }
        return renditions[name.position]
    }

    enum Field: String, CaseIterable, Sendable {
        case id, username, user, title, caption, slug, url, rating, source, images
        case sourcePostURL = "source_post_url", importDatetime = "import_datetime", trendingDatetime = "trending_datetime"
        case embedURL = "embed_url", bitlyURL = "bitly_url", altText = "alt_text"
        case imageOriginalURL = "image_original_url", imageURL = "image_url", imageWidth = "image_width"
        case imageHeight = "image_height", imageMP4URL = "image_mp4_url"
        // The 2016 flat renditions (`GiphyMapping.legacyRenditions`), kept in `flat`.
        case fixedWidthSmallURL = "fixed_width_small_url", fixedWidthSmallWidth = "fixed_width_small_width"
        case fixedWidthSmallHeight = "fixed_width_small_height"
        case fixedHeightSmallURL = "fixed_height_small_url", fixedHeightSmallWidth = "fixed_height_small_width"
        case fixedHeightSmallHeight = "fixed_height_small_height"
        case fixedWidthDownsampledURL = "fixed_width_downsampled_url", fixedWidthDownsampledWidth = "fixed_width_downsampled_width"
        case fixedWidthDownsampledHeight = "fixed_width_downsampled_height"
        case fixedWidthURL = "fixed_width_url", fixedWidthWidth = "fixed_width_width", fixedWidthHeight = "fixed_width_height"
        case fixedHeightURL = "fixed_height_url", fixedHeightWidth = "fixed_height_width", fixedHeightHeight = "fixed_height_height"
    }

    enum UserField: String, CaseIterable, Sendable {
        case username, displayName = "display_name"
    }
}

/// One entry of a GIF's `images`: the members the mapping reads.
struct GiphyRendition {
    var url: JSONValue?
    var width: JSONValue?
    var height: JSONValue?
    var mp4: JSONValue?

    /// A value that is no object gives a rendition without members (unusable, as in a parsed object).
    init(reading reader: inout JSONReader) throws(JSONParseError) {
        try reader.readObject(GiphyFields.rendition) { reader, field throws(JSONParseError) in
            switch field {
            case .url: url = try reader.readValue()
            case .width: width = try reader.readValue()
            case .height: height = try reader.readValue()
            case .mp4: mp4 = try reader.readValue()
            case nil: break
            }
        }
    }

    enum Field: String, CaseIterable, Sendable {
        case url, width, height, mp4
    }

    /// The renditions `GiphyMapping.renditionPreferences` names.
    enum Name: String, CaseIterable, Sendable {
        case fixedWidthSmall = "fixed_width_small", fixedHeightSmall = "fixed_height_small", previewGIF = "preview_gif"
        case fixedWidthDownsampled = "fixed_width_downsampled", fixedWidth = "fixed_width", fixedHeight = "fixed_height"
        case downsizedMedium = "downsized_medium", downsized, downsizedLarge = "downsized_large", original

        static let count = allCases.count

        /// Where the name is in `allCases` (which builds an array each time it is asked for).
        var position: Int {
            switch self {
            case .fixedWidthSmall: 0
            case .fixedHeightSmall: 1
            case .previewGIF: 2
            case .fixedWidthDownsampled: 3
            case .fixedWidth: 4
            case .fixedHeight: 5
            case .downsizedMedium: 6
            case .downsized: 7
            case .downsizedLarge: 8
            case .original: 9
            }
        }
    }
}
