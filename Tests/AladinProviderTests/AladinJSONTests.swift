@testable import AladinProvider
import Foundation
import Testing

@Suite("Aladin bodies made strict")
struct AladinJSONTests {
    static let bodies: [String] = [
        #"{"item": [{"title": "항구"}], "totalResults": 1}"#,
        "\u{FEFF}" + #"{"item": []}"#,
        #"[1, 2]"#,
        #"{"item": []};"#,
        #"{"item": []} "#,
        #" {"item": []}"#,
        "{\"item\": [],\n \"totalResults\": 0}",
        #"callme(true, {"item": []});"#,
        #"{'errorCode':8,'errorMessage':'없음'}"#,
        #"{"title": "it\'s"}"#,
        "{\"title\": \"two\nlines\"}",
        #"{"a": "b"}x"#,
        "",
    ]

    @Test("a body passed through unchanged is one the rewriting would give back as it is, less a byte-order mark")
    func passedThroughOnlyWhenUnchanged() {
        var passed = 0
        for body in Self.bodies.map({ Data($0.utf8) }) {
            guard AladinJSON.needsNoRewriting(body) else { continue }
            passed += 1
            let withoutMark = body.starts(with: [0xEF, 0xBB, 0xBF]) ? body.dropFirst(3) : body[...]
            #expect(AladinJSON.rewritten(body) == Data(withoutMark), "\(String(decoding: body, as: UTF8.self))")
            #expect(AladinJSON.normalize(body) == body)
        }
        #expect(passed == 4)
    }

    @Test("a single quote or a control byte anywhere, at any alignment, means rewriting")
    func everyPosition() {
        let strict = #"{"item": [{"title": "항구", "link": "http://www.aladin.co.kr/x"}], "totalResults": 1}"#
        #expect(AladinJSON.needsNoRewriting(Data(strict.utf8)))
        var bytes = Array(strict.utf8)
        for index in 1..<(bytes.count - 1) {
            for byte in [UInt8(ascii: "'"), 0x00, 0x0A, 0x1F] {
                let kept = bytes[index]
                bytes[index] = byte
                #expect(!AladinJSON.needsNoRewriting(Data(bytes)), "byte \(byte) at \(index)")
                bytes[index] = kept
            }
        }
    }

    @Test("bodies that need rewriting are rewritten")
    func rewrittenWhenNeeded() {
        for body in Self.bodies.map({ Data($0.utf8) }) where !AladinJSON.needsNoRewriting(body) {
            #expect(AladinJSON.normalize(body) == AladinJSON.rewritten(body))
        }
        #expect(AladinJSON.normalize(Data(#"{'a':'b'}"#.utf8)) == Data(#"{"a":"b"}"#.utf8))
    }
}
