import Foundation

/// A value behind a lock, shared by tasks and threads: the project's one lock type.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux, Mutex waits on
/// a raw futex that ThreadSanitizer cannot see, so every correct use of it is reported as a race and
/// `swift test --sanitize=thread` could not find the real ones.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only ever read or written inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
