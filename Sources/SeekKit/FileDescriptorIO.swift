#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain writes to a file descriptor: stdout and stderr, the provider stats log.
package enum FileDescriptorIO {
    /// Writes all of `bytes`, again after an interrupted or partial write; false when the descriptor
    /// takes no more (a closed pipe, a full disk), which ends the write instead of trapping.
    ///
    /// A non-blocking descriptor that is full is waited on, as a blocking write would wait: the MCP
    /// SDK makes stdio non-blocking, and `seek mcp 2>&1` shares that with stderr. After `stallLimit`
    /// milliseconds without progress the write ends (false) rather than hang on a reader that left.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, stallLimit: Int32 = 10_000) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = write(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&entry, 1, stallLimit)
                if ready > 0 || (ready < 0 && errno == EINTR) { continue }
                return false
            }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }

    /// Writes all of `text` as UTF-8, as `writeAll(_:_:stallLimit:)` writes bytes.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ text: String, stallLimit: Int32 = 10_000) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0), stallLimit: stallLimit) }
    }
}
