import Foundation
import SeekHTTP
import Testing

private func retryAfter(_ value: String, now: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> Double? {
    HTTPResponse(status: 429, headers: ["Retry-After": value]).retryAfter(now: now)
}

@Suite("Retry-After is bounded where it is parsed")
struct RetryAfterBoundsTests {
    @Test("delta-seconds past a day are capped at a day", arguments: [
        "9223372036854775806", "9223372036854775808", "1e19", "1e300", "inf", "Infinity", "86401",
        "99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999",
    ])
    func hugeValuesAreCapped(value: String) {
        #expect(retryAfter(value) == HTTPResponse.maxRetryAfterSeconds)
        #expect(HTTPResponse.maxRetryAfterSeconds == 86_400)
    }

    @Test("negative, NaN, empty and non-numeric values are no Retry-After", arguments: ["-1", "-1e19", "nan", "NaN", "", "  ", "soon"])
    func invalidValuesAreIgnored(value: String) {
        #expect(retryAfter(value) == nil)
    }

    @Test("-0 is zero, and a plain number is taken as it is")
    func ordinaryValues() {
        #expect(retryAfter("-0") == 0)
        #expect(retryAfter("-0")?.sign == .plus)
        #expect(retryAfter("30") == 30)
        #expect(retryAfter("2.5") == 2.5)
    }

    @Test("an HTTP date in the year 9999 is capped at a day; one in the past is zero")
    func dates() {
        #expect(retryAfter("Fri, 31 Dec 9999 23:59:59 GMT") == 86_400)
        #expect(retryAfter("Sun, 06 Nov 1994 08:49:37 GMT") == 0)
    }
}
