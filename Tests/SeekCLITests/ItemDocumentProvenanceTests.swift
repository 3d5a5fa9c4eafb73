import SeekKit
import SeekRuntime
import Testing

@Suite("The search document: each result's provenance")
struct ItemDocumentProvenanceTests {
    /// The provenance as any dictionary is written: keys sorted.
    private func generic(_ provenance: [String: String]) -> String { JSONWriter.text(provenance) }

    private func written(_ provenance: [String: String]) -> String {
        var writer = JSONWriter()
        ItemDocument.write(provenance: provenance, to: &writer)
        return writer.text
    }

    @Test("every field the merger names, some of them, or none: written as the dictionary, keys sorted", arguments: [
        ["creators": "a", "description": "b", "image": "c", "subtitle": "d", "title": "e", "url": "f", "year": "g"],
        ["title": "openlibrary", "year": "aladin", "image": "giphy"], ["title": "x"], [:],
    ])
    func knownFields(provenance: [String: String]) {
        #expect(written(provenance) == generic(provenance))
    }

    @Test("a field name the merger does not use is written too, in its sorted place", arguments: [
        ["title": "a", "publisher": "b"], ["zzz": "z", "aaa": "a", "url": "u"], ["title\"": "q", "title": "t"],
    ])
    func otherFields(provenance: [String: String]) {
        #expect(written(provenance) == generic(provenance))
    }
}
