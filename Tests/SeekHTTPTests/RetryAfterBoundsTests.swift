import Foundation
import SeekKit
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

@Suite("HTTP dates: the three forms of RFC 9110, read by hand")
struct HTTPDateParsingTests {
    @Test("the three forms of one instant parse to it", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func threeForms(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("dates across leap years, centuries and the far future are exact")
    func calendar() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 23:59:59 GMT") == Date(timeIntervalSince1970: 951_868_799))
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == Date(timeIntervalSince1970: 253_402_300_799))
        #expect(HTTPDate.parse("Wed, 31 Dec 1969 23:59:59 GMT") == Date(timeIntervalSince1970: -1))
        #expect(HTTPDate.parse("Monday, 01-Jan-69 00:00:00 GMT") == Date(timeIntervalSince1970: 3_124_224_000))
    }

    @Test("a date written back by format(_:) parses to the same second")
    func roundTrip() {
        let now = Date(timeIntervalSince1970: 1_795_646_000)
        #expect(HTTPDate.parse(HTTPDate.format(now)) == now)
    }

    @Test("anything else is no date", arguments: [
        "", "GMT", "Sun, 31 Apr 2025 08:49:37 GMT", "Sat, 29 Feb 2025 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37 GMT trailing", "sun, 06 nov 1994 08:49:37 gmt", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:3", "Sun Nov 6 08:49:37 1994", "１９９４",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{0}",
    ])
    func notDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    /// Not an argument of `notDates`: the test log writes out every argument.
    @Test("50,000 characters are no date")
    func hugeIsNoDate() {
        #expect(HTTPDate.parse(String(repeating: "Sun, ", count: 10_000)) == nil)
    }
}
