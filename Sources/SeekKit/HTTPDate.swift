import Foundation
import SeekCore

/// Parses HTTP dates (RFC 9110 IMF-fixdate, plus the obsolete RFC 850 and asctime forms).
public enum HTTPDate {
    /// The date `text` names, or nil when it is none of the three forms or no real date (a 31st of
    /// April, an hour 24). Read by hand, on bytes: a server's header must not cost a date formatter.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var imf = DateReader(bytes), rfc850 = DateReader(bytes), asctime = DateReader(bytes)
        return (imf.imfFixdate() ?? rfc850.rfc850() ?? asctime.asctime())?.date
    }

    public static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}

extension HTTPResponse {
    /// The longest `Retry-After` taken as said: a day. A server asking for longer (`9223372036854775806`,
    /// `1e19`, a date in the year 9999) gets a day; nobody waits on it longer than that anyway.
    public static let maxRetryAfterSeconds: Double = 86_400

    /// When a 429 or 503 asks to be called again (`now` plus its `Retry-After`), for the error a provider
    /// throws to carry to the circuit breaker; nil for other statuses or without a usable `Retry-After`.
    public func retryAfterDate(now: Date = Date()) -> Date? {
        guard status == 429 || status == 503, let seconds = retryAfter(now: now) else { return nil }
        return now + seconds
    }

    /// `Retry-After` in seconds from now (delta-seconds or an HTTP date), capped at `maxRetryAfterSeconds`.
    /// Nil when there is none or it is not a number ≥ 0 or a date (`-1`, `nan`, empty).
    public func retryAfter(now: Date = Date()) -> Double? {
        guard let value = header("retry-after")?.trimmed(), !value.isEmpty else { return nil }
        if let seconds = Double(value) {
            guard !seconds.isNaN, seconds >= 0 else { return nil }
            // `+ 0` turns -0 into 0; infinity and anything huge become the cap.
            return min(seconds, Self.maxRetryAfterSeconds) + 0
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds.isFinite else { return nil }
        return min(max(0, seconds), Self.maxRetryAfterSeconds)
    }
}

/// The fields of an HTTP date as written, checked to be a real calendar date and time.
private struct DateFields {
    var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int

    var date: Date? {
        guard (1...12).contains(month), day >= 1, day <= Self.days(in: month, of: year),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + min(second, 59)))
    }

    static func days(in month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Reads the three HTTP date forms from bytes, one field at a time.
private struct DateReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    mutating func imfFixdate() -> DateFields? {
        guard word(Self.dayNames) != nil, literal(", "), let day = digits(2), literal(" "), let month = month(),
              literal(" "), let year = digits(4), literal(" "), let time = time(), literal(" GMT"), atEnd
        else { return nil }
        return DateFields(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: a two-digit year is taken in 1970–2069.
    mutating func rfc850() -> DateFields? {
        guard word(Self.longDayNames) != nil, literal(", "), let day = digits(2), literal("-"), let month = month(),
              literal("-"), let short = digits(2), literal(" "), let time = time(), literal(" GMT"), atEnd
        else { return nil }
        let year = short < 70 ? 2000 + short : 1900 + short
        return DateFields(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2)
    }

    /// `Sun Nov  6 08:49:37 1994`
    mutating func asctime() -> DateFields? {
        guard word(Self.dayNames) != nil, literal(" "), let month = month(), literal(" ") else { return nil }
        let day: Int
        if literal(" "), let single = digits(1) { day = single } else if let double = digits(2) { day = double } else { return nil }
        guard literal(" "), let time = time(), literal(" "), let year = digits(4), atEnd else { return nil }
        return DateFields(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2)
    }

    private var atEnd: Bool { index == bytes.count }

    private mutating func time() -> (Int, Int, Int)? {
        guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2) else { return nil }
        return (hour, minute, second)
    }

    private mutating func month() -> Int? {
        word(Self.monthNames).map { $0 + 1 }
    }

    /// The index of the name in `names` that the text continues with (exact case, as RFC 9110 writes them).
    private mutating func word(_ names: [String]) -> Int? {
        for (position, name) in names.enumerated() where literal(name) { return position }
        return nil
    }

    private mutating func literal(_ text: String) -> Bool {
        let expected = Array(text.utf8)
        guard index + expected.count <= bytes.count, bytes[index..<(index + expected.count)].elementsEqual(expected) else { return false }
        index += expected.count
        return true
    }

    /// Exactly `count` ASCII digits as a number.
    private mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + count)] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }
}
