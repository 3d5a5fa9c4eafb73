import Foundation

/// A task executor on one thread of its own, for tests that must tell what ran at once on the
/// caller's thread from what was queued to run later: `onEnqueue` is called for every job queued.
/// Call `stop()` when done; the thread ends once its queue is empty.
public final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `running` and `thread` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var running = true
    private var thread: pthread_t?
    private let onEnqueue: @Sendable () -> Void

    public init(onEnqueue: @escaping @Sendable () -> Void = {}) {
        self.onEnqueue = onEnqueue
        Thread { [self] in run() }.start()
        condition.lock()
        while thread == nil { condition.wait() }
        condition.unlock()
    }

    /// Whether the calling code runs on this executor's thread.
    public var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let thread else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        onEnqueue()
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the thread once the jobs queued so far have run.
    public func stop() {
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        thread = pthread_self()
        condition.broadcast()
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty, running { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
