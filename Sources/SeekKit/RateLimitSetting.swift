import SeekCore

/// A rate limit as a setting gives it (`SEEK_<PROVIDER>_RATE`, a declaration's `rate`, the public
/// instance's visitor rates).
extension RateLimit {
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
            guard pair.count == 2, pair[0] == "burst", let value = Double(pair[1]), value >= 1, value <= RateLimit.maxRequests else { return nil }
            burst = value
        }
        let fraction = head.split(separator: "/", maxSplits: 1).map { $0.trimmed() }
        guard let first = fraction.first, let requests = Double(first), requests > 0, requests <= RateLimit.maxRequests else { return nil }
        var seconds = 1.0
        if fraction.count == 2 {
            switch fraction[1] {
            case "s", "sec", "second": seconds = 1
            case "m", "min", "minute": seconds = 60
            case "h", "hour": seconds = 3600
            case "d", "day": seconds = 86_400
            default:
                guard let value = Double(fraction[1]), value > 0, value <= RateLimit.maxPeriodSeconds else { return nil }
                seconds = value
            }
        }
        return .some(RateLimit(requests: requests, per: .seconds(clamping: seconds), burst: burst))
    }
}
