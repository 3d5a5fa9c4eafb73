import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SeekCore
import Testing

@testable import SeekWeb

/// What ran where and in which order, from any thread.
private final class Log: Sendable {
    private let entries = NIOLockedValueBox<[String]>([])
    func add(_ entry: String) { entries.withLockedValue { $0.append(entry) } }
    var all: [String] { entries.withLockedValue { $0 } }
}

/// Starts a task on `lane` that logs `name`, then calls `finished`.
private func logJob(_ name: String, on lane: LoopExecutor, priority: TaskPriority? = nil, log: Log, finished: @escaping @Sendable () -> Void) {
    Task(executorPreference: lane, priority: priority) {
        log.add(name)
        finished()
    }
}

/// Whether the calling thread is `loop`'s.
private func isOn(_ loop: any EventLoop) -> Bool {
    MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) == ObjectIdentifier(loop) } ?? false
}

@Suite("The server's tasks run on the event loops that serve its connections")
struct EventLoopTaskExecutorTests {
    /// Runs `body` on `loop`, then waits until `finished` is called `count` times.
    private func onLoop(_ loop: any EventLoop, expecting count: Int, _ body: @escaping @Sendable (_ finished: @escaping @Sendable () -> Void) -> Void) async {
        let (done, signal) = AsyncStream.makeStream(of: Void.self)
        loop.execute { body { signal.yield() } }
        var seen = 0
        for await _ in done {
            seen += 1
            if seen == count { break }
        }
    }

    /// `body` with an executor over a new group of `count` loops, shut down after.
    private func withLoops(_ count: Int, _ body: (EventLoopTaskExecutor, [any EventLoop]) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: count)
        do {
            try await body(EventLoopTaskExecutor(group: group), Array(group.makeIterator()))
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    @Test("a job queued on one of the group's loops runs on that loop")
    func jobRunsOnTheLoopThatQueuedIt() async throws {
        try await withLoops(3) { executor, loops in
            let log = Log()
            for (index, loop) in loops.enumerated() {
                await onLoop(loop, expecting: 1) { finished in
                    Task(executorPreference: executor) {
                        await Task.yield()
                        log.add("\(index): \(isOn(loop))")
                        finished()
                    }
                }
            }
            #expect(log.all == ["0: true", "1: true", "2: true"])
        }
    }

    @Test("a job queued from outside the group runs on one of its loops")
    func jobFromOutsideRunsOnALoop() async throws {
        try await withLoops(2) { executor, loops in
            let onAny = await withTaskExecutorPreference(executor) {
                await Task.yield()
                return loops.contains { isOn($0) }
            }
            #expect(onAny)
        }
    }

    @Test("jobs above low priority run before low-priority jobs queued earlier")
    func newRequestsGoAheadOfAnswers() async throws {
        try await withLoops(1) { executor, loops in
            let lane = try #require(executor.executor(for: loops[0]))
            let log = Log()
            await onLoop(loops[0], expecting: 4) { finished in
                for (name, priority) in [("answer 1", TaskPriority.low), ("answer 2", .background), ("request 1", .medium), ("request 2", .high)] {
                    logJob(name, on: lane, priority: priority, log: log, finished: finished)
                }
            }
            #expect(log.all == ["request 1", "request 2", "answer 1", "answer 2"])
        }
    }

    @Test("a low-priority job is not starved: it runs after at most 16 jobs ahead of it in a row")
    func answersAreNotStarved() async throws {
        try await withLoops(1) { executor, loops in
            let lane = try #require(executor.executor(for: loops[0]))
            let log = Log()
            await onLoop(loops[0], expecting: 41) { finished in
                logJob("answer", on: lane, priority: .low, log: log, finished: finished)
                for index in 1...40 { logJob("request \(index)", on: lane, priority: .medium, log: log, finished: finished) }
            }
            #expect(log.all.firstIndex(of: "answer") == LoopExecutor.aheadInARow)
            #expect(log.all.count == 41)
        }
    }

    @Test("one job runs a loop tick: the loop's own work runs between two jobs")
    func loopWorkRunsBetweenJobs() async throws {
        try await withLoops(1) { executor, loops in
            let (loop, log) = (loops[0], Log())
            let lane = try #require(executor.executor(for: loop))
            await onLoop(loop, expecting: 3) { finished in
                for name in ["job 1", "job 2"] { logJob(name, on: lane, log: log, finished: finished) }
                loop.execute {
                    log.add("loop")
                    finished()
                }
            }
            #expect(log.all == ["job 1", "loop", "job 2"])
        }
    }

    @Test("a loop's executor runs its jobs on that loop, whoever queues them")
    func loopExecutorStaysOnItsLoop() async throws {
        try await withLoops(2) { executor, loops in
            for loop in loops {
                let lane = try #require(executor.executor(for: loop))
                let here = await withTaskExecutorPreference(lane) {
                    await Task.yield()
                    return isOn(loop)
                }
                #expect(here)
            }
            #expect(executor.executor(for: MultiThreadedEventLoopGroup.singleton.next()) == nil)
        }
    }

    @Test("a request, a task it starts and a deadline's work run on its connection's loop")
    func requestStaysOnItsConnectionsLoop() async throws {
        let executors = EventLoopTaskExecutor(group: MultiThreadedEventLoopGroup.singleton)
        let router = Router(context: SeekRequestContext.self)
        router.add(middleware: LoopAffinityMiddleware(executors: executors))
        router.get("where") { _, context -> String in
            guard let loop = context.eventLoop else { return "no loop" }
            let handler = isOn(loop)
            async let child = { () async -> Bool in
                await Task.yield()
                return isOn(loop)
            }()
            let raced = try await Deadline.race(.seconds(30)) {
                await Task.yield()
                return isOn(loop)
            }
            return "handler \(handler), child \(await child), deadline \(raced)"
        }
        // Quiet: Hummingbird's own logger would print at info on stdout.
        let application = Application(
            router: router, eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
            logger: Logger(label: "seek.test.loops", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await application.test(.live) { client in
            for _ in 0..<4 {
                try await client.execute(uri: "/where", method: .get) { response in
                    #expect(String(buffer: response.body) == "handler true, child true, deadline true")
                }
            }
        }
    }
}
