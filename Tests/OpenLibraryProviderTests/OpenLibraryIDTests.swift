@testable import OpenLibraryProvider
import Testing

/// Open Library ids read from keys (issue 30): ASCII keys are parsed on their bytes, and must read
/// exactly as the Character-based parsing every other text goes through.
@Suite("Open Library ids from keys")
struct OpenLibraryIDTests {
    @Test("ASCII keys of every shape parse on bytes exactly as on Characters")
    func bytesAgreeWithCharacters() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("/OLolWMAwma0123456789 x-:".utf8)
        let kinds: [[OpenLibraryID.Kind]] = [[.work, .edition], [.work], OpenLibraryID.Kind.allCases]
        var parsed = 0
        for length in 0...22 {
            for _ in 0..<400 {
                var bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0x2F }
                // Half of them shaped like a key, so that many parse.
                if Bool.random(using: &generator), length >= 4 {
                    bytes.replaceSubrange(0..<2, with: Array((Bool.random(using: &generator) ? "OL" : "ol").utf8))
                    for index in 2..<(length - 1) { bytes[index] = UInt8.random(in: 0x30...0x39, using: &generator) }
                }
                let text = String(decoding: bytes, as: UTF8.self)
                for accepted in kinds {
                    let fast = OpenLibraryID(asciiText: text, kinds: accepted)
                    #expect(fast == OpenLibraryID(anyText: text, kinds: accepted), "\(text)")
                    if fast != nil { parsed += 1 }
                }
            }
        }
        #expect(parsed > 1000)
    }

    @Test("keys and bare ids parse to their upper-case id and kind; anything else is nil")
    func examples() {
        #expect(OpenLibraryID(parsing: "/works/OL27448W", kinds: [.work]) == OpenLibraryID(asciiText: "OL27448W", kinds: [.work]))
        #expect(OpenLibraryID(parsing: " ol7353617m ", kinds: [.edition])?.value == "OL7353617M")
        #expect(OpenLibraryID(parsing: "/works/OL27448W", kinds: [.edition]) == nil)
        #expect(OpenLibraryID(parsing: "OLW", kinds: [.work]) == nil)
        #expect(OpenLibraryID(parsing: "OL1234567890123456W", kinds: [.work]) == nil)  // 16 digits
        #expect(OpenLibraryID(parsing: "OL123456789012345W", kinds: [.work])?.value == "OL123456789012345W")
        #expect(OpenLibraryID(parsing: "ia:harbor00", kinds: [.work]) == nil)
        #expect(OpenLibraryID(parsing: "/works/OL２７W", kinds: [.work]) == nil)  // full-width digits: not ASCII, read on Characters
        #expect(OpenLibraryID(parsing: "/wörks/OL27W", kinds: [.work])?.value == "OL27W")
    }
}
