import Foundation
import SeekCore
@testable import SeekRuntime
import Testing

/// The cover Seek draws for an item without an image: escaped, wrapped between words, one colour per
/// title, nothing a Content-Security-Policy would stop.
@Suite("Generated covers")
struct GeneratedCoverTests {
    /// The tags a cover may contain; anything else after a `<` is text that was not escaped.
    static let tags = ["svg", "/svg", "title", "/title", "rect", "text", "/text"]

    static func tagsAreOurs(_ svg: String) -> Bool {
        var rest = Substring(svg)
        while let open = rest.firstIndex(of: "<") {
            let after = rest[rest.index(after: open)...]
            guard tags.contains(where: { after.hasPrefix($0 + " ") || after.hasPrefix($0 + ">") || after.hasPrefix($0 + "/") }) else { return false }
            rest = after
        }
        return true
    }

    @Test("text from a source is escaped: markup, quotes and ampersands cannot leave the text")
    func escapes() {
        let hostile = #"<script>alert("x")</script> Tom's & "Book" ]]> <![CDATA["#
        let svg = GeneratedCover.svg(title: hostile, subtitle: "<b>bold</b>", creators: [#"A" onload="x"#], kind: .book, size: .medium)
        #expect(!svg.contains("<script"))
        #expect(!svg.contains("<b>"))
        #expect(!svg.contains(#"" onload=""#))
        #expect(svg.contains("&lt;script&gt;"))
        #expect(svg.contains("Tom&#39;s &amp; &quot;Book&quot;"))
        #expect(Self.tagsAreOurs(svg), "\(svg)")
    }

    @Test("characters XML cannot hold are left out, so the image always parses")
    func controlCharacters() {
        let svg = GeneratedCover.svg(title: "Nul\u{0}Bell\u{7}Esc\u{1B}\u{FFFF}Done\u{85}", creators: ["Tab\tName"], kind: .book, size: .small)
        for scalar in svg.unicodeScalars where scalar != "\n" {
            #expect(scalar.value >= 0x20 && scalar.value != 0xFFFF && !(0x7F...0x9F).contains(scalar.value), "U+\(String(scalar.value, radix: 16))")
        }
        #expect(svg.contains("NulBellEscDone"))
        #expect(svg.contains("Tab Name"))
    }

    @Test("no style element, style attribute, script, link or outside reference: the CSP lets it show")
    func nothingTheCSPStops() {
        let svg = GeneratedCover.svg(title: "The Lord of the Rings", subtitle: "The Return of the King", creators: ["J. R. R. Tolkien"], kind: .book, size: .large)
        for forbidden in ["<style", "style=", "<script", "href", "url(", "<image", "<foreignObject", "@import"] {
            #expect(!svg.contains(forbidden), "\(forbidden)")
        }
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg""#))
        #expect(svg.contains(">The Return of the King<"), "the subtitle tells volumes of one title apart")
    }

    @Test("a book is 2:3 and a GIF square, at each size's width")
    func sizes() {
        #expect(GeneratedCover.svg(title: "A", creators: [], kind: .book, size: .small).contains(#"width="100" height="150""#))
        #expect(GeneratedCover.svg(title: "A", creators: [], kind: .book, size: .medium).contains(#"width="200" height="300""#))
        #expect(GeneratedCover.svg(title: "A", creators: [], kind: .book, size: .original).contains(#"viewBox="0 0 600 900""#))
        #expect(GeneratedCover.svg(title: "A", creators: [], kind: .gif, size: .medium).contains(#"width="200" height="200""#))
    }

    @Test("Korean wraps between words, never inside one (keep-all)")
    func koreanKeepsWords() {
        let title = "아름다움과 과학사의 위대한 이야기들을 모은 책"
        let words = Set(title.split(separator: " ").map(String.init))
        let lines = GeneratedCover.wrap(title, width: 300, fontSize: 56, bold: true)
        #expect(lines.count > 1, "\(lines)")
        for line in lines {
            for word in line.split(separator: " ") { #expect(words.contains(String(word)), "\(word) is a cut word in \(lines)") }
        }
    }

    @Test("a word wider than a line alone is broken between characters, so nothing overflows")
    func longWord() {
        let lines = GeneratedCover.wrap("가나다라마바사아자차카타파하가나다라마바사", width: 300, fontSize: 56, bold: true)
        #expect(lines.count > 1)
        for line in lines { #expect(GeneratedCover.measure(line, fontSize: 56, bold: true) <= 300, "\(line)") }
        #expect(lines.joined() == "가나다라마바사아자차카타파하가나다라마바사")
    }

    @Test("a long title shrinks, then is cut with an ellipsis, within its lines")
    func longTitle() {
        let short = GeneratedCover.fit("Dune", width: 480, height: 510, sizes: [72, 64, 56], maxLines: 8, bold: true)
        #expect(short.fontSize == 72)
        #expect(short.lines == ["Dune"])
        let long = String(repeating: "Pneumonoultramicroscopic silicovolcanoconiosis and other words ", count: 12)
        let set = GeneratedCover.fit(long, width: 480, height: 510, sizes: [72, 64, 56, 50, 44, 38, 33, 29], maxLines: 8, bold: true)
        #expect(set.fontSize == 29)
        #expect(set.lines.count <= 8)
        #expect(set.lines.last?.hasSuffix("…") == true, "\(set.lines)")
        for line in set.lines { #expect(GeneratedCover.measure(line, fontSize: 29, bold: true) <= 480, "\(line)") }
    }

    /// The contrast ratio of white on `hex` (WCAG 2).
    static func contrastWithWhite(_ hex: String) -> Double {
        let digits = Array(hex.dropFirst())
        func channel(_ at: Int) -> Double {
            let value = Double(Int(String(digits[at..<at + 2]), radix: 16) ?? 0) / 255
            return value <= 0.03928 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
        return 1.05 / (luminance + 0.05)
    }

    @Test("one title, one colour; titles differ in colour; white text stays readable on every one")
    func colours() {
        let titles = ["Dune", "The Lord of the Rings", "위대한 이야기", "Fantastic Mr Fox", "Emma", "해리포터", "Capitalism and Freedom", "Cats"]
        for title in titles {
            #expect(GeneratedCover.palette(for: title) == GeneratedCover.palette(for: title))
            #expect(GeneratedCover.palette(for: title) == GeneratedCover.palette(for: " \(title)\n"), "surrounding space is not the title")
            let background = GeneratedCover.palette(for: title).background
            #expect(background.count == 7 && background.hasPrefix("#"))
            #expect(Self.contrastWithWhite(background) >= 7, "\(title): \(background)")
        }
        #expect(Set(titles.map { GeneratedCover.palette(for: $0).background }).count >= 6)
        #expect(GeneratedCover.svg(title: "Dune", creators: [], kind: .book, size: .small)
            == GeneratedCover.svg(title: "Dune", creators: [], kind: .book, size: .small), "the same bytes every time: a stable ETag")
    }

    @Test("HSL to hex at the primaries and grey")
    func hex() {
        #expect(GeneratedCover.hex(hue: 0, saturation: 1, lightness: 0.5) == "#ff0000")
        #expect(GeneratedCover.hex(hue: 120, saturation: 1, lightness: 0.5) == "#00ff00")
        #expect(GeneratedCover.hex(hue: 240, saturation: 1, lightness: 0.5) == "#0000ff")
        #expect(GeneratedCover.hex(hue: 200, saturation: 0, lightness: 0.5) == "#808080")
    }

    @Test("recent items keep at most their capacity, forgetting the oldest")
    func recentItems() {
        let recent = RecentItems(capacity: 3)
        let ids = (1...5).compactMap { ItemID(parsing: "openlibrary:OL\($0)W") }
        for (number, id) in ids.enumerated() {
            recent.remember([(id, RecentItems.Entry(title: "Book \(number + 1)", creators: [], kind: .book))])
        }
        #expect(ids.prefix(2).allSatisfy { recent.entry($0) == nil })
        #expect(ids.suffix(3).map { recent.entry($0)?.title } == ["Book 3", "Book 4", "Book 5"])
    }
}
