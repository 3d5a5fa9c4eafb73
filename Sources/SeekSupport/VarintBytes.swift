// The byte codec of compact tokens (`SearchCursor`'s): unsigned LEB128 varints, length-prefixed
// UTF-8 and big-endian 32-bit words, every read bounds-checked.

/// Appends unsigned LEB128 varints and length-prefixed UTF-8.
package struct VarintWriter {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    package mutating func text(_ value: String) {
        let utf8 = Array(value.utf8)
        varint(UInt64(utf8.count))
        bytes += utf8
    }
}

/// Reads what `VarintWriter` wrote; every read is bounds-checked and returns nil past the end.
package struct VarintReader {
    package let bytes: [UInt8]
    package var index = 0

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var remaining: Int { bytes.count - index }

    package mutating func byte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    package mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard let next = byte() else { return nil }
            value |= UInt64(next & 0x7F) << UInt64(shift)
            if next & 0x80 == 0 { return value }
        }
        return nil
    }

    package mutating func text(limit: Int) -> String? {
        guard let length = varint(), length <= UInt64(limit), Int(length) <= remaining else { return nil }
        let slice = bytes[index..<index + Int(length)]
        index += Int(length)
        return String(validating: slice, as: UTF8.self)
    }

    package mutating func uint32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { index += 4 }
        return bytes[index..<index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}
