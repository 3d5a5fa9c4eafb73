import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekLoopback
import SeekSupport
import Testing

/// Runs jobs on one event loop, noting whether each was queued from that loop's own thread.
private final class LoopJobs: TaskExecutor {
    let loop: any EventLoop
    private let queuedFromElsewhere = NIOLockedValueBox(0)

    init(loop: any EventLoop) { self.loop = loop }

    var jobsQueuedFromAnotherThread: Int { queuedFromElsewhere.withLockedValue { $0 } }

    func enqueue(_ job: consuming ExecutorJob) {
        if !loop.inEventLoop { queuedFromElsewhere.withLockedValue { $0 += 1 } }
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}

@Suite("HTTP transport on a server's event loops")
struct TransportEventLoopTests {
    @Test("a call made on one of the shared event loops is answered on that loop's thread, with nothing queued from another")
    func callStaysOnItsLoop() async throws {
        let server = try await FixtureServer.start()
        server.route("/a", .json(#"{"ok": true}"#))
        let transport = AsyncHTTPTransport()
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        try #require(loops.count >= 2, "the shared group has one loop on this machine")
        let (first, second) = (LoopJobs(loop: loops[0]), LoopJobs(loop: loops[1]))
        // A connection made from the first loop, left idle in the pool.
        let warm = try await withTaskExecutorPreference(first) { try await transport.send(HTTPRequest(url: server.url("/a"))) }
        #expect(warm.status == 200)
        // Calls from the second loop: their answers must come back on the second loop's own thread.
        let answers = try await withTaskExecutorPreference(second) {
            try await ServingExecutor.$current.withValue(second) {
                var answers: [Int] = []
                for _ in 0..<3 { answers.append(try await transport.send(HTTPRequest(url: server.url("/a"))).status) }
                return answers
            }
        }
        #expect(answers == [200, 200, 200])
        try await transport.shutdown()
        try await server.shutdown()
        #expect(second.jobsQueuedFromAnotherThread == 1, "only the first job, queued from the test's thread")
    }

    @Test("a body limit below zero refuses any body, and one past 4 GiB is not a trap", arguments: [-5, Int.min, Int.max])
    func extremeBodyLimits(limit: Int) async throws {
        let server = try await FixtureServer.start()
        server.route("/a", .json(#"{"ok": true}"#))
        let transport = AsyncHTTPTransport()
        let outcome: Result<Int, SeekError>
        do {
            outcome = .success(try await transport.send(HTTPRequest(url: server.url("/a"), maxBodyBytes: limit)).status)
        } catch let error as SeekError {
            outcome = .failure(error)
        }
        try await transport.shutdown()
        try await server.shutdown()
        if limit < 0 {
            #expect(throws: SeekError.self) { try outcome.get() }
            if case .failure(let error) = outcome { #expect(error.kind == .bodyTooLarge(limitBytes: limit)) }
        } else {
            #expect(try outcome.get() == 200)
        }
    }
}
