import NIOConcurrencyHelpers
import SeekSupport

/// A deadline that does not wait for the work it abandons.
public enum Deadline {
    /// Runs `operation` in a task of its own and returns its result, or throws `.timeout` when `limit`
    /// passes first — cancelling the task at once rather than waiting for it to wind down.
    ///
    /// The task starts at once, on the calling thread, and runs there until it first suspends: a
    /// provider call sends its request before any work already queued runs, however busy the
    /// threads are (issue 30). The deadline cannot stop that synchronous start, as it could not stop
    /// any synchronous code; it covers everything from the first suspension on.
    public static func race<T: Sendable>(
        _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let gate = Gate<T>()
        let executor = ServingExecutor.current
        let body: @Sendable () async -> Void = {
            do { gate.finish(.success(try await operation())) } catch { gate.finish(.failure(error)) }
        }
        let work: Task<Void, Never>
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            work = Task.immediate(executorPreference: executor, operation: body)
        } else {
            work = Task(executorPreference: executor, operation: body)
        }
        // A timer, not a sleeping task: a cancelled `Task.sleep` resumes at once, but its timer stays
        // queued until the time it named, holding the task's memory. With a request deadline of 60 s a
        // busy server held a minute of requests (issue 30); a cancelled timer is gone at once.
        // The timeout goes through the executor like the work does, so it lands behind work that was
        // ready before it: on a busy pool, work that finished in time is not reported as timed out.
        let timers = DeadlineTimers.shared
        let timer = timers.schedule(after: nanoseconds(limit)) {
            Task(executorPreference: executor) { gate.finish(.failure(SeekError(.timeout(seconds: limit.seconds)))) }
        }
        defer {
            work.cancel()
            timers.cancel(timer)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in gate.wait(continuation) }
        } onCancel: {
            gate.finish(.failure(CancellationError()))
        }
    }

    /// `limit` in nanoseconds for a timer: negative is now, and anything past a year is a year.
    package static func nanoseconds(_ limit: Duration) -> UInt64 {
        let (seconds, attoseconds) = limit.components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
        let year: Int64 = 365 * 86_400
        guard seconds < year else { return UInt64(year) * 1_000_000_000 }
        return UInt64(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The first result wins; it resumes the waiting continuation exactly once.
    private final class Gate<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var result: Result<T, any Error>?
            var resumed = false
        }
        private let state = NIOLockedValueBox(State())

        func wait(_ continuation: CheckedContinuation<T, any Error>) {
            let ready: Result<T, any Error>? = state.withLockedValue { state in
                guard let result = state.result, !state.resumed else {
                    state.continuation = continuation
                    return nil
                }
                state.resumed = true
                return result
            }
            if let ready { continuation.resume(with: ready) }
        }

        func finish(_ result: Result<T, any Error>) {
            let waiting: CheckedContinuation<T, any Error>? = state.withLockedValue { state in
                guard state.result == nil else { return nil }
                state.result = result
                guard let continuation = state.continuation else { return nil }
                state.continuation = nil
                state.resumed = true
                return continuation
            }
            waiting?.resume(with: result)
        }
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
