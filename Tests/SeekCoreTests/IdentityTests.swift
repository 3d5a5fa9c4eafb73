@testable import SeekCore
@testable import SeekIdentity
import Testing

/// A book record as a source gives it, for the identity tests.
private func record(
    _ provider: String, _ value: String, _ title: String, subtitle: String? = nil, creators: [String] = [], year: Int? = nil,
    isbns: [String] = [], other: [String: String] = [:]
) -> Item {
    Item(
        id: ItemID(provider: provider, value: value), kind: .book, title: title, subtitle: subtitle, creators: creators, year: year,
        identifiers: Identifiers(isbns: isbns, other: other))
}

/// The rows of merging one record per source (each its own list), as sorted lists of provider ids.
private func rows(_ items: [Item], grouping: ResultGrouping = .work) -> [[String]] {
    let lists = items.map { (provider: $0.provider, items: [$0]) }
    return ResultMerger.merge(lists, grouping: grouping).map { $0.sources.map(\.provider).sorted() }.sorted { $0.count > $1.count }
}

/// Whether the records end up in one row.
private func joined(_ items: [Item], grouping: ResultGrouping = .work) -> Bool {
    rows(items, grouping: grouping).count == 1
}

@Suite("Identity: one row per book without a shared ISBN (issue 48)")
struct IdentityTests {
    @Test("creators match by family name whatever the order and initials")
    func creatorForms() {
        let openLibrary = record("openlibrary", "OL27448W", "The Lord of the Rings", creators: ["J. R. R. Tolkien"], year: 1954)
        for form in ["J.R.R. Tolkien", "Tolkien, J. R. R.", "Tolkien, John Ronald Reuel", "TOLKIEN", "John R. R. Tolkien"] {
            let google = record("googlebooks", "abc", "The Lord of the Rings", creators: [form], year: 2005)
            #expect(joined([openLibrary, google]), "\(form)")
        }
    }

    @Test("another first initial or another family name is another person")
    func otherCreators() {
        let frank = record("openlibrary", "OL1W", "Dune", creators: ["Frank Herbert"], year: 1965)
        let brian = record("googlebooks", "x", "Dune: House Atreides", creators: ["Brian Herbert", "Kevin J. Anderson"], year: 1999)
        #expect(!joined([frank, brian]))
        let king = record("openlibrary", "OL2W", "The Institute", creators: ["Stephen King"], year: 2019)
        let other = record("kakao", "y", "The Institute", creators: ["Jane Doe"], year: 2019)
        #expect(!joined([king, other]))
    }

    @Test("the title is folded: case, punctuation, diacritics, full-width forms, a leading article, a subtitle")
    func titleForms() {
        let base = record("openlibrary", "OL1W", "The Hobbit", creators: ["J. R. R. Tolkien"], year: 1937)
        for title in ["HOBBIT", "Ｔｈｅ Ｈｏｂｂｉｔ", "The Hobbit (Illustrated)", "Hobbit, The"] {
            #expect(joined([base, record("googlebooks", "g", title, creators: ["Tolkien, J.R.R."], year: 2012)]), "\(title)")
        }
        // A subtitle on one side only: the same year joins, another year may be a part of the work.
        for title in ["Hobbit: or There and Back Again", "The Hobbit - There and Back Again", "The Hobbit; or, There and Back Again"] {
            #expect(joined([base, record("googlebooks", "g", title, creators: ["Tolkien, J.R.R."], year: 1937)]), "\(title)")
        }
        let whole = record("openlibrary", "OL27448W", "The Lord of the Rings", creators: ["J. R. R. Tolkien"], year: 1954)
        let towers = record("googlebooks", "t", "The Lord of the Rings", subtitle: "The Two Towers", creators: ["J.R.R. Tolkien"], year: 1955)
        #expect(!joined([whole, towers]))
        let dune = record("openlibrary", "OL1W", "Dune: House Atreides", creators: ["Brian Herbert"], year: 1999)
        #expect(!joined([dune, record("googlebooks", "h", "Dune: House Harkonnen", creators: ["Brian Herbert"], year: 1999)]))
        let accented = record("openlibrary", "OL2W", "L'Étranger", creators: ["Albert Camus"], year: 1942)
        #expect(joined([accented, record("gutendex", "1", "l'etranger", creators: ["Camus, Albert"], year: 1942)]))
        let korean = record("aladin", "K1", "소년이 온다", creators: ["한강"], year: 2014)
        #expect(joined([korean, record("kakao", "K2", "소년이 온다 - 2024 노벨문학상 수상작가", creators: ["한강"], year: 2014)]))
        #expect(!joined([korean, record("naver", "K3", "소년이 온다", creators: ["김영하"], year: 2014)]))
    }

    @Test("volume and part numbers must agree: Vol. 2 never joins Vol. 3, Roman numerals read, 2권 never 3권")
    func volumes() {
        let two = record("openlibrary", "OL1W", "The Story of Civilization, Vol. 2", creators: ["Will Durant"], year: 1939)
        #expect(!joined([two, record("googlebooks", "g", "The Story of Civilization, Vol. 3", creators: ["Will Durant"], year: 1939)]))
        #expect(joined([two, record("googlebooks", "g", "The Story of Civilization Volume II", creators: ["Durant, Will"], year: 1939)]))
        #expect(!joined([two, record("googlebooks", "g", "The Story of Civilization", creators: ["Will Durant"], year: 1939)]))
        let book2 = record("openlibrary", "OL2W", "Outlander: Book 2", creators: ["Diana Gabaldon"], year: 1992)
        #expect(!joined([book2, record("googlebooks", "h", "Outlander, Book Three", creators: ["Diana Gabaldon"], year: 1992)]))
        let kwon2 = record("aladin", "A1", "토지 2권", creators: ["박경리"], year: 2012)
        #expect(!joined([kwon2, record("kakao", "B1", "토지 3권", creators: ["박경리"], year: 2012)]))
        #expect(joined([kwon2, record("kakao", "B2", "토지 제2권", creators: ["박경리"], year: 2012)]))
        let upper = record("aladin", "A2", "태백산맥 상", creators: ["조정래"], year: 2007)
        #expect(!joined([upper, record("naver", "C1", "태백산맥 하", creators: ["조정래"], year: 2007)]))
    }

    @Test("a box set never joins one volume, by title or by a shared ISBN")
    func boxSets() {
        let volume = record("openlibrary", "OL1W", "Harry Potter", creators: ["J. K. Rowling"], year: 2014, isbns: ["9780545162074"])
        for title in ["Harry Potter Box Set", "Harry Potter: The Complete Collection", "Harry Potter 1-7", "Harry Potter Boxed Set"] {
            let box = record("googlebooks", "g", title, creators: ["J.K. Rowling"], year: 2014)
            #expect(!joined([volume, box]), "\(title)")
        }
        let sharedISBN = record("aladin", "a", "Harry Potter Boxed Set", creators: ["J.K. Rowling"], year: 2014, isbns: ["9780545162074"])
        #expect(!joined([volume, sharedISBN]))
        let otherBox = record("kakao", "k", "Harry Potter Boxed Set", creators: ["Rowling"], year: 2014)
        #expect(joined([sharedISBN, otherBox]))
    }

    @Test("a short or generic title joins only with creators and year, both")
    func genericTitles() {
        let poems = record("openlibrary", "OL1W", "Poems", creators: ["Emily Dickinson"], year: 1890)
        #expect(joined([poems, record("gutendex", "12", "Poems", creators: ["Dickinson, Emily"], year: 1890)]))
        #expect(!joined([poems, record("gutendex", "12", "Poems", creators: ["Dickinson, Emily"], year: 1955)]))
        #expect(!joined([poems, record("gutendex", "12", "Poems", creators: ["Dickinson, Emily"])]))
        #expect(!joined([poems, record("gutendex", "12", "Poems", year: 1890)]))
        let intro = record("crossref", "10.1/a", "Introduction", creators: ["A. Smith"], year: 2010)
        #expect(!joined([intro, record("googlebooks", "g", "Introduction", year: 2010)]))
        let it = record("openlibrary", "OL2W", "It", creators: ["Stephen King"], year: 1986)
        #expect(!joined([it, record("googlebooks", "g", "It", creators: ["Stephen King"], year: 2016)]))
        #expect(joined([it, record("googlebooks", "g", "It", creators: ["Stephen King"], year: 1986)]))
    }

    @Test("translations are different books unless an identifier says otherwise")
    func translations() {
        let german = record("googlebooks", "de", "Faust", creators: ["Johann Wolfgang von Goethe"], year: 1808, other: ["language": "de"])
        let english = record("gutendex", "14591", "Faust", creators: ["Goethe, Johann Wolfgang von"], year: 1808, other: ["language": "en"])
        #expect(!joined([german, english]))
        let english2 = record("openlibrary", "OL1W", "Faust", creators: ["J. W. von Goethe"], year: 1808, other: ["language": "eng"])
        #expect(joined([english, english2]))
        var sameISBN = german
        sameISBN.identifiers.add(isbn: "9780140449013")
        var englishISBN = english
        englishISBN.identifiers.add(isbn: "9780140449013")
        #expect(joined([sameISBN, englishISBN]))
    }

    @Test("two records of one source never join each other by title")
    func sameSource() {
        let first = record("openlibrary", "OL1W", "Emma", creators: ["Jane Austen"], year: 1815)
        let second = record("openlibrary", "OL2W", "Emma", creators: ["Jane Austen"], year: 1815)
        let merged = ResultMerger.merge([(provider: "openlibrary", items: [first, second])])
        #expect(merged.count == 2)
        // They meet in one row only through another source's record that matches both.
        let google = record("googlebooks", "g", "Emma", creators: ["Austen, Jane"], year: 1815)
        let three = ResultMerger.merge([(provider: "openlibrary", items: [first, second]), (provider: "googlebooks", items: [google])])
        #expect(three.count == 1)
        #expect(three.first?.sources.count == 3)
    }

    @Test("a record without creators joins by title only in the same year")
    func missingCreators() {
        let naver = record("naver", "n", "Harry Potter and the Chamber of Secrets", year: 1999)
        let google = record("googlebooks", "g", "Harry Potter and the Chamber of Secrets", creators: ["J.K. Rowling"], year: 1999)
        #expect(joined([naver, google]))
        #expect(!joined([naver, record("googlebooks", "h", "Harry Potter and the Chamber of Secrets", creators: ["J.K. Rowling"], year: 2015)]))
    }

    @Test("editions of one work are one row under work grouping, whatever their years")
    func workGrouping() {
        let first = record("openlibrary", "OL27448W", "The Lord of the Rings", creators: ["J. R. R. Tolkien"], year: 1954)
        let later = record("googlebooks", "g", "The Lord of the Rings", creators: ["J.R.R. Tolkien"], year: 2005, isbns: ["9780618640157"])
        let shop = record("aladin", "a", "The Lord of the Rings", creators: ["Tolkien"], year: 2012, isbns: ["9780261102385"])
        let merged = ResultMerger.merge([("openlibrary", [first]), ("googlebooks", [later]), ("aladin", [shop])])
        #expect(merged.count == 1)
        #expect(Set(merged.first?.item.identifiers.isbn13 ?? []) == ["9780618640157", "9780261102385"])
    }

    @Test("group=edition keeps two ISBN-13s of one work apart, and joins a record without one")
    func editionGrouping() {
        let hardback = record("googlebooks", "g", "The Lord of the Rings", creators: ["J.R.R. Tolkien"], year: 2005, isbns: ["9780618640157"])
        let paperback = record("aladin", "a", "The Lord of the Rings", creators: ["Tolkien"], year: 2005, isbns: ["9780261102385"])
        #expect(joined([hardback, paperback]))
        #expect(!joined([hardback, paperback], grouping: .edition))
        let noISBN = record("gutendex", "p", "The Lord of the Rings", creators: ["Tolkien, J. R. R."], year: 2005)
        #expect(rows([hardback, noISBN], grouping: .edition).count == 1)
        // An Open Library work listing both ISBNs does not glue the two editions together.
        let work = record("openlibrary", "OL27448W", "The Lord of the Rings", creators: ["J. R. R. Tolkien"], year: 1954,
                          isbns: ["9780618640157", "9780261102385"])
        let editionRows = rows([work, hardback, paperback], grouping: .edition)
        #expect(editionRows.count == 2)
        #expect(rows([work, hardback, paperback]).count == 1)
        // Edition grouping: a year apart at most.
        #expect(rows([noISBN, record("kakao", "k", "The Lord of the Rings", creators: ["J.R.R. Tolkien"], year: 1954)], grouping: .edition).count == 2)
        // Work ids join works only.
        let olWork = record("openlibrary", "OL1W", "A", other: ["openlibraryWork": "OL99W"])
        let otherWork = record("calibre", "1", "B", other: ["openlibrary_work": "/works/OL99W"])
        #expect(joined([olWork, otherWork]))
        #expect(!joined([olWork, otherWork], grouping: .edition))
    }

    @Test("typed identifiers join: DOI, OCLC, LCCN, Open Library ids, Google volume ids, each normalised once")
    func identifiers() {
        let crossref = record("crossref", "10.1000/ABC", "Ecology", other: ["doi": "10.1000/ABC"])
        let other = record("googlebooks", "g", "Ecology of plants", other: ["DOI": "https://doi.org/10.1000/abc"])
        #expect(joined([crossref, other]))
        let oclc = record("openlibrary", "OL1W", "X", other: ["oclc": "ocm00012345"])
        #expect(joined([oclc, record("googlebooks", "g", "Y", other: ["oclcNumber": "(OCoLC)12345"])]))
        let lccn = record("openlibrary", "OL2W", "X", other: ["lccn": "n 78-890351"])
        #expect(joined([lccn, record("googlebooks", "g", "Y", other: ["lccn": "N78890351"])]))
        let google = record("googlebooks", "XkEvAAAAMAAJ", "X", other: ["googleVolume": "XkEvAAAAMAAJ"])
        #expect(joined([google, record("calibre", "4", "Y", other: ["google": "XkEvAAAAMAAJ"])]))
        #expect(!joined([google, record("calibre", "5", "Y", other: ["google": "xkevaaaamaaj"])]))
        let edition = record("openlibrary", "OL3W", "X", other: ["openlibraryEdition": "OL7353617M"])
        #expect(joined([edition, record("calibre", "3", "Y", other: ["openlibraryEdition": "/books/ol7353617m"])], grouping: .edition))
    }

    @Test("an identifier's name is read as providers spell it and as people do; other names are no identifier")
    func identifierSchemes() {
        let spellings: [(String, IdentifierScheme?)] = [
            ("doi", .doi), ("DOI", .doi), ("oclc", .oclc), ("OCLC number", .oclc), ("oclc_id", .oclc), ("lccn", .lccn),
            ("openlibraryWork", .openLibraryWork), ("ol_work", .openLibraryWork), ("openlibraryEdition", .openLibraryEdition),
            ("OL edition", .openLibraryEdition), ("googleVolume", .googleVolume), ("Google Books", .googleVolume),
            ("language", .language), ("lang", .language), ("type", .type), ("crossrefType", .type), ("Work-Type", .type),
            ("aladinItemId", nil), ("isbn", nil), ("", nil), ("doix", nil), ("types", nil), ("giphy", nil),
        ]
        for (name, scheme) in spellings {
            #expect(IdentifierScheme(name) == scheme, "\(name)")
        }
    }

    @Test("a part is never identified by its container's ISBN: Crossref's two chapters stay two rows")
    func parts() {
        let chapterA = record("crossref", "10.1093/a", "Introduction", creators: ["Jane Roe"], year: 2013, isbns: ["9780199830060"],
                              other: ["doi": "10.1093/a", "type": "book-chapter"])
        let chapterB = record("crossref", "10.1093/b", "Conclusion", creators: ["John Doe"], year: 2013, isbns: ["9780199830060"],
                              other: ["doi": "10.1093/b", "type": "book-chapter"])
        let book = record("googlebooks", "g", "Oxford Handbook", creators: ["Someone"], year: 2013, isbns: ["9780199830060"])
        let merged = ResultMerger.merge([("crossref", [chapterA, chapterB]), ("googlebooks", [book])])
        #expect(merged.count == 3)
        #expect(merged.allSatisfy { $0.sources.count == 1 })
        // A part is not joined by title either.
        let entry = record("crossref", "10.1/e", "Ecology", creators: ["A. Smith"], year: 2010, other: ["type": "reference-entry", "doi": "10.1/e"])
        #expect(!joined([entry, record("googlebooks", "h", "Ecology", creators: ["Smith, Anne"], year: 2010)]))
        // But its own DOI still joins.
        #expect(joined([entry, record("googlebooks", "i", "Ecology", other: ["doi": "10.1/E"])]))
    }

    @Test("an Open Library id is read by bytes as by splitting and uppercasing the text")
    func openLibraryIDs() {
        let values = ["/works/OL45804W", "OL45804W", "ol45804w", "/books/OL1M/", "OL1W//", "/works/OLW", "OL12W", "", "/", "works/OL9W/x",
                      "/works/ÖL1W", "/works/OL1Ｗ", "OL1\r\nW", "OL 7 W"]
        for value in values {
            for suffix: Character in ["W", "M"] {
                let id = value.split(separator: "/").last.map { $0.uppercased() } ?? ""
                let expected = id.hasPrefix("OL") && id.last == suffix && id.count > 3 ? id : nil
                #expect(BookIdentity.openLibrary(value, suffix: suffix) == expected, "\(value) \(suffix)")
            }
        }
    }

    @Test("a DOI is read by bytes as by trimming and lowercasing the text")
    func dois() {
        let values = ["10.1093/A", "https://doi.org/10.1/X", "HTTPS://DX.DOI.ORG/10.12/y", "doi:10.1/z", "https://doi.org/doi:10.1/z",
                      "doi:https://doi.org/10.1/z", "10.1", "10.12", "11.123", "", " 10.1/a ", "doi: 10.1/a", "10.1/É", "https://doi.org/"]
        for value in values {
            var text = Substring(value.trimmed().lowercased())
            for prefix in ["https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"] where text.hasPrefix(prefix) {
                text = text.dropFirst(prefix.count)
            }
            text = Substring(text.trimmed())
            #expect(BookIdentity.doi(value) == (text.hasPrefix("10.") && text.count > 4 ? String(text) : nil), "\(value)")
        }
    }

    @Test("a part's type is read by bytes as the lowercased text would be: any case, other scripts as before")
    func partTypes() {
        let values = ["book-chapter", "Book-Chapter", "PART", "part ", "book", "", "chapters", "entr", "book-trac\u{212A}", "Ｐart", "ChApTeR"]
        for value in values {
            #expect(BookIdentity.isPartType(value) == BookIdentity.partTypes.contains(value.lowercased()), "\(value)")
        }
        #expect(BookIdentity.isPartType("Book-Chapter") && BookIdentity.isPartType("book-trac\u{212A}") && !BookIdentity.isPartType("book"))
    }

    @Test("every source after a row's first says which key joined it")
    func joinedBy() {
        let openLibrary = record("openlibrary", "OL27448W", "The Lord of the Rings", creators: ["J. R. R. Tolkien"], year: 1954)
        let google = record("googlebooks", "g", "Lord of the Rings", creators: ["Tolkien, J.R.R."], year: 2005, isbns: ["0618640150"])
        let aladin = record("aladin", "a", "반지의 제왕", creators: ["J.R.R. 톨킨"], year: 2021, isbns: ["9780618640157"])
        let merged = ResultMerger.merge([("openlibrary", [openLibrary]), ("googlebooks", [google]), ("aladin", [aladin])])
        #expect(merged.count == 1)
        let sources = merged.first?.sources ?? []
        #expect(sources.map(\.joinedBy) == [nil, "title+creator lord of the rings / tolkien / 1954", "isbn 9780618640157"])
        let alone = ResultMerger.merge([("openlibrary", [openLibrary])])
        #expect(alone.first?.sources.first?.joinedBy == nil)
    }

    @Test("agreement between sources still raises a row")
    func agreementRanks() {
        let a = record("openlibrary", "OL1W", "Middlemarch", creators: ["George Eliot"], year: 1871)
        let b = record("gutendex", "145", "Middlemarch", creators: ["Eliot, George"], year: 1871)
        let c = record("openlibrary", "OL2W", "Other", creators: ["X Y"], year: 1871)
        let merged = ResultMerger.merge([("openlibrary", [c, a]), ("gutendex", [b])])
        #expect(merged.first?.sources.count == 2)
    }

    @Test("a block of one generic title from many sources stays bounded and correct")
    func largeBlock() {
        var lists: [(provider: String, items: [Item])] = []
        for source in 0..<8 {
            let items = (0..<100).map { index in
                record("p\(source)", "\(index)", "Poems", creators: ["Poet \(index)son"], year: 1900 + index % 3)
            }
            lists.append(("p\(source)", items))
        }
        let merged = ResultMerger.merge(lists)
        #expect(merged.count == 100)
        for row in merged {
            #expect(Set(row.sources.map(\.id.value)).count == 1)
            #expect(row.sources.count == 8)
        }
    }

    @Test("the title key's parts: volumes, series, box sets, generic titles, languages")
    func identityParts() {
        let identity = BookIdentity(record("x", "1", "The Story, Vol. IV: A Tale (Book 3)", creators: ["A B"], other: ["language": "ger"]))
        #expect(identity.title == "story")
        #expect(identity.volumes == [4])
        #expect(identity.restSeries == [3])
        #expect(identity.language == "de")
        #expect(BookIdentity(record("x", "1", "Poems 1962-2012")).boxSet == false)
        #expect(BookIdentity(record("x", "1", "Chronicles, Books 1–3")).boxSet)
        #expect(BookIdentity(record("x", "1", "Selected Works")).generic)
        #expect(CreatorKey("Martin Luther King, Jr.").map { [$0.family, $0.initial.map(String.init)] } == ["king", "m"])
        #expect(CreatorKey("Le Guin, Ursula K.").map { [$0.family, $0.initial.map(String.init)] } == ["guin", "u"])
        #expect(CreatorKey("한강 (지은이)").map { [$0.family, $0.initial.map(String.init)] } == ["한강", nil])
        #expect(CreatorKey.keys(["Rowling J K/ GrandPre Mary (ILT)"]).count == 2)
        let rowling = CreatorKey("J. K. Rowling"), inverted = CreatorKey("Rowling J K")
        #expect(rowling.flatMap { mine in inverted.map(mine.agrees) } == true)
        let henry = CreatorKey("Henry James"), joyce = CreatorKey("James Joyce")
        #expect(henry.flatMap { mine in joyce.map(mine.agrees) } == false)
    }

    /// Titles of every shape the readings know: brackets, subtitles, volume and series markers, glued
    /// numbers, Hangul and CJK, ranges, articles, elisions, dashes, generic titles.
    static let titleShapes: [(String, String?)] = [
        ("The Lord of the Rings", nil), ("Lord of the Rings, The", nil), ("The Fellowship of the Ring: Being the First Part", nil),
        ("Harry Potter and the Philosopher's Stone (Harry Potter, #1)", nil), ("해리 포터와 마법사의 돌 1", nil),
        ("해리포터와 마법사의 돌(Harry Potter and the Sorcerer's Stone)", "양장본 HardCover"), ("제2권 불의 잔", nil),
        ("ハリー 第2巻", nil), ("三体 上", nil), ("Dune - House Atreides", nil), ("Dune – House Atreides", nil),
        ("Dune — House Atreides: A Novel", "Book 1"), ("Moby Dick; Or, The Whale", nil), ("L'Étranger", nil), ("l'etranger", nil),
        ("Poems 1962-2012", nil), ("Chronicles, Books 1–3", nil), ("Harry Potter 1~3권 세트", nil), ("전5권 세트", nil),
        ("The Story, Vol. IV: A Tale (Book 3)", nil), ("Vol2 of Things", nil), ("Volume 2", nil), ("Part II", nil),
        ("Book Seventeen", nil), ("Book Seven", nil), ("Harry Potter Boxed Set", nil), ("The Complete Series", nil),
        ("The Complete Collection (1-7)", nil), ("Selected Works", nil), ("Poems", nil), ("Collected", nil), ("A", nil),
        ("Rock & Roll #2", nil), ("(Only Brackets)", nil), ("【세트】 토지 1-20", nil), ("토지（전20권）", nil),
        ("Title：Full-width Colon", nil), ("Crime and Punishment (Penguin Classics)", "A New Translation"),
        ("Über die Dinge", nil), ("Café Society", nil), ("Ａ Ｗｉｄｅ Ｔｉｔｌｅ", nil), ("", nil), ("   ", nil),
        ("The Two Towers Vol. 2 (The Lord of the Rings, #2)", "Being the Second Part 2"), ("Tolkien's Letters (Vol 3)", nil),
        ("Évolution de l'économie libérale, Vol. 2", nil), ("España: Año Nuevo", "Señor Ñandú"), ("Ørsted's Æther", nil),
        ("Straße", nil), ("Las libertades econo\u{301}micas", nil), ("\u{301}Óscar: Él (Señor)", nil), ("Ŀ'Œuvre", nil),
        ("Hē eleutheria prosōpōn – Vol. Ⅱ", nil), ("ハリー・ポッターと賢者の石 1", nil), ("宇宙の話をしよう", "ゝ゠ゟ"),
        ("보노보노 1~5 세트 (전5권,ぼのぼの)", nil), ("がぎぐ・パピプ 第3巻", nil), ("l\u{301}'été", nil),
    ]

    @Test("reading a title by bytes gives what reading it by words gives", arguments: titleShapes)
    func titleBytesAgree(title: String, subtitle: String?) {
        var words = BookIdentity(), bytes = BookIdentity()
        words.readTitleWords(title, subtitle: subtitle)
        guard bytes.readTitleBytes(title, subtitle: subtitle) else {
            // Text the byte reading does not know is read by words (`readTitle` falls back).
            var read = BookIdentity()
            read.readTitle(title, subtitle: subtitle)
            #expect(read.title == words.title && read.volumes == words.volumes)
            return
        }
        #expect(bytes.title == words.title)
        #expect(bytes.volumes == words.volumes)
        #expect(bytes.mainSeries == words.mainSeries)
        #expect(bytes.restSeries == words.restSeries)
        #expect(bytes.subtitle == words.subtitle)
        #expect(bytes.boxSet == words.boxSet)
        #expect(bytes.generic == words.generic)
        #expect(bytes.titleWordEnds == words.titleWordEnds)
        #expect(bytes.displayTitle == words.displayTitle)
    }

    @Test("most titles are read by bytes; other scripts and full-width letters are read by words")
    func titleBytesCoverage() {
        func readsByBytes(_ title: String) -> (Bool, String) {
            var identity = BookIdentity()
            let read = identity.readTitleBytes(title, subtitle: nil)
            return (read, identity.displayTitle)
        }
        let lord = readsByBytes("The Lord of the Rings")
        #expect(lord.0 && lord.1 == "lord of the rings")
        #expect(readsByBytes("해리 포터와 마법사의 돌(Harry Potter)").0)
        let cafe = readsByBytes("Café Society")
        #expect(cafe.0 && cafe.1 == "cafe society")
        #expect(readsByBytes("ハリー・ポッター").1 == "ハリー ポッター")
        #expect(!readsByBytes("Straße").0)
        #expect(!readsByBytes("Ａ Ｗｉｄｅ Ｔｉｔｌｅ").0)
    }

    @Test("every Latin letter, combining mark and kana reads by bytes as by words, in titles and rough titles")
    func latinAndKanaAgree() {
        for value in Array(0xC0...0x17F) + Array(0x300...0x36F) + Array(0x3040...0x30FF) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for title in ["x\(scalar)y z", "\(scalar) \(scalar)\(scalar)", "A\(scalar): b (\(scalar)c)"] {
                var words = BookIdentity(), bytes = BookIdentity()
                words.readTitleWords(title, subtitle: "s\(scalar)")
                if bytes.readTitleBytes(title, subtitle: "s\(scalar)") {
                    #expect(bytes.title == words.title && bytes.subtitle == words.subtitle, "U+\(String(value, radix: 16))")
                    #expect(bytes.titleWordEnds == words.titleWordEnds && bytes.generic == words.generic, "U+\(String(value, radix: 16))")
                }
                if let rough = BookIdentity.roughASCIIOrCJK(title) {
                    let main = BookIdentity.split(BookIdentity.bracketsRemoved(title).text).main
                    #expect(rough == BookIdentity.roughHash(TitleWords.words(of: main), comma: main.utf8.contains(0x2C)), "U+\(String(value, radix: 16))")
                }
            }
        }
    }

    @Test("reading a creator's name by bytes gives what reading it by words gives", arguments: [
        "J. R. R. Tolkien", "J.R.R. Tolkien", "Tolkien, J. R. R.", "Tolkien, J. R. R. (1892-1973)", "TOLKIEN", "Rowling J K",
        "Martin Luther King, Jr.", "King, Martin Luther, Jr.", "Le Guin, Ursula K.", "한강 (지은이)", "J.K. 롤링", "롤링, J. K.",
        "村上春樹", "(Anonymous)", "Smith, Jr.", "Smith,", ", John", "", "  ", "Frank Herbert & Brian Herbert", "D'Arcy, John",
        "Dumas, Alexandre [père]", "Ed.", "Brontë, Charlotte", "Иван Тургенев", "García Márquez, Gabriel", "Émile Zola",
        "村上 はるき", "ハリー・ポッター", "Ørsted, H. C.", "Jose\u{301} Saramago",
    ])
    func creatorBytesAgree(name: String) {
        let words = CreatorKey(words: name)
        guard let bytes = CreatorKey.readByBytes(name) else {
            // A name the byte reading does not know is read by words.
            #expect(CreatorKey(name) == words)
            return
        }
        #expect(bytes == words)
    }
}
