@testable import SeekKit
import SeekCore
import Testing

/// A field that is one bare number (thirteen digits, or nine and a check digit or X) skips the
/// catalogue reader (issue 30): it must find exactly what the reader finds.
@Suite("ISBN fields that are one bare number")
struct BareISBNFieldTests {
    /// What the catalogue reader alone finds in `field`.
    private func readerFinds(_ field: String) -> [String] {
        var reader = ISBN.ExtractionReader()
        for scalar in field.unicodeScalars {
            reader.read(scalar.isASCII ? UInt8(truncatingIfNeeded: scalar.value) : ISBN.folded(scalar))
        }
        reader.finish()
        return reader.found
    }

    /// `count` digits from `generator`, as values.
    private func digits(_ count: Int, _ generator: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...9, using: &generator) }
    }

    /// Fields of ten and thirteen characters: random digits (mostly failing their check digit), valid
    /// ISBN-13s starting 978 and 979 (979-0 among them), valid ISBN-10s (some ending in X or x), and an X
    /// anywhere else.
    private func fields() -> [String] {
        var generator = SystemRandomNumberGenerator()
        var fields: [String] = ["9780306406157", "9790306406157", "0306406152", "080442957X", "080442957x", "0000000000"]
        for _ in 0..<2000 {
            fields.append(ISBN.text(digits(13, &generator)))
            fields.append(ISBN.text(digits(10, &generator)))
            let stem: [UInt8] = [9, 7, UInt8.random(in: 8...9, using: &generator)] + digits(9, &generator)
            let sum = stem.enumerated().reduce(0) { $0 + Int($1.element) * ($1.offset.isMultiple(of: 2) ? 1 : 3) }
            fields.append(ISBN.text(stem + [UInt8((10 - sum % 10) % 10)]))
            let nine = digits(9, &generator)
            let weighted = nine.enumerated().reduce(0) { $0 + Int($1.element) * (10 - $1.offset) }
            let check = (11 - weighted % 11) % 11
            let ten = ISBN.text(nine + [UInt8(check)])
            fields.append(Bool.random(using: &generator) ? ten : ten.replacingAll("X", with: "x"))
            var withX = Array(ISBN.text(digits(Bool.random(using: &generator) ? 10 : 13, &generator)).utf8)
            withX[Int.random(in: 0..<withX.count, using: &generator)] = UInt8(ascii: "X")
            fields.append(String(decoding: withX, as: UTF8.self))
        }
        return fields
    }

    @Test("finds what the reader finds in every field of ten or thirteen characters it answers for")
    func agreesWithTheReader() {
        var answered = 0
        for field in fields() {
            guard let bare = ISBN.bareOccurrence(in: field) else { continue }
            answered += 1
            #expect(bare == readerFinds(field), "\(field)")
        }
        #expect(answered > 8000)  // every all-digit field, and the ten-character ones ending in X
    }

    @Test("answers only for all-digit fields of ten or thirteen, an X or x last in ten")
    func answersForBareNumbersOnly() {
        #expect(ISBN.bareOccurrence(in: "9780306406157") == ["9780306406157"])
        #expect(ISBN.bareOccurrence(in: "9780306406158") == [])  // its check digit fails
        #expect(ISBN.bareOccurrence(in: "080442957x") == ["080442957X"])
        #expect(ISBN.bareOccurrence(in: "978030640615") == nil)
        #expect(ISBN.bareOccurrence(in: "97803064061577") == nil)
        #expect(ISBN.bareOccurrence(in: "978-0306406157") == nil)
        #expect(ISBN.bareOccurrence(in: "978030640615X") == nil)
        #expect(ISBN.bareOccurrence(in: "X804429570") == nil)
        #expect(ISBN.bareOccurrence(in: "０３０６４０６１５２") == nil)  // full-width digits: the reader folds them
        #expect(ISBN.extract(from: "０３０６４０６１５２") == ["9780306406157"])
    }

    @Test("a record's fields give the same identifiers through the bare path as through the reader")
    func identifiersUnchanged() {
        let fields = ["9780306406157", "0306406152", "978-0-8264-9752-9 (hardcover)", "080442957x", "9790306406157", "12345"]
        let identifiers = Identifiers(isbnsIn: fields)
        var expected = Identifiers()
        for field in fields { expected.add(isbns: readerFinds(field)) }
        #expect(identifiers == expected)
        #expect(identifiers.isbn13 == ["9780306406157", "9780826497529", "9780804429573"])
        #expect(identifiers.isbn10 == ["0306406152", "080442957X"])
    }
}
