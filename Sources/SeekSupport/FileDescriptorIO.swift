#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Plain reads and writes of a file descriptor: stdout and stderr, the provider stats log, state files
/// and the image cache's files.
///
/// SAFETY: every `read`, `pread`, `write` and `pwrite` here is given a buffer's base address plus an
/// offset `done < count` and the length `count - done`, so it stays inside the buffer, which is
/// borrowed for the call (an array's, a `Data`'s or a temporary allocation's); no pointer is kept.
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

    /// Writes all of `data`, as `writeAll(_:_:stallLimit:)` writes bytes.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ data: Data, stallLimit: Int32 = 10_000) -> Bool {
        data.withUnsafeBytes { writeAll(descriptor, $0, stallLimit: stallLimit) }
    }

    /// Everything `read` gives from the descriptor's position to its end; nil when a read fails.
    package static func readToEnd(_ descriptor: Int32) -> Data? {
        var data = Data()
        let complete = withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { return false }
                if count == 0 { return true }
                data.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
        return complete ? data : nil
    }

    /// The file's bytes from offset 0, read with `pread` (the descriptor's position untouched) until
    /// its end or a failed read.
    package static func preadToEnd(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
            offset += off_t(count)
        }
        return data
    }

    /// Up to `count` bytes from `offset` with `pread`; fewer at the end of the file, nil when it fails.
    package static func bytes(_ descriptor: Int32, count: Int, at offset: Int64) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: max(0, count))
        var done = 0
        while done < buffer.count {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(offset) + off_t(done))
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            done += got
        }
        return Array(buffer[0..<done])
    }

    /// Exactly `count` bytes with `read`; nil when the file ends first or a read fails.
    package static func data(_ descriptor: Int32, exactly count: Int) -> Data? {
        var data = Data(count: max(0, count))
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return buffer.isEmpty }
            var done = 0
            while done < buffer.count {
                let got = read(descriptor, base + done, buffer.count - done)
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                done += got
            }
            return true
        }
        return complete ? data : nil
    }

    /// Writes `data` at offset 0 with `pwrite`; how many bytes were written before the end or a failure.
    package static func pwriteAll(_ descriptor: Int32, _ data: Data) -> Int {
        data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = pwrite(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written, off_t(written))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                written += count
            }
            return written
        }
    }
}
