import Foundation
@testable import SeekCLI
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import Testing

@Suite("Writing to stdout and stderr")
struct FileDescriptorSinkTests {
    @Test("a text longer than a pipe holds arrives whole, written in as many pieces as the reader takes")
    func longTextArrivesWhole() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let text = String(repeating: "0123456789abcdef", count: 64 * 1024)  // 1 MiB, a pipe holds 64 KiB
        let writer = Thread {
            FileDescriptorSink(descriptor: writeEnd).write(text)
            close(writeEnd)
        }
        writer.start()
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            received.append(contentsOf: buffer[..<count])
        }
        close(readEnd)
        #expect(received.count == text.utf8.count)
        #expect(received == Data(text.utf8))
    }

    @Test("a reader that has gone away (`seek … | head`) ends the write quietly instead of crashing", .timeLimit(.minutes(1)))
    func closedReaderEndsTheWrite() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        // With SIGPIPE ignored the write fails with EPIPE, which must not trap (FileHandle's would).
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let took = ContinuousClock().measure {
            FileDescriptorSink(descriptor: ends[1]).write(String(repeating: "x", count: 200_000))
        }
        // It gives up at the first EPIPE: no retrying, no waiting for a reader that will never come.
        #expect(took < .seconds(5), "the write took \(took)")
        // It leaves the descriptor to its owner, open.
        #expect(close(ends[1]) == 0, "the sink closed the descriptor it was given")
    }
}
