/// Checked conversions for numbers that come from outside (flags, environment, config files, HTTP
/// headers, cursors, JSON): Swift traps when a `Double` that is NaN, infinite or past `Int.max` is
/// converted with `Int(_:)` or `Int64(_:)`, so every such conversion goes through one of these.
extension Int {
    /// `value` rounded toward zero, or nil when it is NaN, infinite or outside ±2^53 (where a `Double`
    /// no longer holds every whole number, and far past anything seek counts).
    public init?(checked value: Double) {
        guard value.isFinite, Swift.abs(value) <= 9_007_199_254_740_992 else { return nil }
        self.init(value.rounded(.towardZero))
    }

    /// `value` rounded toward zero and clamped to ±2^53; NaN is 0. For display and counters only:
    /// a value that must be in range is checked where it enters instead.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else {
            self.init(Swift.min(Swift.max(value, -9_007_199_254_740_992), 9_007_199_254_740_992).rounded(.towardZero))
        }
    }
}

extension Duration {
    /// The longest duration `seconds(clamping:)` makes: 100 years, far below where `Int64`
    /// nanoseconds overflow (292 years).
    public static let clampingLimitSeconds: Double = 100 * 365.25 * 86_400

    /// A duration of `seconds`, clamped to `0...maximum` (at most `clampingLimitSeconds`); NaN and
    /// negative values (-0 included) are zero. Never traps, whatever the value.
    public static func seconds(clamping seconds: Double, maximum: Double = clampingLimitSeconds) -> Duration {
        let ceiling = Swift.min(Swift.max(0, maximum.isNaN ? 0 : maximum), clampingLimitSeconds)
        guard seconds.isFinite else { return seconds == .infinity ? .nanoseconds(Int64(ceiling * 1e9)) : .zero }
        let bounded = Swift.min(Swift.max(seconds, 0), ceiling)
        return .nanoseconds(Int64((bounded * 1e9).rounded()))
    }

    /// Whole milliseconds, clamped to ±2^53 (a measured or validated duration is far inside).
    public var wholeMilliseconds: Int {
        Int(saturating: (seconds * 1000).rounded())
    }
}

/// The size of a search when nothing names it: the engine's defaults (`SearchOptions`,
/// `SearchRequest`) and every host's (`SeekSession.defaultLimit`) are this one value.
public enum SearchBounds {
    /// Results asked of each provider when a request names no limit.
    public static let defaultLimit = 20
}
