@testable import SeekWeb
import Testing

/// Query parameters as HTML forms write them.
@Suite("Query parameters")
struct ParametersTests {
    @Test("+ is a space, %XX a byte of UTF-8, %2B a plus; plain values pass as they are", arguments: [
        ("q=the+lord+of+the+rings", "the lord of the rings"),
        ("q=%ED%95%9C%EA%B0%95", "한강"),
        ("q=c%2B%2B+primer", "c++ primer"),
        ("q=harbor", "harbor"),
        ("q=100%25", "100%"),
        ("q=%zz", "%zz"),
    ])
    func decoding(_ query: String, _ expected: String) {
        #expect(Parameters(query: query).values["q"] == expected)
    }

    @Test("the first of a repeated name wins, and a name without a value is empty")
    func repeatedAndEmpty() {
        let parameters = Parameters(query: "q=one&q=two&explain&limit=5")
        #expect(parameters.values["q"] == "one")
        #expect(parameters.values["explain"] == "")
        #expect(parameters.values["limit"] == "5")
    }

    @Test("a raw character that joins the next (U+0600) hides no & or = after it")
    func joiningCharacterBeforeSeparator() {
        let parameters = Parameters(query: "q=a\u{600}&providers=giphy&x\u{600}=1")
        #expect(parameters.values["q"] == "a\u{600}")
        #expect(parameters.values["providers"] == "giphy")
        #expect(parameters.values["x\u{600}"] == "1")
    }
}
