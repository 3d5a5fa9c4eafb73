import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekImageCache

/// The cover Seek draws for an item whose source has no image (or whose image cannot be had): the
/// title and creators typeset on a colour taken from the title, as Calibre's default covers are.
///
/// An SVG of presentation attributes only (no `<style>`, no `style=`, no script, nothing fetched),
/// so the web UI's Content-Security-Policy lets it show as an `<img>` and opening it alone runs
/// nothing. Text is wrapped between words (a Hangul word is never cut: CSS's `keep-all`), shrunk
/// to fit and cut with "…" when even the smallest size does not; every text is XML-escaped.
public enum GeneratedCover {
    /// The cover of `title` (and `subtitle`, smaller: three volumes of one title stay apart) by
    /// `creators`: a book's 2:3 or, for a GIF, a square.
    public static func svg(title: String, subtitle: String? = nil, creators: [String], kind: ItemKind, size: ImageSize) -> String {
        let square = kind == .gif
        let width = 600.0, height = square ? 600.0 : 900.0
        let shown = (size == .small ? 100.0 : size == .medium ? 200.0 : size == .large ? 400.0 : 600.0)
        let colours = palette(for: title)
        let cleanTitle = clean(title).isEmpty ? "?" : clean(title)
        let byline = Self.byline(creators)

        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(number(width)) \(number(height))" \
        width="\(number(shown))" height="\(number(shown * height / width))" role="img" aria-label="\(escape(cleanTitle))">
        <title>\(escape(cleanTitle + (subtitle.map(clean).map { $0.isEmpty ? "" : ": " + $0 } ?? "") + (byline.isEmpty ? "" : " — " + byline)))</title>
        <rect width="100%" height="100%" fill="\(colours.background)"/>
        <rect x="24" y="24" width="\(number(width - 48))" height="\(number(height - 48))" fill="none" stroke="\(colours.accent)" stroke-width="4"/>

        """
        // The title fills the upper part (the subtitle below it), the creators the lower one, a rule between them.
        let cleanSubtitle = subtitle.map(clean) ?? ""
        let textBox = square ? (top: 70.0, bottom: 400.0) : (top: 110.0, bottom: 620.0)
        var subtitleSet: (lines: [String], fontSize: Double)?
        if !cleanSubtitle.isEmpty {
            subtitleSet = fit(cleanSubtitle, width: width - 140, height: square ? 90 : 130, sizes: [36, 32, 28, 25], maxLines: 3, bold: false)
        }
        let subtitleHeight = subtitleSet.map { Double($0.lines.count) * $0.fontSize * lineHeight + 24 } ?? 0
        let titleBox = (top: textBox.top, bottom: textBox.bottom - subtitleHeight)
        let title = fit(cleanTitle, width: width - 150, height: titleBox.bottom - titleBox.top,
                        sizes: [72, 64, 56, 50, 44, 38, 33, 29], maxLines: square ? 5 : 8, bold: true)
        // Title and subtitle as one block, centred in the upper part.
        let titleHeight = Double(title.lines.count) * title.fontSize * lineHeight
        let blockTop = (textBox.top + textBox.bottom - titleHeight - subtitleHeight) / 2
        svg += block(title, centreY: blockTop + titleHeight / 2, x: width / 2, weight: "700", fill: "#ffffff")
        if let subtitleSet {
            svg += block(subtitleSet, centreY: blockTop + titleHeight + subtitleHeight / 2 + 12, x: width / 2, weight: "400", fill: colours.text)
        }
        let ruleY = square ? 440.0 : 680.0
        svg += "<rect x=\"\(number(width / 2 - 60))\" y=\"\(number(ruleY))\" width=\"120\" height=\"4\" fill=\"\(colours.accent)\"/>\n"
        if !byline.isEmpty {
            let bylineBox = square ? (top: 470.0, bottom: 560.0) : (top: 710.0, bottom: 840.0)
            let lines = fit(byline, width: width - 140, height: bylineBox.bottom - bylineBox.top,
                            sizes: [38, 34, 30, 27, 24], maxLines: 3, bold: false)
            svg += block(lines, centreY: (bylineBox.top + bylineBox.bottom) / 2, x: width / 2, weight: "400", fill: colours.text)
        }
        svg += "</svg>\n"
        return svg
    }

    /// The cover as an image the session hands out (`origin` `.generated`).
    public static func image(title: String, subtitle: String? = nil, creators: [String], kind: ItemKind, size: ImageSize) -> CachedImage {
        let text = svg(title: title, subtitle: subtitle, creators: creators, kind: kind, size: size)
        return CachedImage(data: Data(text.utf8), format: .svg, origin: .generated)
    }

    /// The fonts asked for, Korean first: a browser shows an SVG image with the fonts it has.
    static let fontFamily = "'Noto Sans CJK KR', 'Noto Sans KR', 'Apple SD Gothic Neo', 'Malgun Gothic', 'Noto Sans', 'DejaVu Sans', sans-serif"

    // MARK: Colour

    /// The background, the accent (frame and rule) and the creators' text colour of `title`: the
    /// same title always gets the same colours; white text on the background is above 7:1.
    static func palette(for title: String) -> (background: String, accent: String, text: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in title.trimmingCharacters(in: .whitespacesAndNewlines).utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hue = Double(hash % 360)
        let saturation = [0.42, 0.5, 0.58][Int((hash >> 16) % 3)]
        var lightness = [0.24, 0.27, 0.3][Int((hash >> 24) % 3)]
        // Yellows and greens are light at any lightness: darker until white on them is 7.5:1.
        while lightness > 0.1, 1.05 / (luminance(hue: hue, saturation: saturation, lightness: lightness) + 0.05) < 7.5 {
            lightness -= 0.02
        }
        return (hex(hue: hue, saturation: saturation, lightness: lightness),
                hex(hue: hue, saturation: saturation * 0.8, lightness: 0.62),
                hex(hue: hue, saturation: 0.35, lightness: 0.9))
    }

    /// The relative luminance (WCAG 2) of a colour given as hue, saturation and lightness.
    static func luminance(hue: Double, saturation: Double, lightness: Double) -> Double {
        let (r, g, b) = rgb(hue: hue, saturation: saturation, lightness: lightness)
        func linear(_ value: Double) -> Double { value <= 0.03928 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    }

    /// Red, green and blue (0–1) of a colour given as hue (degrees), saturation and lightness (0–1).
    static func rgb(hue: Double, saturation: Double, lightness: Double) -> (Double, Double, Double) {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let section = hue / 60
        let second = chroma * (1 - abs(section.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(section) {
        case 0: (chroma, second, 0)
        case 1: (second, chroma, 0)
        case 2: (0, chroma, second)
        case 3: (0, second, chroma)
        case 4: (second, 0, chroma)
        default: (chroma, 0, second)
        }
        let m = lightness - chroma / 2
        return (r + m, g + m, b + m)
    }

    /// `#rrggbb` of a colour given as hue (degrees), saturation and lightness (0–1).
    static func hex(hue: Double, saturation: Double, lightness: Double) -> String {
        let (r, g, b) = rgb(hue: hue, saturation: saturation, lightness: lightness)
        func byte(_ value: Double) -> String {
            let scaled = Int((value * 255).rounded())
            let text = String(min(255, max(0, scaled)), radix: 16)
            return text.count == 1 ? "0" + text : text
        }
        return "#" + byte(r) + byte(g) + byte(b)
    }

    // MARK: Text

    /// At most two creators, then "et al.".
    static func byline(_ creators: [String]) -> String {
        let names = creators.map(clean).filter { !$0.isEmpty }
        guard !names.isEmpty else { return "" }
        return names.prefix(2).joined(separator: ", ") + (names.count > 2 ? " et al." : "")
    }

    /// `text` with what XML 1.0 cannot hold (control characters, U+FFFE, U+FFFF) left out and runs
    /// of white space made one space.
    static func clean(_ text: String) -> String {
        var result = ""
        var space = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                space = !result.isEmpty
                continue
            }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
            if space { result.unicodeScalars.append(" ") }
            space = false
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    /// `text` safe in XML content and in a double- or single-quoted attribute (the drawn covers' SVG, and
    /// the server's other XML: the OpenSearch description).
    package static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// Lines of `text` and the font size they are set in: the largest of `sizes` at which the
    /// text fits `width` × `height` in at most `maxLines`; at the smallest, the lines that fit, the
    /// last one ending in "…".
    static func fit(_ text: String, width: Double, height: Double, sizes: [Double], maxLines: Int, bold: Bool)
        -> (lines: [String], fontSize: Double) {
        let smallest = sizes.min() ?? 24
        for size in sizes {
            let lines = wrap(text, width: width, fontSize: size, bold: bold)
            if lines.count <= maxLines, Double(lines.count) * size * lineHeight <= height { return (lines, size) }
        }
        let room = max(1, min(maxLines, Int(height / (smallest * lineHeight))))
        var lines = wrap(text, width: width, fontSize: smallest, bold: bold)
        if lines.count > room {
            lines = Array(lines.prefix(room))
            var last = lines[room - 1]
            while !last.isEmpty, measure(last + "…", fontSize: smallest, bold: bold) > width { last.removeLast() }
            lines[room - 1] = last.trimmingCharacters(in: .whitespaces) + "…"
        }
        return (lines, smallest)
    }

    static let lineHeight = 1.22

    /// `text` in lines no wider than `width`, broken between words; a word wider than a line alone
    /// (a long Hangul word, a title of CJK ideographs without spaces) is broken between characters.
    static func wrap(_ text: String, width: Double, fontSize: Double, bold: Bool) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ").map(String.init) {
            let candidate = line.isEmpty ? word : line + " " + word
            if measure(candidate, fontSize: fontSize, bold: bold) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = ""
            if measure(word, fontSize: fontSize, bold: bold) <= width {
                line = word
                continue
            }
            for character in word {
                if !line.isEmpty, measure(line + String(character), fontSize: fontSize, bold: bold) > width {
                    lines.append(line)
                    line = ""
                }
                line.append(character)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// The width of `text` at `fontSize`, estimated from the kind of each character (no font is
    /// read): Hangul, kana and CJK ideographs a full em, Latin letters about half of one.
    static func measure(_ text: String, fontSize: Double, bold: Bool) -> Double {
        var ems = 0.0
        for character in text {
            guard let scalar = character.unicodeScalars.first else { continue }
            let value = scalar.value
            if (0x1100...0x11FF).contains(value) || (0x2E80...0x9FFF).contains(value) || (0xAC00...0xD7AF).contains(value)
                || (0xF900...0xFAFF).contains(value) || (0xFF00...0xFF60).contains(value) || (0x20000...0x3FFFF).contains(value) {
                ems += 1.0
            } else if " ".contains(character) {
                ems += 0.28
            } else if "iljI.,:;'!|()[]ftr".contains(character) {
                ems += 0.32
            } else if "mwMW@%".contains(character) {
                ems += 0.86
            } else if character.isUppercase || character.isNumber {
                ems += 0.66
            } else {
                ems += 0.56
            }
        }
        return ems * fontSize * (bold ? 1.06 : 1.0)
    }

    /// `lines` as centred `<text>` elements around `centreY`.
    static func block(_ set: (lines: [String], fontSize: Double), centreY: Double, x: Double, weight: String, fill: String) -> String {
        let step = set.fontSize * lineHeight
        // The first baseline: half the block above the centre, then one line's ascent (about 0.8 em).
        let first = centreY - step * Double(set.lines.count) / 2 + set.fontSize * 0.86
        var out = ""
        for (index, line) in set.lines.enumerated() {
            out += "<text x=\"\(number(x))\" y=\"\(number(first + step * Double(index)))\" text-anchor=\"middle\" "
            out += "font-family=\"\(fontFamily)\" font-size=\"\(number(set.fontSize))\" font-weight=\"\(weight)\" fill=\"\(fill)\">"
            out += escape(line) + "</text>\n"
        }
        return out
    }

    /// `value` with at most one decimal, no trailing `.0`.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// What recent answers said of items (title, creators, kind), by id: what a cover is drawn from
/// when an item's own record cannot be had. At most `capacity` items, the oldest forgotten first.
public final class RecentItems: Sendable {
    public struct Entry: Sendable, Hashable {
        public var title: String
        public var subtitle: String?
        public var creators: [String]
        public var kind: ItemKind

        public init(title: String, subtitle: String? = nil, creators: [String], kind: ItemKind) {
            self.title = title
            self.subtitle = subtitle
            self.creators = creators
            self.kind = kind
        }
    }

    private let state = NIOLockedValueBox<(entries: [ItemID: Entry], order: [ItemID], start: Int)>(([:], [], 0))
    public let capacity: Int

    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    public func remember(_ items: some Sequence<Item>) {
        remember(items.map { ($0.id, Entry(title: $0.title, subtitle: $0.subtitle, creators: $0.creators, kind: $0.kind)) })
    }

    public func remember(_ entries: [(ItemID, Entry)]) {
        guard !entries.isEmpty else { return }
        state.withLockedValue { state in
            for (id, entry) in entries {
                if state.entries.updateValue(entry, forKey: id) != nil { continue }
                if state.order.count < capacity {
                    state.order.append(id)
                } else {
                    // The ring is full: the oldest id gives up its place.
                    state.entries[state.order[state.start]] = nil
                    state.order[state.start] = id
                    state.start = (state.start + 1) % capacity
                }
            }
        }
    }

    public func entry(_ id: ItemID) -> Entry? {
        state.withLockedValue { $0.entries[id] }
    }
}
