import SeekSupport

/// Just enough of a 64-bit little-endian ELF file to find its data.
enum ELFFile {
    /// The sections loaded into memory that are neither code nor zero-filled (`.rodata`, `.data`, Swift's
    /// metadata), where string literals live; nil when `file` is not such an ELF file.
    static func dataSections(of file: ByteView) -> [ByteView]? {
        guard file.count >= 64, file.prefix(6).elementsEqual([0x7F, 0x45, 0x4C, 0x46, 2, 1]),
              let headersAt = file.littleEndian(UInt64.self, at: 0x28).flatMap(Int.init(exactly:)),
              let headerSize = file.littleEndian(UInt16.self, at: 0x3A).map(Int.init),
              let headerCount = file.littleEndian(UInt16.self, at: 0x3C).map(Int.init)
        else { return nil }
        guard headerSize >= 0x28, headersAt > 0, headersAt <= file.count - headerCount * headerSize else { return nil }
        let progbits: UInt32 = 1, alloc: UInt64 = 0x2, code: UInt64 = 0x4
        let sections = (0..<headerCount).compactMap { index -> ByteView? in
            let header = headersAt + index * headerSize
            guard let type = file.littleEndian(UInt32.self, at: header + 4),
                  let flags = file.littleEndian(UInt64.self, at: header + 8),
                  let offset = file.littleEndian(UInt64.self, at: header + 0x18),
                  let size = file.littleEndian(UInt64.self, at: header + 0x20),
                  type == progbits, flags & alloc != 0, flags & code == 0, offset <= UInt64(file.count),
                  size <= UInt64(file.count) - offset else { return nil }
            return file.view(Int(offset)..<Int(offset + size))
        }
        return sections.isEmpty ? nil : sections
    }
}
