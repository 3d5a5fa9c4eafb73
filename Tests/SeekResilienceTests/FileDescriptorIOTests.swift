#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SeekKit
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
}
