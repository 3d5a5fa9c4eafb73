import SeekCore
import SeekStore
import Testing

@Suite("The in-memory cursor store")
struct MemoryCursorStoreTests {
    func cursor(_ page: Int) -> SearchCursor {
        SearchCursor(positions: ["openlibrary": "\(page * 20)"], page: page, seen: [])
    }

    @Test("a token it handed out gives its cursor back; a token it never made gives nothing")
    func roundTrip() async {
        let store = MemoryCursorStore()
        let token = await store.token(for: cursor(2))
        #expect(await store.cursor(for: token) == cursor(2))
        #expect(await store.cursor(for: MemoryCursorStore.newToken()) == nil)
    }

    @Test("past its capacity it forgets the cursor used least recently")
    func boundedByCapacity() async {
        let store = MemoryCursorStore(capacity: 2)
        let first = await store.token(for: cursor(2))
        let second = await store.token(for: cursor(3))
        _ = await store.cursor(for: first)  // used: now newer than the second
        let third = await store.token(for: cursor(4))
        #expect(await store.cursor(for: first) == cursor(2))
        #expect(await store.cursor(for: second) == nil)
        #expect(await store.cursor(for: third) == cursor(4))
    }

    @Test("a token never starts with - or _, which a command line would read as an option")
    func tokensReadAsValues() {
        // 2,000 tokens: with a random first character, about 62 would start with one of them.
        let tokens = (0..<2000).map { _ in MemoryCursorStore.newToken() }
        #expect(tokens.allSatisfy { $0.first != "-" && $0.first != "_" })
        #expect(tokens.allSatisfy { $0.utf8.count == 22 })
        #expect(Set(tokens).count == tokens.count)
    }
}
