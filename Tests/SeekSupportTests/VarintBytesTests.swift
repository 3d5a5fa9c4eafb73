import SeekSupport
import Testing

@Suite("The cursor token's varint codec")
struct VarintBytesTests {
    @Test("varints of every width, texts and words read back as written, in order")
    func roundTrips() {
        let numbers: [UInt64] = [0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 1 << 35, UInt64.max]
        var writer = VarintWriter()
        for number in numbers { writer.varint(number) }
        writer.text("")
        writer.text("해리 포터 ✓")
        writer.bytes += [0xDE, 0xAD, 0xBE, 0xEF]
        var reader = VarintReader(bytes: writer.bytes)
        for number in numbers { #expect(reader.varint() == number) }
        #expect(reader.text(limit: 10) == "")
        #expect(reader.text(limit: 64) == "해리 포터 ✓")
        #expect(reader.uint32() == 0xDEAD_BEEF)
        #expect(reader.remaining == 0)
        #expect(reader.byte() == nil)
    }

    @Test("what is cut short, too long or not UTF-8 reads as nil, never past the end")
    func refusesBadInput() {
        var truncated = VarintReader(bytes: [0x80, 0x80])
        #expect(truncated.varint() == nil)
        // Ten bytes of continuation: longer than any UInt64.
        var overlong = VarintReader(bytes: Array(repeating: 0xFF, count: 11))
        #expect(overlong.varint() == nil)
        var writer = VarintWriter()
        writer.text("abcdef")
        var limited = VarintReader(bytes: writer.bytes)
        #expect(limited.text(limit: 5) == nil, "a text longer than the limit")
        var short = VarintReader(bytes: Array(writer.bytes.dropLast()))
        #expect(short.text(limit: 64) == nil, "a length past the end")
        var invalid = VarintReader(bytes: [2, 0xC3, 0x28])
        #expect(invalid.text(limit: 64) == nil, "bytes that are not UTF-8")
        var word = VarintReader(bytes: [1, 2, 3])
        #expect(word.uint32() == nil)
    }
}
