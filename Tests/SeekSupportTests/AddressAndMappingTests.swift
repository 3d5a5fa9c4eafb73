import Foundation
import SeekSupport
import Testing

@Suite("Byte views: integers and anchored search")
struct ByteViewSearchTests {
    @Test("little-endian integers are read where they fit and nil past the end or before the start")
    func integers() {
        let bytes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]
        ByteView.reading(bytes) { view in
            #expect(view.littleEndian(UInt16.self, at: 0) == 0x0201)
            #expect(view.littleEndian(UInt32.self, at: 5) == 0x0908_0706)
            #expect(view.littleEndian(UInt64.self, at: 1) == 0x0908_0706_0504_0302)
            #expect(view.littleEndian(UInt64.self, at: 2) == nil)
            #expect(view.littleEndian(UInt16.self, at: -1) == nil)
            #expect(view.littleEndian(UInt16.self, at: Int.max) == nil)
        }
    }

    @Test("an anchored search finds what a byte-by-byte search finds, from any start, and nothing for a bad anchor")
    func anchoredSearch() {
        var generator = SplitMix(seed: 11)
        var found = 0
        for _ in 0..<2_000 {
            let haystack = (0..<Int(generator.next() % 48)).map { _ in UInt8(ascii: "a") + UInt8(generator.next() % 3) }
            let needle = (0..<Int(1 + generator.next() % 4)).map { _ in UInt8(ascii: "a") + UInt8(generator.next() % 3) }
            let anchor = Int(generator.next() % UInt64(needle.count))
            let start = Int(generator.next() % 50) - 2
            let last = haystack.count - needle.count
            let expected = last < max(0, start) ? nil
                : (max(0, start)...last).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
            if expected != nil { found += 1 }
            #expect(ByteView.reading(haystack) { $0.firstOffset(of: needle, anchoredAt: anchor, from: start) } == expected)
        }
        #expect(found > 500)
        #expect(ByteView.reading(Array("abc".utf8)) { $0.firstOffset(of: Array("b".utf8), anchoredAt: 1) } == nil)
        #expect(ByteView.reading([UInt8]()) { $0.firstOffset(of: Array("b".utf8), anchoredAt: 0) } == nil)
    }
}

@Suite("Mapped files and IP address text")
struct MappedFileAndAddressTests {
    @Test("a mapped file reads as written; a missing or empty file maps to nil")
    func mapped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-mapped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("data"), empty = folder.appendingPathComponent("empty")
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try Data(bytes).write(to: file)
        try Data().write(to: empty)
        #expect(MappedFile.reading(file.path) { Array($0) } == bytes)
        #expect(MappedFile.reading(empty.path) { $0.count } == nil)
        #expect(MappedFile.reading(folder.appendingPathComponent("missing").path) { $0.count } == nil)
    }

    @Test("addresses go from text to bytes and back; other text and other lengths give nil")
    func addresses() {
        #expect(InternetAddress.ipv4Bytes("192.0.2.7") == [192, 0, 2, 7])
        #expect(InternetAddress.ipv4Bytes("::1") == nil)
        #expect(InternetAddress.ipv4Bytes("256.1.1.1") == nil)
        #expect(InternetAddress.ipv6Bytes("::1") == [UInt8](repeating: 0, count: 15) + [1])
        #expect(InternetAddress.ipv6Bytes("1.2.3.4") == nil)
        #expect(InternetAddress.text(of: [192, 0, 2, 7]) == "192.0.2.7")
        #expect(InternetAddress.text(of: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]) == "2001:db8::1")
        #expect(InternetAddress.text(of: [1, 2, 3]) == nil, "neither 4 nor 16 bytes")
        #expect(InternetAddress.text(of: []) == nil)
    }
}
