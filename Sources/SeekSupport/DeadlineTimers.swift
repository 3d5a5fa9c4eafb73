import Dispatch
import Foundation

/// The timers of every `Deadline.race`, on one thread of their own. Arming or cancelling a timer only
/// takes a lock. The thread is woken only when a new timer falls due before every other one, and it
/// sleeps without a timeout when none is set.
///
/// A `DispatchSourceTimer` per race woke dispatch's manager thread twice per race: once when armed and
/// once when cancelled. A search races seven times (the route, and each provider's call and its HTTP
/// exchange), and on a busy server each of those wake-ups preempted a cooperative thread
/// (BENCHMARKS.md, issue 30).
package final class DeadlineTimers: @unchecked Sendable {
    // @unchecked Sendable: every stored property below `condition` is read and written only while
    // `condition` is locked; handlers run after it is unlocked.

    /// The process's timers.
    package static let shared = DeadlineTimers()

    private struct Timer {
        let due: UInt64
        let id: UInt64
        let handler: @Sendable () -> Void

        func precedes(_ other: Timer) -> Bool { (due, id) < (other.due, other.id) }
    }

    private let condition = NSCondition()
    /// A min-heap by due time; `positions` finds a timer in it, so a cancelled one leaves at once.
    private var heap: [Timer] = []
    private var positions: [UInt64: Int] = [:]
    private var nextID: UInt64 = 0
    private var threadStarted = false
    private var stopped = false

    package init() {}

    /// The longest the thread sleeps before looking again, in nanoseconds.
    private static let longestWait: UInt64 = 3_600_000_000_000

    /// Timers armed and neither fired nor cancelled.
    package var pendingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return heap.count
    }

    /// Calls `handler` on the timers' thread once `nanoseconds` have passed, unless `cancel` comes first.
    /// Keep `handler` short: it holds up every later timer.
    package func schedule(after nanoseconds: UInt64, _ handler: @escaping @Sendable () -> Void) -> UInt64 {
        let (sum, overflow) = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(nanoseconds)
        let due = overflow ? UInt64.max : sum
        condition.lock()
        defer { condition.unlock() }
        if !threadStarted, !stopped {
            threadStarted = true
            Thread { [self] in run() }.start()
        }
        let id = nextID
        nextID &+= 1
        guard !stopped else { return id }
        push(Timer(due: due, id: id, handler: handler))
        if heap.first?.id == id { condition.signal() }
        return id
    }

    /// Drops timer `id` if it has not fired; its handler will not be called.
    package func cancel(_ id: UInt64) {
        condition.lock()
        defer { condition.unlock() }
        guard let position = positions[id] else { return }
        remove(at: position)
    }

    /// Ends the thread and drops every timer, for instances that do not live as long as the process
    /// (tests); timers armed after it never fire. The timers of `shared` run for the process's life.
    package func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        heap.removeAll()
        positions.removeAll()
        condition.signal()
    }

    /// The timers' thread: fires what is due, then sleeps until the next timer or a new earliest one.
    private func run() {
        // Named from the thread itself: on Linux, Foundation does not pass on a name set before `start()`.
        Thread.current.name = "seek.deadlines"
        condition.lock()
        while !stopped {
            guard let first = heap.first else {
                condition.wait()
                continue
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if first.due <= now {
                remove(at: 0)
                condition.unlock()
                first.handler()
                condition.lock()
            } else {
                // At most an hour at a time: Foundation cannot wait until a date centuries away.
                let wait = min(first.due - now, Self.longestWait)
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(wait) / 1e9))
            }
        }
        condition.unlock()
    }

    // MARK: The heap (callers hold the lock)

    private func push(_ timer: Timer) {
        heap.append(timer)
        positions[timer.id] = heap.count - 1
        siftUp(heap.count - 1)
    }

    private func remove(at position: Int) {
        let last = heap.count - 1
        positions[heap[position].id] = nil
        if position != last {
            heap[position] = heap[last]
            positions[heap[position].id] = position
        }
        heap.removeLast()
        guard position < heap.count else { return }
        siftDown(position)
        siftUp(position)
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            swapAt(parent, first)
            parent = first
        }
    }

    private func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        positions[heap[a].id] = a
        positions[heap[b].id] = b
    }
}
