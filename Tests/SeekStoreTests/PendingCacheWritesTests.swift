import NIOConcurrencyHelpers
import SeekCore
import SeekSupport
import SeekTesting
import Testing

@testable import SeekStore

@Suite("Cache writes left running")
struct PendingCacheWritesTests {
    @Test("a write left running runs on the serving executor, as an unstructured task inherits none")
    func writeTakesTheServingExecutor() async {
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        let writes = PendingCacheWrites()
        let ranThere = NIOLockedValueBox<Bool?>(nil)
        ServingExecutor.$current.withValue(executor) {
            writes.track { ranThere.withLockedValue { $0 = executor.isCurrentThread } }
        }
        await writes.wait()
        #expect(ranThere.withLockedValue { $0 } == true)
        #expect(writes.count == 0)
    }
}
