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

    /// Parses `2`, `2/s`, `100/h`, `5000/d`, `30/60` (per 60 seconds), each optionally followed by
    /// `,burst=N`. `off`, `none` and `0` mean no limit (`.some(nil)`); anything else is nil, numbers
    /// outside `maxRequests` and `maxPeriodSeconds` (or NaN, infinity) included.
    public static func parse(_ text: String) -> RateLimit?? {
        let parts = text.lowercased().split(separator: ",").map { $0.trimmed() }
        guard let head = parts.first, !head.isEmpty else { return nil }
        if ["off", "none", "0", "unlimited"].contains(head) { return .some(nil) }
        var burst: Double?
        for extra in parts.dropFirst() {
            let pair = extra.split(separator: "=", maxSplits: 1).map { $0.trimmed() }
            guard pair.count == 2, pair[0] == "burst", let value = Double(pair[1]), value >= 1, value <= maxRequests else { return nil }
            burst = value
        }
        let fraction = head.split(separator: "/", maxSplits: 1).map { $0.trimmed() }
        guard let first = fraction.first, let requests = Double(first), requests > 0, requests <= maxRequests else { return nil }
        var seconds = 1.0
        if fraction.count == 2 {
            switch fraction[1] {
            case "s", "sec", "second": seconds = 1
            case "m", "min", "minute": seconds = 60
            case "h", "hour": seconds = 3600
            case "d", "day": seconds = 86_400
            default:
                guard let value = Double(fraction[1]), value > 0, value <= maxPeriodSeconds else { return nil }
                seconds = value
            }
        }
        return .some(RateLimit(requests: requests, per: .seconds(clamping: seconds), burst: burst))
    }
}
