import Foundation
import SeekCore
import SeekKit

/// Google's error body, `{"error": {"code", "message", "errors": [{"reason"}], "status", "details": [{"reason"}]}}`,
/// every member optional (reference §7), read for what failed: the reason decides, not only the status.
struct GoogleBooksError {
    let status: Int
    let message: String?
    /// `errors[].reason` and `details[].reason`, plus the gRPC `status`: `badRequest`, `API_KEY_INVALID`,
    /// `rateLimitExceeded`, `RESOURCE_EXHAUSTED`, `invalidParameter`, `accessNotConfigured`…
    let reasons: [String]

    init(status: Int, body: JSONValue?) {
        self.status = status
        let error = body?["error"]
        message = error?["message"]?.stringValue.map { $0.replacingAll("\n", with: " ").trimmed() }.flatMap { $0.isEmpty ? nil : $0 }
        var reasons: [String] = []
        for list in [error?["errors"], error?["details"]] {
            for entry in list?.arrayValue ?? [] {
                if let reason = entry["reason"]?.stringValue, !reason.isEmpty { reasons.append(reason) }
            }
        }
        if let grpc = error?["status"]?.stringValue, !grpc.isEmpty { reasons.append(grpc) }
        self.reasons = reasons
    }

    enum Cause: Equatable {
        /// A daily quota is spent: nothing passes until Google's daily reset, so no retry before it.
        case dailyQuota
        /// A per-minute (or other short) quota: worth a try in a minute.
        case shortQuota
        case badKey
        case notFound
        case badRequest
        case other
    }

    var cause: Cause {
        let said = (message ?? "").lowercased()
        let reasonSet = Set(reasons.map { $0.lowercased() })
        let daily = said.contains("per day") || reasonSet.contains("dailylimitexceeded")
            || reasonSet.contains("dailylimitexceededunreg")
        let quota = daily || reasonSet.contains("ratelimitexceeded") || reasonSet.contains("resource_exhausted")
            || reasonSet.contains("userratelimitexceeded") || reasonSet.contains("quotaexceeded")
            || said.contains("quota exceeded")
        // A quota named in the body wins over the status: tome reports a spent keyed quota as a 400.
        if daily { return .dailyQuota }
        if quota || status == 429 { return .shortQuota }
        if reasonSet.contains("api_key_invalid") || reasonSet.contains("keyinvalid") || reasonSet.contains("keyexpired")
            || said.contains("api key not valid") || said.contains("api key expired") {
            return .badKey
        }
        switch status {
        case 401: return .badKey
        case 403:
            let refused = ["accessnotconfigured", "permission_denied", "forbidden", "iprefererblocked", "api_key_service_blocked"]
            return refused.contains(where: reasonSet.contains) || said.contains("has not been used") ? .badKey : .other
        case 404, 410: return .notFound
        case 400: return .badRequest
        default: return .other
        }
    }

    /// The typed error, naming Google Books and what it said. A daily quota cools the provider down until
    /// the next midnight Pacific time (`dailyReset`); Google sends no `Retry-After`.
    func seekError(response: HTTPResponse, url: URL, now: Date, dailyReset: (Date) -> Date) -> SeekError {
        let said = message ?? {
            let snippet = response.snippet()
            return snippet.isEmpty ? "no message" : snippet
        }()
        let why = reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))"
        let prefix = "Google Books answered HTTP \(status)\(why): \(said)"
        let place = " (\(Redaction.redact(url: url)))"
        switch cause {
        case .dailyQuota:
            let reset = dailyReset(now)
            let seconds = max(1, reset.timeIntervalSince(now).rounded(.up))
            return SeekError(
                .rateLimited(retryAfterSeconds: seconds), provider: GoogleBooksProvider.id,
                detail: prefix + "; the daily quota resets at midnight Pacific time" + place, retryAfter: reset)
        case .shortQuota:
            let seconds = response.retryAfter(now: now) ?? 60
            return SeekError(
                .rateLimited(retryAfterSeconds: seconds), provider: GoogleBooksProvider.id,
                detail: prefix + place, retryAfter: now + seconds)
        case .badKey:
            return SeekError(
                .unauthorized, provider: GoogleBooksProvider.id,
                detail: prefix + "; check \(GoogleBooksProvider.keyVariable)" + place)
        case .notFound:
            return SeekError(.notFound, provider: GoogleBooksProvider.id, detail: prefix + place)
        case .badRequest, .other:
            return SeekError(.httpStatus(status), provider: GoogleBooksProvider.id, detail: prefix + place)
        }
    }

    /// The next midnight in Pacific time after `now` (when Google's daily quotas reset); 08:00 UTC
    /// when the time zone database is missing.
    static func nextPacificMidnight(after now: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "America/Los_Angeles") ?? TimeZone(secondsFromGMT: -8 * 3600) ?? .gmt
        let startOfDay = calendar.startOfDay(for: now)
        return calendar.date(byAdding: .day, value: 1, to: startOfDay) ?? now + 86_400
    }
}
