#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain writes to a file descriptor: stdout and stderr, the provider stats log.
public enum FileDescriptorIO {
    /// Writes all of `bytes`, again after an interrupted or partial write; false when the descriptor
    /// takes no more (a closed pipe, a full disk), which ends the write instead of trapping.
    @discardableResult
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = write(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }

    /// Writes all of `text` as UTF-8, as `writeAll(_:_:)` writes bytes.
    @discardableResult
    public static func writeAll(_ descriptor: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }
}
