import Foundation

/// The image formats Seek accepts, recognised by their leading bytes.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, gif, webp
    /// A cover Seek draws itself (`GeneratedCover`); never recognised in bytes from elsewhere, so no
    /// upstream SVG (which can carry script) is ever cached or served.
    case svg

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        case .webp: return "webp"
        case .svg: return "svg"
        }
    }

    public var mimeType: String { self == .svg ? "image/svg+xml" : "image/" + rawValue }
}

/// Recognises image bytes by their magic numbers, and reads the pixel size from the header when it can.
///
/// Used to keep HTML error pages, empty bodies and 1×1 placeholders out of the cache.
public enum ImageSignature {
    /// The format of `data`, or nil when it is not a JPEG, PNG, GIF or WebP image.
    public static func format(of data: Data) -> ImageFormat? {
        let bytes = [UInt8](data.prefix(12))
        guard bytes.count >= 4 else { return nil }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
        if bytes.starts(with: Array("GIF8".utf8)) { return .gif }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        return nil
    }

    public static func isImage(_ data: Data) -> Bool { format(of: data) != nil }

    /// Width and height in pixels from the header, or nil when the header does not say (or is cut short).
    public static func dimensions(of data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(64 * 1024))
        switch format(of: data) {
        case .png: return pngSize(bytes)
        case .gif: return gifSize(bytes)
        case .jpeg: return jpegSize(bytes)
        case .webp: return webpSize(bytes)
        case .svg, nil: return nil
        }
    }

    /// True for a 1×1 image: the "blank" a server sends instead of a missing picture
    /// (Open Library's covers without `default=false`, tracking pixels).
    public static func isPlaceholder(_ data: Data) -> Bool {
        guard let size = dimensions(of: data) else { return false }
        return size.width <= 1 && size.height <= 1
    }

    // MARK: - Headers

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// PNG: the IHDR chunk follows the 8-byte signature; width and height are big-endian at 16 and 20.
    private static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let width = bigEndian(bytes, 16, 4), let height = bigEndian(bytes, 20, 4) else { return nil }
        return (width, height)
    }

    /// GIF: the logical screen size is little-endian at 6 and 8.
    private static func gifSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let width = littleEndian(bytes, 6, 2), let height = littleEndian(bytes, 8, 2) else { return nil }
        return (width, height)
    }

    /// JPEG: walks the marker segments to the first start-of-frame (SOF0…SOF15 but DHT, JPG and DAC).
    private static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }                     // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            guard let length = bigEndian(bytes, offset + 2, 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = bigEndian(bytes, offset + 5, 2), let width = bigEndian(bytes, offset + 7, 2) else { return nil }
                return (width, height)
            }
            if marker == 0xDA || marker == 0xD9 { return nil }              // scan data or end: no frame header seen
            offset += 2 + length
        }
        return nil
    }

    /// WebP: lossy `VP8 `, lossless `VP8L` or extended `VP8X` chunk right after the RIFF header.
    private static func webpSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 30 else { return nil }
        let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
        switch chunk {
        case "VP8 ":
            guard let width = littleEndian(bytes, 26, 2), let height = littleEndian(bytes, 28, 2) else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        case "VP8L":
            guard bytes[20] == 0x2F, let bits = littleEndian(bytes, 21, 4) else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            guard let width = littleEndian(bytes, 24, 3), let height = littleEndian(bytes, 27, 3) else { return nil }
            return (width + 1, height + 1)
        default:
            return nil
        }
    }
}
