import SeekCore
import SeekIdentity
import SeekKit
import SeekLoopback
import Testing

@Suite("A key shared within one provider joins nothing")
struct SameProviderMergeTests {
    @Test("two works of one provider that list a shared box-set ISBN stay two rows")
    func sameProviderSharedISBNStaysApart() {
        let fellowship = book("openlibrary", "OL1W", "The Fellowship of the Ring", isbns: ["9780618640157", "9780261102354"])
        let towers = book("openlibrary", "OL2W", "The Two Towers", isbns: ["9780618640157", "9780261102361"])
        let merged = ResultMerger.merge([("openlibrary", [fellowship, towers])])
        #expect(merged.map(\.item.id.value) == ["OL1W", "OL2W"])
    }

    @Test("another provider's copy still joins the first record that shares its ISBN")
    func otherProviderJoinsOneOfThem() {
        let fellowship = book("openlibrary", "OL1W", "The Fellowship of the Ring", isbns: ["9780618640157", "9780261102354"])
        let towers = book("openlibrary", "OL2W", "The Two Towers", isbns: ["9780618640157", "9780261102361"])
        let aladinTowers = book("aladin", "9780261102361", "The Two Towers", isbns: ["9780261102361"])
        let merged = ResultMerger.merge([("openlibrary", [fellowship, towers]), ("aladin", [aladinTowers])])
        #expect(merged.count == 2)
        let towersRow = merged.first { $0.sources.contains { $0.id.value == "OL2W" } }
        #expect(towersRow?.sources.map(\.provider).sorted() == ["aladin", "openlibrary"])
    }
}

extension SameProviderMergeTests {
    @Test("two editions of one provider still meet in one row through another provider's work listing both")
    func sameProviderJoinsThroughAnother() {
        let work = book("openlibrary", "OL1W", "Quiet", isbns: ["9780307352149", "9780307352156"])
        let hardcover = book("aladin", "9780307352149", "Quiet", isbns: ["9780307352149"])
        let paperback = book("aladin", "9780307352156", "Quiet", isbns: ["9780307352156"])
        let merged = ResultMerger.merge([("openlibrary", [work]), ("aladin", [hardcover, paperback])])
        #expect(merged.count == 1)
        #expect(merged.first?.sources.count == 3)
    }
}
