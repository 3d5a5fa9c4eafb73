import Foundation
import NIOConcurrencyHelpers
import SeekSupport
import Testing

@Suite("Deadline timers: one thread, woken only for the earliest")
struct DeadlineTimersTests {
    /// Times at which each named timer fired, in firing order.
    final class Firings: Sendable {
        let names = NIOLockedValueBox<[String]>([])
        func record(_ name: String) { names.withLockedValue { $0.append(name) } }
        var fired: [String] { names.withLockedValue { $0 } }
    }

    func waitUntil(_ condition: () -> Bool) async throws {
        let clock = ContinuousClock(), start = clock.now
        while !condition(), clock.now - start < .seconds(5) { try await Task.sleep(for: .milliseconds(2)) }
    }

    /// The kernel's id of the calling thread: `/proc/thread-self` links to `<pid>/task/<tid>`.
    static func currentThreadID() -> Int32? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))
            .flatMap { $0.split(separator: "/").last }.flatMap { Int32($0) }
    }

    /// The name of thread `tid` of this process (its `comm`), or nil once the thread has ended.
    func threadName(_ tid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("the timers' thread carries its name, and stopping ends it without firing what was armed")
    func stopEndsNamedThread() async throws {
        try #require(FileManager.default.fileExists(atPath: "/proc/self/task"), "needs Linux's /proc")
        // This instance's own thread, known by the id it reports from a timer it fires: other tests'
        // timers (and `shared`) start and end threads of the same name meanwhile.
        let timers = DeadlineTimers(), firings = Firings()
        let thread = NIOLockedValueBox<Int32?>(nil)
        _ = timers.schedule(after: 0) {
            thread.withLockedValue { $0 = Self.currentThreadID() }
            firings.record("probe")
        }
        try await waitUntil { thread.withLockedValue { $0 } != nil }
        let tid = try #require(thread.withLockedValue { $0 })
        #expect(threadName(tid) == "seek.deadlines")
        _ = timers.schedule(after: 3_600_000_000_000) { firings.record("an hour") }
        timers.stop()
        #expect(timers.pendingCount == 0)
        _ = timers.schedule(after: 0) { firings.record("after stop") }
        #expect(timers.pendingCount == 0)
        try await waitUntil { threadName(tid) == nil }
        #expect(threadName(tid) == nil, "thread \(tid) still runs after stop()")
        // The thread has ended: nothing armed can fire any more.
        #expect(firings.fired == ["probe"])
    }

    @Test("timers fire in the order they fall due, not the order they were armed")
    func firesInDueOrder() async throws {
        let timers = DeadlineTimers(), firings = Firings()
        defer { timers.stop() }
        _ = timers.schedule(after: 60_000_000) { firings.record("late") }
        _ = timers.schedule(after: 20_000_000) { firings.record("early") }
        _ = timers.schedule(after: 40_000_000) { firings.record("middle") }
        try await waitUntil { firings.fired.count == 3 }
        #expect(firings.fired == ["early", "middle", "late"])
        #expect(timers.pendingCount == 0)
    }

    @Test("a timer armed after a later one, and due before it, wakes the sleeping thread")
    func earlierTimerWakesThread() async throws {
        let timers = DeadlineTimers(), firings = Firings()
        defer { timers.stop() }
        let far = timers.schedule(after: 3_600_000_000_000) { firings.record("an hour") }
        try await Task.sleep(for: .milliseconds(20))  // the thread now sleeps until the hour
        let clock = ContinuousClock(), start = clock.now
        _ = timers.schedule(after: 10_000_000) { firings.record("soon") }
        try await waitUntil { !firings.fired.isEmpty }
        #expect(firings.fired == ["soon"])
        #expect(clock.now - start < .seconds(2))
        timers.cancel(far)
        #expect(timers.pendingCount == 0)
    }

    @Test("a cancelled timer never fires, and cancelling twice or an unknown timer is harmless")
    func cancelledNeverFires() async throws {
        let timers = DeadlineTimers(), firings = Firings()
        defer { timers.stop() }
        let cancelled = timers.schedule(after: 10_000_000) { firings.record("cancelled") }
        _ = timers.schedule(after: 30_000_000) { firings.record("kept") }
        timers.cancel(cancelled)
        timers.cancel(cancelled)
        timers.cancel(999_999)
        try await waitUntil { !firings.fired.isEmpty }
        try await Task.sleep(for: .milliseconds(30))
        #expect(firings.fired == ["kept"])
    }

    @Test("a zero or past-due timer fires at once, and the largest interval does not overflow")
    func extremeIntervals() async throws {
        let timers = DeadlineTimers(), firings = Firings()
        defer { timers.stop() }
        let never = timers.schedule(after: UInt64.max) { firings.record("never") }
        _ = timers.schedule(after: 0) { firings.record("now") }
        try await waitUntil { !firings.fired.isEmpty }
        #expect(firings.fired == ["now"])
        #expect(timers.pendingCount == 1)
        timers.cancel(never)
        #expect(timers.pendingCount == 0)
    }

    @Test("timers armed and cancelled from many tasks at once leave the heap consistent")
    func concurrentArmAndCancel() async throws {
        let timers = DeadlineTimers(), firings = Firings()
        defer { timers.stop() }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<500 {
                        // Spread due times so the heap reorders; cancel most, let a few fire.
                        let id = timers.schedule(after: UInt64((task * 500 + step) % 97) * 100_000 + 20_000_000) {
                            firings.record("\(task)-\(step)")
                        }
                        if step % 50 != 0 { timers.cancel(id) }
                    }
                }
            }
        }
        let kept = Set((0..<8).flatMap { task in stride(from: 0, to: 500, by: 50).map { "\(task)-\($0)" } })
        try await waitUntil { Set(firings.fired).isSuperset(of: kept) }
        #expect(Set(firings.fired).isSuperset(of: kept))
        #expect(Set(firings.fired).count == firings.fired.count)  // none fired twice
        #expect(timers.pendingCount == 0)
    }
}
