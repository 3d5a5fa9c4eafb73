import Foundation

/// A request rate: `requests` per `per`, with up to `burst` sent back to back.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var requests: Double
    public var per: Duration
    /// Requests that may go at once after a quiet spell (the bucket's capacity).
    public var burst: Double

    /// The bounds `parse` accepts: at most a million requests (or a burst of a million) per period, and a
    /// period of at most a year. Past them a setting is a mistake, not a rate.
    public static let maxRequests: Double = 1_000_000
    public static let maxPeriodSeconds: Double = 365 * 86_400

    /// Without `burst`, a per-second rate is strict spacing (like nginx's `limit_req` without burst) and a
    /// quota over a longer period (100 an hour) may be spent at once. Values are clamped to the bounds
    /// `parse` accepts (NaN counts as the smallest), so none can make the bucket's arithmetic trap.
    public init(requests: Double, per: Duration = .seconds(1), burst: Double? = nil) {
        let requests = Self.clamp(requests, 0.000_001, Self.maxRequests)
        self.requests = requests
        self.per = per > .zero ? min(per, .seconds(clamping: Self.maxPeriodSeconds)) : .seconds(1)
        self.burst = Self.clamp(burst ?? (per <= .seconds(1) ? 1 : requests), 1, Self.maxRequests)
    }

    private static func clamp(_ value: Double, _ lower: Double, _ upper: Double) -> Double {
        value.isNaN ? lower : min(max(value, lower), upper)
    }

    /// Tokens per second.
    public var ratePerSecond: Double { requests / per.seconds }

    public var description: String {
        let count = SeekError.format(requests)
        let unit: String
        switch per.seconds {
        case 1: unit = "second"
        case 60: unit = "minute"
        case 3600: unit = "hour"
        case 86_400: unit = "day"
        default: unit = "\(SeekError.format(per.seconds)) seconds"
        }
        let burstText = burst > 1 && burst != requests ? ", bursts of \(SeekError.format(burst))" : ""
        return "\(count) \(requests == 1 ? "request" : "requests") per \(unit)\(burstText)"
    }
}
