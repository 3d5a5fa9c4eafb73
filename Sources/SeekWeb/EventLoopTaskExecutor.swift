import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization

/// Runs the server's tasks on the event loops that serve its connections, so a miss is not handed
/// from thread to thread and back (issue 30: a quarter of its CPU was those hand-offs). A
/// connection's task runs on the loop that queued its job (the loop its request arrived on);
/// `LoopAffinityMiddleware` keeps each request, and the tasks it starts, on its connection's loop
/// (`executor(for:)`). Jobs queued from outside the group's loops go to the loops in turn.
///
/// Each loop keeps two queues: jobs above `.low` priority (new requests) run before jobs at `.low`
/// or below (answers being processed, which `SearchEngine` runs at `.low`), so new requests send
/// their calls first. One job runs a loop tick, so the loop's I/O is served between jobs.
package final class EventLoopTaskExecutor: TaskExecutor {
    /// The group's loops' executors, in the group's order (never empty: a group has a loop).
    private let lanes: [LoopExecutor]
    private let laneOfLoop: [ObjectIdentifier: LoopExecutor]
    /// Which lane gets the next job queued from outside the group's loops.
    private let turn = Atomic<Int>(0)

    package init(group: MultiThreadedEventLoopGroup) {
        let lanes = group.makeIterator().map(LoopExecutor.init)
        self.lanes = lanes.isEmpty ? [LoopExecutor(loop: group.next())] : lanes
        laneOfLoop = Dictionary(self.lanes.map { (ObjectIdentifier($0.loop), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The executor that runs every job on `loop`, when it is one of the group's.
    package func executor(for loop: any EventLoop) -> LoopExecutor? {
        laneOfLoop[ObjectIdentifier(loop)]
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        lane().enqueue(UnownedJob(job), on: asUnownedTaskExecutor())
    }

    /// The calling thread's loop when it is one of the group's, the next in turn otherwise.
    private func lane() -> LoopExecutor {
        if let loop = MultiThreadedEventLoopGroup.currentEventLoop, let lane = laneOfLoop[ObjectIdentifier(loop)] { return lane }
        let index = turn.wrappingAdd(1, ordering: .relaxed).oldValue
        return lanes[Int(index.magnitude % UInt(lanes.count))]
    }
}

/// Runs every job on one event loop, jobs above `.low` priority before those at `.low` or below,
/// one a loop tick. Part of `EventLoopTaskExecutor`; the jobs of both share this queue.
///
/// A job behind is never starved: after `aheadInARow` jobs ahead in a row, one job behind runs. An
/// overloaded server still answers the requests it started, slower, instead of only starting new ones.
package final class LoopExecutor: TaskExecutor {
    private struct Queued {
        let job: UnownedJob
        /// The executor the job was queued on, which it runs as.
        let executor: UnownedTaskExecutor
    }

    private struct Queues {
        /// Jobs above `.low` priority, first in first out.
        var ahead = CircularBuffer<Queued>()
        /// Jobs at `.low` priority or below, run when `ahead` is empty or has had its turn.
        var behind = CircularBuffer<Queued>()
        /// Whether a `run` is queued on the loop.
        var draining = false
        /// Jobs run from `ahead` in a row while `behind` waited.
        var aheadRun = 0

        mutating func next() -> Queued? {
            if behind.isEmpty || aheadRun < LoopExecutor.aheadInARow, let queued = ahead.popFirst() {
                aheadRun = behind.isEmpty ? 0 : aheadRun + 1
                return queued
            }
            aheadRun = 0
            return behind.popFirst()
        }
    }

    /// How many jobs ahead may run in a row while jobs behind wait.
    static let aheadInARow = 16

    let loop: any EventLoop
    private let queues = NIOLockedValueBox(Queues())

    init(loop: any EventLoop) { self.loop = loop }

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueue(UnownedJob(job), on: asUnownedTaskExecutor())
    }

    func enqueue(_ job: UnownedJob, on executor: UnownedTaskExecutor) {
        let queued = Queued(job: job, executor: executor)
        let behind = job.priority.rawValue <= TaskPriority.low.rawValue
        let start = queues.withLockedValue { queues in
            if behind { queues.behind.append(queued) } else { queues.ahead.append(queued) }
            defer { queues.draining = true }
            return !queues.draining
        }
        if start { loop.execute { self.run() } }
    }

    /// Runs the first queued job, then queues itself for the loop's next tick while jobs are left.
    private func run() {
        let next = queues.withLockedValue { queues -> Queued? in
            if let queued = queues.next() { return queued }
            queues.draining = false
            return nil
        }
        guard let next else { return }
        next.job.runSynchronously(on: next.executor)
        loop.execute { self.run() }
    }
}
