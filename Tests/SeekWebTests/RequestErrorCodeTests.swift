import SeekRuntime
import Testing

/// `RequestErrorCode` is a struct over a private enum (issue 51): the API's `error.code` strings are
/// unchanged, and a string that is not a code reads as nil.
@Suite("The session's refusal codes")
struct RequestErrorCodeTests {
    static let codes: [(code: RequestErrorCode, raw: String)] = [
        (.missingParameter, "missing_parameter"), (.invalidParameter, "invalid_parameter"),
        (.unknownProvider, "unknown_provider"), (.invalidCursor, "invalid_cursor"), (.invalidID, "invalid_id"),
    ]

    @Test("every code keeps its API string, as raw value and description, and reads back from it")
    func stableStrings() {
        for (code, raw) in Self.codes {
            #expect(code.rawValue == raw)
            #expect(code.description == raw)
            #expect("\(code)" == raw)
            #expect(RequestErrorCode(rawValue: raw) == code)
        }
        #expect(RequestErrorCode.allCases == Self.codes.map(\.code))
        #expect(Set(RequestErrorCode.allCases).count == Self.codes.count)
    }

    @Test("a string that is not a code reads as nil", arguments: [
        "", "invalidParameter", "INVALID_PARAMETER", " invalid_parameter", "not_found", "internal",
    ])
    func unknown(raw: String) {
        #expect(RequestErrorCode(rawValue: raw) == nil)
    }
}
