import SeekKit
import SeekCore
import SeekIdentity
import Testing

/// `ISBN.extract(from:)` and `Identifiers.add(isbnsIn:)` on ISBNs as catalogues write them (issue 19, part 5).
@Suite("ISBN extraction")
struct ISBNExtractionTests {
    // MARK: - What a librarian reads

    @Test("a qualifier after the ISBN is left out", arguments: [
        ("0826497527 (pbk.)", "9780826497529"), ("978-0-8264-9752-9 (hardcover)", "9780826497529"),
        ("0-306-40615-2 (v. 1 : alk. paper)", "9780306406157"), ("9780306406157 [paperback]", "9780306406157"),
    ])
    func qualifier(_ field: String, _ expected: String) {
        #expect(ISBN.extract(from: field) == [expected])
    }

    @Test("the URN form is read", arguments: ["urn:isbn:9780826497529", "URN:ISBN:0-8264-9752-7", "urn:isbn:978-0-8264-9752-9"])
    func urn(_ field: String) {
        #expect(ISBN.extract(from: field) == ["9780826497529"])
    }

    @Test("trailing punctuation is not part of the ISBN", arguments: [
        "9780826497529.", "9780826497529;", "0826497527,", "(9780826497529)", "9780826497529 .", "0-8264-9752-7.",
    ])
    func trailingPunctuation(_ field: String) {
        #expect(ISBN.extract(from: field) == ["9780826497529"])
    }

    @Test("dots separate the parts like hyphens", arguments: ["978.0826.497529", " 978.0826.497529", "0.8264.9752.7"])
    func dotsAsSeparators(_ field: String) {
        #expect(ISBN.extract(from: field) == ["9780826497529"])
    }

    @Test("a dash of any kind separates the parts", arguments: [
        "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2212}", "\u{FE63}", "\u{FF0D}",
    ])
    func unicodeDashes(_ dash: String) {
        #expect(ISBN.extract(from: ["978", "0", "8264", "9752", "9"].joined(separator: dash)) == ["9780826497529"])
        #expect(ISBN.extract(from: ["0", "8264", "9752", "7"].joined(separator: dash)) == ["9780826497529"])
    }

    /// Zero of each script: full-width, Arabic-Indic, Extended Arabic-Indic, Devanagari, Bengali, Thai,
    /// mathematical bold.
    @Test("decimal digits of any script are read as their digits", arguments: [
        0xFF10, 0x0660, 0x06F0, 0x0966, 0x09E6, 0x0E50, 0x1D7CE,
    ] as [UInt32])
    func otherScriptsDigits(_ zero: UInt32) {
        #expect(ISBN.extract(from: Self.digits("978-0-8264-9752-9", zero: zero)) == ["9780826497529"])
        #expect(ISBN.extract(from: Self.digits("ISBN 0 8264 9752 7", zero: zero)) == ["9780826497529"])
    }

    @Test("full-width letters, signs and a full-width check X are read as ASCII", arguments: [
        ("ＩＳＢＮ：９７８－０－８２６４－９７５２－９", "9780826497529"), ("０８０４４２９５７Ｘ", "9780804429573"),
        ("ｉｓｂｎ　０８０４４２９５７ｘ", "9780804429573"),
    ])
    func fullWidthForms(_ field: String, _ expected: String) {
        #expect(ISBN.extract(from: field) == [expected])
    }

    @Test("a Korean add-on code after the ISBN is not part of it", arguments: [
        "ISBN 978-89-364-3412-0 03810", "9788936434120 03810", "978 89 364 3412 0 03810", "ISBN 89-364-3412-8 03810",
        "ISBN 978-89-364-3412-0 (03810)",
    ])
    func koreanAddOn(_ field: String) {
        #expect(ISBN.extract(from: field) == ["9788936434120"])
    }

    @Test("a price after a colon is not part of the ISBN", arguments: [
        "9788936434120 : ￦12000", "9788936434120 : \\12000", "9788936434120 (양장) : ￦15000", "8936434128 : 12000원",
        "9788936434120:12000",
    ])
    func priceAfterColon(_ field: String) {
        #expect(ISBN.extract(from: field) == ["9788936434120"])
    }

    @Test("an ISBN inside other text is found", arguments: [
        ("asd isbn 979-10-90636-07-1 blabla", "9791090636071"), ("OSX 9780826497529.pdf", "9780826497529"),
        ("Printed in Korea. ISBN 978-89-364-3412-0.", "9788936434120"), ("see 0826497527 for the paperback", "9780826497529"),
    ])
    func insideText(_ text: String, _ expected: String) {
        #expect(ISBN.extract(from: text) == [expected])
    }

    @Test("every ISBN of a field is extracted, in order", arguments: [
        ("0-306-40615-2, 978-3-16-148410-0", ["9780306406157", "9783161484100"]),
        ("9780306406157 ; 9783161484100", ["9780306406157", "9783161484100"]),
        ("9780306406157 9783161484100", ["9780306406157", "9783161484100"]),
        ("9780306406157\n9783161484100", ["9780306406157", "9783161484100"]),
        ("9783161484100 / 0306406152 (pbk.)", ["9783161484100", "9780306406157"]),
        ("ISBN 0-330-28498-3 jhjhISBN 1-58182-008-9", ["9780330284981", "9781581820089"]),
    ])
    func severalISBNs(_ field: String, _ expected: [String]) {
        #expect(ISBN.extract(from: field) == expected)
    }

    @Test("an ISBN given as both ISBN-10 and ISBN-13 is extracted once", arguments: [
        "0826497527 ; 9780826497529", "9780826497529 0-8264-9752-7", "9780826497529, 9780826497529",
    ])
    func duplicates(_ field: String) {
        #expect(ISBN.extract(from: field) == ["9780826497529"])
    }

    @Test("a label before the ISBN is read past", arguments: [
        "ISBN 978-0-306-40615-7", "ISBN: 978-0-306-40615-7", "ISBN-13: 978-0-306-40615-7", "ISBN-10 0-306-40615-2",
        "ISBN 13 9780306406157", "isbn13:9780306406157", "ISBN-10: 0306406152", "ISBN 10 0306406152", "ISBN-13 : 9780306406157",
        "\u{3000} isbn: 978 0 306 40615 7",
    ])
    func labels(_ field: String) {
        #expect(ISBN.extract(from: field) == ["9780306406157"])
    }

    @Test("a number starting with 10 or 13 is not taken for a label", arguments: [
        ("ISBN 1000000001", "9781000000009"), ("ISBN-10: 1000000001", "9781000000009"), ("ISBN 10 1000000001", "9781000000009"),
        ("ISBN1000000001", "9781000000009"), ("ISBN 1-3-0000000-7", "9781300000006"),
    ])
    func numberStartingLikeALabel(_ field: String, _ expected: String) {
        #expect(ISBN.extract(from: field) == [expected])
    }

    @Test("spaces between the parts join them", arguments: [
        ("979 10 9063607 1", "9791090636071"), ("978 031264058 3", "9780312640583"), ("978 0312640583", "9780312640583"),
        ("978 - 0 - 306 - 40615 - 7", "9780306406157"), ("0 306 40615 2", "9780306406157"),
    ])
    func spacedParts(_ field: String, _ expected: String) {
        #expect(ISBN.extract(from: field) == [expected])
    }

    @Test("a check X is read in either case", arguments: [
        ("954430603x", "9789544306038"), ("0-8044-2957-x", "9780804429573"), ("ISBN 954-430-603-X", "9789544306038"),
    ])
    func checkX(_ field: String, _ expected: String) {
        #expect(ISBN.extract(from: field) == [expected])
    }

    // MARK: - What is not an ISBN

    @Test("an ISMN (979-0, printed music) is not an ISBN", arguments: [
        "9790230671187", "979-0-2306-7118-7", "ISMN 979-0-2306-7118-7", "979 0 2306 7118 7",
    ])
    func ismnRejected(_ field: String) {
        #expect(ISBN.extract(from: field) == [])
    }

    @Test("a wrong check digit is rejected", arguments: [
        "9780826497520", "0826497520", "978-0-8264-9752-0", "ISBN 9789720404427", "ISBN-13: 978-0-306-40615-8",
    ])
    func wrongCheckDigit(_ field: String) {
        #expect(ISBN.extract(from: field) == [])
    }

    @Test("an ISBN-13 with its ISBN-10's check digit is rejected, not read as that ISBN-10", arguments: [
        "978-0-306-40615-2", "978 0306406152", "9780306406152",
    ])
    func miswrittenISBN13(_ field: String) {
        #expect(ISBN.extract(from: field) == [])
    }

    @Test("too few or too many digits are no ISBN", arguments: [
        "978082649752", "082649752", "97808264975290", "08264975270", "978-826497", "0306406152X", "1234",
    ])
    func wrongLength(_ field: String) {
        #expect(ISBN.extract(from: field) == [])
    }

    @Test("an X anywhere but last is a letter", arguments: ["08X6497527", "95443060x3", "X306406152", "0826497X27"])
    func misplacedX(_ field: String) {
        #expect(ISBN.extract(from: field) == [])
    }

    @Test("empty text, separators or a label alone give nothing", arguments: [
        "", " ", "-", "- – — . ", "...", "ISBN", "ISBN-13:", "urn:isbn:", "()", "X", "ISBN 13", "ISBN 10:",
    ])
    func nothingToRead(_ field: String) {
        #expect(ISBN.extract(from: field) == [])
    }

    @Test("odd input never crashes", arguments: [
        ("\u{0}", []), ("🙂9780306406157🙂", ["9780306406157"]), ("9780306406157\u{301}", ["9780306406157"]),
        ("\r\n", []), ("978\u{0}0306406157", []), ("ISBN-", []), ("1-", []), ("-1", []), ("1.", []), ("ISBN 1", []),
        ("ISBN 1X", []), ("-X", []), ("\u{FEFF}9780306406157", ["9780306406157"]), ("٩٧٨٠٣٠٦٤٠٦١٥٧x", []),
    ] as [(String, [String])])
    func oddInput(_ field: String, _ expected: [String]) {
        #expect(ISBN.extract(from: field) == expected)
    }

    // MARK: - isbnlib's own cases

    /// Cases from isbnlib's tests (xlcnd/isbnlib, isbnlib/test/test_core.py — is_isbn10/13, to_isbn10/13,
    /// clean, notisbn, get_isbnlike, get_canonical_isbn, canonical, ean13, check_digit10 — and
    /// isbnlib/test/test_isbn.py), each as the ISBN-13 isbnlib reads from it, or none.
    @Test("isbnlib's test cases", arguments: [
        ("0826497527", ["9780826497529"]), ("isbn 0-8264-9752-7", ["9780826497529"]), ("0826497520", []),
        ("954430603X", ["9789544306038"]), ("9780826497529", ["9780826497529"]), ("9791090636071", ["9791090636071"]),
        ("isbn 979-10-90636-07-1", ["9791090636071"]), ("9780826497520", []), ("9700000000000", []),
        ("9000000000000", []), ("9710000000000", []), ("9790826497529", []), ("97808264975X3", []), ("978-826497", []),
        ("isbn 978-0-8264-9752-9", ["9780826497529"]), ("asdadv isbn 978-0-8264-9752-9", ["9780826497529"]),
        ("08X6497527", []), ("91-43-01019-9", ["9789143010190"]), ("isbn 91-43-01019-9", ["9789143010190"]),
        ("asd isbn 979-10-90636-07-1 blabla", ["9791090636071"]), (" 978.0826.497529", ["9780826497529"]),
        ("ISBN: 9791090636071", ["9791090636071"]), ("978,0826497520", []), ("9426497529", []), ("978082649752", []),
        ("9780826400001", []), ("978 9426497529", []), ("9789426497529", []), ("979 10 9063607 1", ["9791090636071"]),
        ("978-0-9790173-4-6", ["9780979017346"]), ("978-9788461784", ["9789788461784"]),
        ("ISBN 0826497527", ["9780826497529"]), ("OSX 9780826497529.pdf", ["9780826497529"]),
        ("ISBN 9789720404427", []), ("ISBN 9789720404428", ["9789720404428"]), ("ISBN-9780826497529", ["9780826497529"]),
        ("ISBN9780826497529", ["9780826497529"]), ("isbn9780826497529", ["9780826497529"]),
        ("isbn 0826497527", ["9780826497529"]), ("954430603x", ["9789544306038"]), ("95443060x3", []),
        ("0000000000", []), ("000000000X", []), ("0000000000000", []), ("0000000", []), ("", []),
        ("5852700010", ["9785852700018"]), ("9781250158062", ["9781250158062"]), ("781250158062", []),
        ("9786610326266", ["9786610326266"]),
    ] as [(String, [String])])
    func isbnlibCases(_ text: String, _ expected: [String]) {
        #expect(ISBN.extract(from: text) == expected)
    }

    /// isbnlib's ISBN-like lines (xlcnd/isbnlib, isbnlib/test/data4tests.py, read by test_get_isbnlike), each
    /// with the ISBN-13 its digits make if their check digit is valid: 93-8011-236-7 and 94-414-0063-3 fail
    /// it, 969-031-02-2 has nine digits.
    @Test("isbnlib's ISBN-like lines", arguments: [
        ("ISBN 9781849284677", ["9781849284677"]), ("qwe iuwer 9780312640583 kjhfds", ["9780312640583"]),
        ("bh bh isbn 978-0312640583", ["9780312640583"]), ("bh bh isbn 978 031264058 3", ["9780312640583"]),
        ("bh bh isbn978 031264058 3", ["9780312640583"]),
        ("ISBN 0-330-28498-3 jhjhISBN 1-58182-008-9", ["9780330284981", "9781581820089"]),
        ("ISBN 2-226-05257-7", ["9782226052575"]), ("ISBN 3-7965-1900-8", ["9783796519000"]),
        ("ISBN 4-19-830127-1", ["9784198301279"]), ("ISBN 5-85270-001-0", ["9785852700018"]),
        ("ISBN 978-600-119-125-1", ["9786001191251"]), ("ISBN 978-601-7151-13-3", ["9786017151133"]),
        ("ISBN 978-602-8328-22-7", ["9786028328227"]), ("ISBN 978-603-500-045-1", ["9786035000451"]),
        ("ISBN 605-384-057-2", ["9786053840572"]), ("ISBN 978-606-8126-35-7", ["9786068126357"]),
        ("ISBN 978-607-455-035-1", ["9786074550351"]), ("ISBN 978-608-203-023-4", ["9786082030234"]),
        ("ISBN 978-612-45165-9-7", ["9786124516597"]), ("ISBN 978-614-404-018-8", ["9786144040188"]),
        ("ISBN 978-615-5014-99-4", ["9786155014994"]), ("ISBN 7-301-10299-2", ["9787301102992"]),
        ("ISBN 80-85983-44-3", ["9788085983449"]), ("ISBN 81-7215-399-6", ["9788172153991"]),
        ("ISBN 82-530-0983-6", ["9788253009834"]), ("ISBN 83-08-01587-5", ["9788308015872"]),
        ("ISBN 84-86546-08-7", ["9788486546083"]), ("ISBN 85-7531-015-1", ["9788575310151"]),
        ("ISBN 86-341-0846-5", ["9788634108460"]), ("ISBN 87-595-2277-1", ["9788759522776"]),
        ("ISBN 88-04-47328-2", ["9788804473282"]), ("ISBN 90-5691-187-2", ["9789056911874"]),
        ("ISBN 91-1-811692-2", ["9789118116926"]), ("ISBN 92-67-10370-9", ["9789267103709"]),
        ("ISBN 93-8011-236-7", []), ("ISBN 94-414-0063-3", []), ("ISBN 950-04-0442-7", ["9789500404426"]),
        ("ISBN 951-0-11369-7", ["9789510113691"]), ("ISBN 952-471-294-6", ["9789524712941"]),
        ("ISBN 953-157-105-8", ["9789531571050"]), ("ISBN 954-430-603-X", ["9789544306038"]),
        ("ISBN 955-20-3051-X", ["9789552030512"]), ("ISBN 956-7291-48-9", ["9789567291489"]),
        ("ISBN 957-01-7429-3", ["9789570174298"]), ("ISBN 958-04-6278-X", ["9789580462781"]),
        ("ISBN 959-10-0363-3", ["9789591003638"]), ("ISBN 961-6403-23-0", ["9789616403238"]),
        ("ISBN 962-04-0195-6", ["9789620401954"]), ("ISBN 963-7971-51-3", ["9789637971518"]),
        ("ISBN 964-6194-70-2", ["9789646194700"]), ("ISBN 965-359-002-2", ["9789653590021"]),
        ("ISBN 966-95440-5-X", ["9789669544056"]), ("ISBN 967-978-753-2", ["9789679787535"]),
        ("ISBN 968-6031-02-2", ["9789686031027"]), ("ISBN 969-031-02-2", []), ("ISBN 970-20-0242-7", ["9789702002420"]),
        ("ISBN 971-8845-10-0", ["9789718845103"]), ("ISBN 972-37-0274-6", ["9789723702743"]),
        ("ISBN 973-43-0179-9", ["9789734301799"]), ("ISBN 974-85854-7-6", ["9789748585475"]),
        ("ISBN 975-293-381-5", ["9789752933811"]), ("ISBN 976-640-140-3", ["9789766401405"]),
        ("ISBN 977-734-520-8", ["9789777345200"]), ("ISBN 978-37186-2-2", ["9789783718623"]),
        ("ISBN 979-553-483-1", ["9789795534839"]), ("ISBN 980-01-0194-2", ["9789800101940"]),
        ("ISBN 981-3018-39-9", ["9789813018396"]), ("ISBN 982-301-001-3", ["9789823010014"]),
        ("ISBN 983-52-0157-9", ["9789835201578"]), ("ISBN 984-458-089-7", ["9789844580893"]),
        ("ISBN 986-417-191-7", ["9789864171910"]), ("ISBN 987-98184-2-3", ["9789879818428"]),
        ("ISBN 978-988-00-3827-3", ["9789880038273"]), ("ISBN 978-9928400529", ["9789928400529"]),
        ("ISBN 978-9929801646", ["9789929801646"]), ("ISBN 978-9930943106", ["9789930943106"]),
        ("ISBN 978-9933101473", ["9789933101473"]), ("ISBN 978-9934015960", ["9789934015960"]),
        ("ISBN 978-99937-1-056-1", ["9789993710561"]), ("ISBN 978-99965-2-047-1", ["9789996520471"]),
    ] as [(String, [String])])
    func isbnlibLines(_ line: String, _ expected: [String]) {
        #expect(ISBN.extract(from: line) == expected)
    }

    // MARK: - Long input

    /// 1 MiB of digits, dashes, labels, X and digits of other scripts that make no ISBN.
    @Test("a 1 MiB field of garbage gives nothing, in linear time")
    func megabyteOfGarbage() {
        let garbage = String(repeating: "ISBN 12-3 X 978 979- 0. 10 ١٢ ：x-1 1 1 13:", count: (1 << 20) / 40)
        var found: [String] = ["not run"]
        let elapsed = ContinuousClock().measure { found = ISBN.extract(from: garbage) }
        #expect(found == [])
        #expect(elapsed < .seconds(10))  // ~0.1 s optimised; quadratic work would take hours
    }

    /// `unit` repeated to 1 MiB, then an ISBN.
    @Test("the ISBN after 1 MiB of short numbers is found, in linear time", arguments: ["1 ", "1", "978-", "0 306 "])
    func isbnAfterAMegabyte(_ unit: String) {
        let field = String(repeating: unit, count: (1 << 20) / unit.utf8.count) + "; 9780306406157"
        var found: [String] = []
        let elapsed = ContinuousClock().measure { found = ISBN.extract(from: field) }
        #expect(found == ["9780306406157"])
        #expect(elapsed < .seconds(10))
    }

    @Test("thousands of distinct ISBNs in one field are all extracted, in linear time")
    func thousandsOfISBNs() {
        let isbns = (0..<20_000).map { Self.isbn13(stem: "9780123" + String(10_000 + $0)) }
        var found: [String] = []
        let elapsed = ContinuousClock().measure { found = ISBN.extract(from: isbns.joined(separator: ", ")) }
        #expect(found == isbns)
        #expect(elapsed < .seconds(10))
    }

    @Test("thousands of ISBN fields (a record's isbn list) are all kept, in order, in linear time")
    func thousandsOfFields() {
        let isbns = (0..<20_000).map { Self.isbn13(stem: "9780123" + String(10_000 + $0)) }
        var identifiers = Identifiers()
        let elapsed = ContinuousClock().measure { identifiers = Identifiers(isbnsIn: isbns + ["0-306-40615-2", isbns[0]]) }
        #expect(identifiers.isbn13 == isbns + ["9780306406157"])
        #expect(identifiers.isbn10 == ["0306406152"])
        #expect(elapsed < .seconds(10))
    }

    // MARK: - Identifiers

    @Test("identifiers add every ISBN of a field; an ISBN-10 is also kept as written", arguments: [
        ("0-306-40615-2, 978-3-16-148410-0", ["9780306406157", "9783161484100"], ["0306406152"]),
        ("0826497527 ; 9780826497529", ["9780826497529"], ["0826497527"]),
        ("0826497527 (pbk.)", ["9780826497529"], ["0826497527"]),
        ("954430603x", ["9789544306038"], ["954430603X"]),
        ("978-0-8264-9752-9 (hardcover)", ["9780826497529"], []),
        ("isbn 979-10-90636-07-1", ["9791090636071"], []),
        ("ISBN 978-89-364-3412-0 03810", ["9788936434120"], []),
        ("9790230671187", [], []),
    ] as [(String, [String], [String])])
    func identifiersFromAField(_ field: String, _ isbn13: [String], _ isbn10: [String]) {
        let identifiers = Identifiers(isbnsIn: [field])
        #expect(identifiers.isbn13 == isbn13)
        #expect(identifiers.isbn10 == isbn10)
    }

    @Test("adding an ISBN already held changes nothing")
    func identifiersWithoutDuplicates() {
        var identifiers = Identifiers(isbnsIn: ["0826497527 ; 9780826497529"])
        identifiers.add(isbnsIn: "ISBN 0-8264-9752-7")
        identifiers.add(isbnsIn: "978-0-8264-9752-9")
        #expect(identifiers.isbn13 == ["9780826497529"])
        #expect(identifiers.isbn10 == ["0826497527"])
    }

    @Test("the same book written two ways by two sources is one result")
    func mergesAcrossWritings() {
        let merged = ResultMerger.merge([
            ("a", [book("a", "1", "Tales", isbns: ["0826497527 (pbk.)"], creator: "One")]),
            ("b", [book("b", "2", "Tales (hardcover)", isbns: ["ISBN 978-0-8264-9752-9 : ￦12000"], creator: "Other")]),
        ])
        #expect(merged.count == 1)
        #expect(merged.first?.sources.map(\.provider) == ["a", "b"])
    }

    // MARK: - Helpers

    /// A book whose ISBN fields are read as catalogues write them.
    private func book(_ provider: String, _ value: String, _ title: String, isbns: [String], creator: String) -> Item {
        Item(id: ItemID(provider: provider, value: value), kind: .book, title: title, creators: [creator],
             identifiers: Identifiers(isbnsIn: isbns))
    }

    /// `ascii` with its digits in the script whose zero is `zero`.
    private static func digits(_ ascii: String, zero: UInt32) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in ascii.unicodeScalars {
            let value = scalar.value
            if (0x30...0x39).contains(value), let digit = Unicode.Scalar(zero + value - 0x30) {
                scalars.append(digit)
            } else {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// The ISBN-13 for twelve digits, its check digit computed here (not by `ISBN`).
    private static func isbn13(stem: String) -> String {
        let weighted = stem.utf8.enumerated().map { index, unit in Int(unit - 0x30) * (index % 2 == 0 ? 1 : 3) }
        return stem + String((10 - weighted.reduce(0, +) % 10) % 10)
    }
}
