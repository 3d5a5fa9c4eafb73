import SeekCore
import SeekKit
import Testing

@Suite("Titles and names normalised for matching")
struct NormaliseTests {
    @Test("every Hangul syllable and CJK ideograph normalises as Foundation's folding makes it")
    func hangulAndCJKMatchFoundation() {
        var differing: [UInt32] = []
        for value in Array(0xAC00...0xD7A3) + Array(0x4E00...0x9FFF) {
            guard let scalar = Unicode.Scalar(UInt32(value)) else { continue }
            let text = "A\(scalar)b 1"
            if MatchText.normalise(text) != MatchText.normalisedByFoundation(text) { differing.append(UInt32(value)) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10).map { String($0, radix: 16) })")
    }

    @Test("mixed Korean and ASCII text, and text the fast paths do not cover, normalise as Foundation's folding makes them")
    func mixedTextMatchesFoundation() {
        let texts = [
            "저자 (지은이)", "항구의 빛 2", "Harbor 항구 (Vol. 3)", "漢字と かな", "Café 항구", "ＡＢＣ 항구", "Ǆemal",
            "한글\u{0301}", "\u{1100}\u{1161}", "", " ", "!!!", "Ｈａｒｂｏｒ", "Straße", "İstanbul",
        ]
        for text in texts {
            #expect(MatchText.normalise(text) == MatchText.normalisedByFoundation(text), "\(text)")
        }
        #expect(MatchText.normalise("Harbor 항구 (Vol. 3)") == "harbor항구vol3")
    }
}
