@testable import SeekCore
import SeekKit
import SeekLoopback
import Testing

@Suite("ISBN")
struct ISBNTests {
    @Test("bare digits, with upper-case X's, are clean as they are: the full cleaning gives them back unchanged")
    func bareDigitsAreClean() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789X".utf8)
        for length in [1, 9, 10, 12, 13, 14, 40] {
            for _ in 0..<200 {
                let text = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0x30 }, as: UTF8.self)
                #expect(ISBN.clean(text) == text)
                #expect(ISBN.cleanedInFull(text) == text)
            }
        }
        #expect(ISBN.clean("030640615x") == "030640615X")  // a lower-case x is not bare: it is uppercased
        #expect(ISBN.clean("") == "")
    }

    @Test("hyphens, spaces and an ISBN prefix are stripped")
    func cleaning() {
        #expect(ISBN.clean("ISBN 978-0-306-40615-7") == "9780306406157")
        #expect(ISBN.clean("0-8044-2957-x") == "080442957X")
        #expect(ISBN.clean("\u{3000} isbn: 978 0 306 40615 7") == "9780306406157")
    }

    @Test("a label naming the form is stripped with the prefix", arguments: [
        ("ISBN-13: 978-0-306-40615-7", "9780306406157"), ("ISBN-10: 0-306-40615-2", "9780306406157"),
        ("ISBN 13 9780306406157", "9780306406157"), ("isbn13:9780306406157", "9780306406157"),
        ("ISBN-10 0306406152", "9780306406157"),
    ])
    func lengthLabel(_ raw: String, _ expected: String) {
        #expect(ISBN.normalized(raw) == expected)
    }

    @Test("digits that start the number are not taken for a label")
    func numberStartingWithTen() {
        // 1000000001 is a valid ISBN-10 whose first digits read "10".
        #expect(ISBN.clean("ISBN 1000000001") == "1000000001")
        #expect(ISBN.normalized("ISBN 1000000001") == ISBN.isbn13(from: "1000000001"))
    }

    @Test("a labelled ISBN with a wrong check digit is still invalid")
    func labelledWrongCheckDigit() {
        #expect(ISBN.normalized("ISBN-13: 978-0-306-40615-8") == nil)
    }

    /// `normalized` reads one ISBN in ASCII digits; `extract(from:)` reads other scripts' (ISBNExtractionTests).
    @Test("normalized does not read digits from other scripts", arguments: ["٩٧٨٠٣٠٦٤٠٦١٥٧", "９７８０３０６４０６１５７", "030640615２"])
    func nonASCIIDigits(_ text: String) {
        #expect(ISBN.normalized(text) == nil)
    }

    @Test("valid ISBN-10 check digits pass, wrong ones fail", arguments: [
        ("0306406152", true), ("080442957X", true), ("0306406153", false), ("03064061", false), ("X306406152", false),
        ("0000000000", false), ("080442957x", false), ("03064061520", false),
    ])
    func isbn10(_ isbn: String, _ valid: Bool) {
        #expect(ISBN.isValid10(isbn) == valid)
    }

    @Test("valid ISBN-13 check digits pass, wrong ones, non-978/979 prefixes and ISMNs (979-0) fail", arguments: [
        ("9780306406157", true), ("9791130605210", true), ("9780306406158", false), ("9772799628000", false),
        ("978030640615", false), ("9790230671187", false), ("97803064061570", false),
    ])
    func isbn13(_ isbn: String, _ valid: Bool) {
        #expect(ISBN.isValid13(isbn) == valid)
    }

    @Test("ISBN-10 converts to ISBN-13 with a recomputed check digit")
    func conversion() {
        #expect(ISBN.isbn13(from: "0306406152") == "9780306406157")
        #expect(ISBN.isbn13(from: "080442957X") == "9780804429573")
        #expect(ISBN.isbn13(from: "0306406153") == nil)
    }

    @Test("normalized gives a verified ISBN-13 or nil")
    func normalized() {
        #expect(ISBN.normalized("0-306-40615-2") == "9780306406157")
        #expect(ISBN.normalized("978-0-306-40615-7") == "9780306406157")
        #expect(ISBN.normalized("12345") == nil)
    }

    @Test("identifiers take one ISBN per value, labelled and hyphenated or not; catalogue text is SeekKit's")
    func identifiersTakeOneISBNPerValue() {
        let ids = Identifiers(isbns: ["ISBN-10: 0-306-40615-2", "0826497527 (pbk.)", "0306406152 9780826497529"])
        #expect(ids.isbn10 == ["0306406152"])
        #expect(ids.isbn13 == ["9780306406157"])
    }

    @Test("identifiers keep only valid ISBNs and add the ISBN-13 of an ISBN-10")
    func identifiers() {
        let ids = Identifiers(isbns: ["0306406152", "9780306406157", "garbage", "9780306406158"])
        #expect(ids.isbn13 == ["9780306406157"])
        #expect(ids.isbn10 == ["0306406152"])
    }
}
