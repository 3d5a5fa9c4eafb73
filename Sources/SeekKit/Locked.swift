import NIOConcurrencyHelpers

/// A provider's shared state behind a lock (a pace, the calls waiting their turn, an open index).
///
/// The standard library's `Mutex` would do, but on Linux it waits in the kernel (a futex) inside a
/// library ThreadSanitizer does not see: when two threads contend, the sanitizer misses the hand-over
/// and reports the state's accesses as a race (`swift test --sanitize=thread`, a declared provider's
/// gate). This one locks a pthread mutex, which the sanitizer follows.
public final class Locked<Value: Sendable>: Sendable {
    @usableFromInline let box: NIOLockedValueBox<Value>

    public init(_ value: Value) {
        box = NIOLockedValueBox(value)
    }

    /// `body` with the state, under the lock; keep it short and never suspend in it.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try box.withLockedValue(body)
    }
}
