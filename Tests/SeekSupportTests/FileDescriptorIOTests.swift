#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SeekSupport
import Testing

/// Whole writes to stdout, stderr and the stats log, whatever the descriptor's mode.
@Suite("Writing to a file descriptor")
struct FileDescriptorIOTests {
    /// A pipe whose write end is non-blocking, as `seek mcp 2>&1` leaves stderr.
    private static func nonBlockingPipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        return (ends[0], ends[1])
    }

    @Test("a full non-blocking pipe is waited on: 1 MiB arrives whole when the reader comes back")
    func fullNonBlockingPipeIsWaitedOn() async throws {
        let ends = try Self.nonBlockingPipe()
        defer { close(ends.read) }
        let text = String(repeating: "seek: a diagnostic line\n", count: 43_691)  // ≈ 1 MiB, 16× a pipe's buffer
        let reader = Task.detached { () -> Int in
            try? await Task.sleep(for: .milliseconds(200))
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(ends.read, &buffer, buffer.count)
                if count <= 0 { return total }
                total += count
            }
        }
        let whole = await Task.detached { FileDescriptorIO.writeAll(ends.write, text) }.value
        close(ends.write)
        #expect(whole)
        #expect(await reader.value == text.utf8.count)
    }

    @Test("a non-blocking pipe nobody reads ends the write after the stall limit, false, instead of hanging")
    func abandonedPipeEndsTheWrite() throws {
        let ends = try Self.nonBlockingPipe()
        defer {
            close(ends.read)
            close(ends.write)
        }
        let text = String(repeating: "x", count: 1 << 20)
        let clock = ContinuousClock()
        let start = clock.now
        let whole = FileDescriptorIO.writeAll(ends.write, text, stallLimit: 200)
        #expect(!whole)
        #expect(clock.now - start < .seconds(5))
    }

    @Test("a pipe whose reader closed ends the write, false, without a trap")
    func closedPipeEndsTheWrite() throws {
        signal(SIGPIPE, SIG_IGN)
        let ends = try Self.nonBlockingPipe()
        close(ends.read)
        defer { close(ends.write) }
        #expect(!FileDescriptorIO.writeAll(ends.write, "seek: nobody reads this\n"))
    }

    /// A new file in the temporary folder holding `bytes`, open for reading and writing.
    private static func file(_ bytes: [UInt8]) throws -> (fd: Int32, path: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seek-fdio-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(.ENOENT) }
        return (fd, path)
    }

    @Test("whole files read back as written: to the end, from offset 0, a range, an exact count")
    func readsFiles() throws {
        let bytes = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }  // more than one 4 KiB and 16 KiB read
        let (fd, path) = try Self.file(bytes)
        defer {
            close(fd)
            unlink(path)
        }
        #expect(FileDescriptorIO.readToEnd(fd) == Data(bytes))
        #expect(FileDescriptorIO.readToEnd(fd) == Data(), "the position is at the end now")
        #expect(FileDescriptorIO.preadToEnd(fd) == Data(bytes), "pread starts at 0 whatever the position")
        #expect(FileDescriptorIO.bytes(fd, count: 28, at: 100) == Array(bytes[100..<128]))
        #expect(FileDescriptorIO.bytes(fd, count: 10, at: 39_995) == Array(bytes[39_995...]), "fewer at the end of the file")
        #expect(FileDescriptorIO.bytes(fd, count: 0, at: 0) == [])
        _ = lseek(fd, 0, SEEK_SET)
        #expect(FileDescriptorIO.data(fd, exactly: 1_000) == Data(bytes[0..<1_000]))
        #expect(FileDescriptorIO.data(fd, exactly: 40_000) == nil, "the file ends first")
    }

    @Test("pwriteAll writes from offset 0 and says how much; a descriptor that cannot be read or written fails")
    func writesAndFailures() throws {
        let (fd, path) = try Self.file(Array("old contents, longer".utf8))
        defer { unlink(path) }
        #expect(FileDescriptorIO.pwriteAll(fd, Data("new".utf8)) == 3)
        #expect(FileDescriptorIO.preadToEnd(fd) == Data("new contents, longer".utf8))
        #expect(FileDescriptorIO.writeAll(fd, Data(" tail".utf8)))
        close(fd)
        let invalid: Int32 = -1  // not a closed one: another test may open a file under its number
        #expect(FileDescriptorIO.readToEnd(invalid) == nil)
        #expect(FileDescriptorIO.bytes(invalid, count: 4, at: 0) == nil)
        #expect(FileDescriptorIO.data(invalid, exactly: 4) == nil)
        #expect(FileDescriptorIO.pwriteAll(invalid, Data("x".utf8)) == 0)
        #expect(!FileDescriptorIO.writeAll(invalid, Data("x".utf8)))
    }
}
