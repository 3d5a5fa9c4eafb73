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
}
