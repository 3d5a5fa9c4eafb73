import Foundation
import SeekCore
import SeekKit

/// The time source and sleep of the resilience decorators, injectable so tests of backoff
/// and rate limits run on a fake clock instead of sleeping for real.
public struct ResilienceClock: Sendable {
    /// Wall-clock time: state shared across processes (cool-downs, token buckets) is stored in it.
    public var now: @Sendable () -> Date
    /// Sleeps for a duration; throws `CancellationError` when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The real clock and `Task.sleep`.
    public static let system = ResilienceClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}

extension Duration {
    /// A duration from a number of seconds: negative values and NaN count as zero, huge ones and infinity
    /// as `Duration.clampingLimitSeconds` (see `seconds(clamping:)`), so no value can trap.
    static func seconds(double seconds: Double) -> Duration {
        .seconds(clamping: seconds)
    }
}
