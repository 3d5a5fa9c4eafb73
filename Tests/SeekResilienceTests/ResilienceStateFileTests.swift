import Foundation
import SeekCore
import SeekKit
import SeekLoopback
import SeekResilience
import Testing

@Suite("Resilience: locked state files")
struct ResilienceStateFileTests {
    @Test("concurrent read-modify-writes through separate instances lose no update")
    func noLostUpdates() async throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("counter.json")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    // Each write is fsynced: the writers wait for the disk and for each other on threads
                    // of their own, so other tests keep the cooperative pool's.
                    await withCheckedContinuation { continuation in
                        Thread.detachNewThread {
                            let file = LockedStateFile(url: url, empty: 0)
                            for _ in 0..<100 { file.update { $0 += 1 } }
                            continuation.resume()
                        }
                    }
                }
            }
        }
        #expect(LockedStateFile(url: url, empty: 0).read() == 400)
    }

    @Test("another process holding the lock makes an update wait for it")
    func crossProcessLock() async throws {
        let flock = URL(fileURLWithPath: "/usr/bin/flock")
        try #require(FileManager.default.isExecutableFile(atPath: flock.path), "needs util-linux flock(1)")
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0.append("created") }
        // flock(1) takes the same flock(2) lock on the state's lock file (beside it, as the state file
        // itself is replaced by rename), says so with a marker file, holds it a second, and leaves a
        // second marker just before letting go.
        let lockFile = url.deletingLastPathComponent().appendingPathComponent(".state.json.lock")
        let locked = url.deletingLastPathComponent().appendingPathComponent("locked")
        let released = url.deletingLastPathComponent().appendingPathComponent("released")
        let holder = Process()
        holder.executableURL = flock
        holder.arguments = ["--exclusive", lockFile.path, "--command", "touch '\(locked.path)'; sleep 1; touch '\(released.path)'"]
        try holder.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: locked.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(FileManager.default.fileExists(atPath: locked.path), "flock(1) never took the lock")
        // Blocking on the lock happens on a thread of its own, not on the cooperative pool.
        let releasedFirst = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                file.update { $0.append("after the other process") }
                continuation.resume(returning: FileManager.default.fileExists(atPath: released.path))
            }
        }
        holder.waitUntilExit()
        #expect(releasedFirst, "the update went through while the other process held the lock")
        #expect(file.read() == ["created", "after the other process"])
    }

    @Test("a corrupt file reads as the empty state and is rewritten on the next update")
    func corruptFile() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        try Data("{not json".utf8).write(to: url)
        let file = LockedStateFile(url: url, empty: ["a": 1])
        #expect(file.read() == ["a": 1])
        file.update { $0["b"] = 2 }
        #expect(file.read() == ["a": 1, "b": 2])
    }

    @Test("a shorter state rewrites the file without leftovers")
    func shrinks() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = Array(repeating: "long entry", count: 50) }
        file.update { $0 = ["short"] }
        #expect(file.read() == ["short"])
    }

    @Test("an update that changes nothing leaves the file as it was")
    func unchangedIsNotRewritten() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        // Written by hand, in a layout the encoder would not produce: a rewrite would show.
        let text = "[ \"kept\" ,\n  \"as is\" ]"
        try Data(text.utf8).write(to: url)
        let file = LockedStateFile(url: url, empty: [String]())
        let count = file.update { $0.count }
        #expect(count == 2)
        #expect(String(decoding: try Data(contentsOf: url), as: UTF8.self) == text)
        file.update { $0.append("changed") }
        #expect(file.read() == ["kept", "as is", "changed"])
    }

    @Test("the empty state is stored as an empty file, and reads back as the empty state")
    func emptyStateIsEmptyFile() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = ["a"] }
        #expect(try Data(contentsOf: url).isEmpty == false)
        file.update { $0 = [] }
        #expect(try Data(contentsOf: url).isEmpty)
        #expect(file.read() == [])
        file.update { $0 = ["b"] }
        file.reset()
        #expect(try Data(contentsOf: url).isEmpty)
        #expect(file.read() == [])
    }

    @Test("reading never creates the file")
    func readDoesNotCreate() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("sub/state.json")
        #expect(LockedStateFile(url: url, empty: 7).read() == 7)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("the first update creates the file's missing folders, several levels deep")
    func updateCreatesFolders() throws {
        let root = try resilienceTemporaryDirectory()
        let url = root.appendingPathComponent("a/b/c/state.json")
        LockedStateFile(url: url, empty: 0).update { $0 += 3 }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("a/b/c").path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(LockedStateFile(url: url, empty: 0).read() == 3)
    }

    @Test("concurrent first updates in a folder that does not exist yet all reach the file")
    func concurrentFolderCreation() async throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("new/deeper/counter.json")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { LockedStateFile(url: url, empty: 0).update { $0 += 1 } } }
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(LockedStateFile(url: url, empty: 0).read() == 8)
    }

    @Test("an unusable location keeps the state in process memory, shared by every instance")
    func memoryFallback() throws {
        let blocker = try resilienceTemporaryDirectory().appendingPathComponent("file")
        try Data().write(to: blocker)
        // A path under a regular file can never be created.
        let url = blocker.appendingPathComponent("state.json")
        LockedStateFile(url: url, empty: 0).update { $0 += 5 }
        #expect(LockedStateFile(url: url, empty: 0).read() == 5)
    }
}

@Suite("Resilience: provider stats")
struct ResilienceStatsTests {
    func record(_ store: ProviderStatsStore, _ provider: String, _ status: ProviderStatus, ms: Int) {
        let error = status.answered ? nil : SeekError(.httpStatus(500), provider: provider, detail: "http://x?api_key=SECRET")
        store.record(provider: provider, status: status, elapsed: .milliseconds(ms), count: status == .ok ? 3 : 0, error: error)
    }

    @Test("percentiles are nearest-rank")
    func percentiles() {
        let values = Array(1...100)
        #expect(ProviderStatsSummary.percentile(50, of: values) == 50)
        #expect(ProviderStatsSummary.percentile(95, of: values) == 95)
        #expect(ProviderStatsSummary.percentile(95, of: [10]) == 10)
        #expect(ProviderStatsSummary.percentile(50, of: []) == nil)
    }

    @Test("a summary gives calls, success rate, p50/p95 and the last error")
    func summary() throws {
        let store = ProviderStatsStore(url: try resilienceTemporaryDirectory().appendingPathComponent("stats.json"))
        for ms in [10, 20, 30, 40] { record(store, "ol", .ok, ms: ms) }
        record(store, "ol", .error, ms: 1000)
        let summary = store.summary(for: "ol")
        #expect(summary.calls == 5)
        #expect(summary.successes == 4)
        #expect(summary.successRate == 0.8)
        #expect(summary.p50Ms == 30)
        #expect(summary.p95Ms == 1000)
        #expect(summary.lastError?.hasPrefix("HTTP 500") == true)
        #expect(summary.lastError?.contains("SECRET") == false)
    }

    @Test("only the most recent calls of each provider are kept")
    func window() throws {
        let store = ProviderStatsStore(url: try resilienceTemporaryDirectory().appendingPathComponent("stats.json"), window: 10)
        for ms in 1...25 { record(store, "ol", .ok, ms: ms) }
        record(store, "giphy", .ok, ms: 5)
        let records = store.records()
        #expect(records["ol"]?.map(\.elapsedMs) == Array(16...25))
        #expect(records["giphy"]?.count == 1)
    }

    @Test("recording appends one JSON line per call and never rewrites earlier ones")
    func appendsLines() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl")
        let store = ProviderStatsStore(url: url)
        record(store, "ol", .ok, ms: 10)
        let first = try Data(contentsOf: url)
        record(store, "giphy", .error, ms: 20)
        let both = try Data(contentsOf: url)
        #expect(both.prefix(first.count) == first)
        let lines = String(decoding: both, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        let second = try JSONValue(parsing: Data(lines[1].utf8))
        #expect(second["provider"] == .string("giphy"))
        #expect(second["status"] == .string("error"))
        #expect(second["elapsedMs"] == .number(20))
        #expect(second["error"]?.stringValue?.contains("SECRET") == false)
    }

    @Test("past the compaction size the file keeps only each provider's last calls")
    func compacts() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl")
        let store = ProviderStatsStore(url: url, window: 5, compactionBytes: 2048)
        for ms in 1...100 { record(store, "ol", .ok, ms: ms) }
        record(store, "giphy", .ok, ms: 7)
        let size = try Data(contentsOf: url).count
        #expect(size <= 2048)
        let records = store.records()
        #expect(records["ol"]?.map(\.elapsedMs) == Array(96...100))
        #expect(records["giphy"]?.map(\.elapsedMs) == [7])
    }

    @Test("a damaged line is skipped, the others still count")
    func skipsDamagedLines() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl")
        let store = ProviderStatsStore(url: url)
        record(store, "ol", .ok, ms: 10)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"provider\":\"ol\",\"at\":17\n[1,2]\n{\"provider\":\"ol\"}\n".utf8))
        try handle.close()
        record(store, "ol", .ok, ms: 30)
        #expect(store.records()["ol"]?.map(\.elapsedMs) == [10, 30])
    }

    @Test("concurrent writers through separate stores lose no call")
    func concurrentAppends() async throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl")
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let store = ProviderStatsStore(url: url, window: 1000)
                    for ms in 0..<50 { self.record(store, "p\(writer)", .ok, ms: ms) }
                }
            }
        }
        let records = ProviderStatsStore(url: url, window: 1000).records()
        for writer in 0..<4 { #expect(records["p\(writer)"]?.map(\.elapsedMs) == Array(0..<50)) }
    }

    @Test("a stats log removed between two calls holds the second call, in a new file")
    func removedLogIsMadeAgain() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl")
        let store = ProviderStatsStore(url: url)
        record(store, "ol", .ok, ms: 10)
        try FileManager.default.removeItem(at: url)
        record(store, "ol", .ok, ms: 20)
        #expect(store.records()["ol"]?.map(\.elapsedMs) == [20])
    }

    @Test("a stats log replaced by another file (renamed over it) gets the next call, after the file's own lines")
    func replacedLogGetsTheNextCall() throws {
        let folder = try resilienceTemporaryDirectory()
        let url = folder.appendingPathComponent("stats.jsonl")
        let store = ProviderStatsStore(url: url)
        record(store, "ol", .ok, ms: 10)
        let replacement = folder.appendingPathComponent("replacement")
        let line = #"{"provider":"giphy","at":\#(Date().timeIntervalSince1970),"status":"ok","elapsedMs":5,"count":1}"#
        try Data((line + "\n").utf8).write(to: replacement)
        #expect(rename(replacement.path, url.path) == 0)
        record(store, "ol", .ok, ms: 20)
        let records = store.records()
        #expect(records["ol"]?.map(\.elapsedMs) == [20])
        #expect(records["giphy"]?.map(\.elapsedMs) == [5])
    }

    @Test("stores of two stats logs, called in turn, each keep their own calls")
    func twoLogsInTurn() throws {
        let first = ProviderStatsStore(url: try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl"))
        let second = ProviderStatsStore(url: try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl"))
        for ms in 1...3 {
            record(first, "ol", .ok, ms: ms)
            record(second, "ol", .ok, ms: 10 * ms)
        }
        #expect(first.records()["ol"]?.map(\.elapsedMs) == [1, 2, 3])
        #expect(second.records()["ol"]?.map(\.elapsedMs) == [10, 20, 30])
    }

    @Test("an unusable location keeps the calls in the store's memory")
    func memoryFallback() throws {
        let blocker = try resilienceTemporaryDirectory().appendingPathComponent("file")
        try Data().write(to: blocker)
        let store = ProviderStatsStore(url: blocker.appendingPathComponent("stats.jsonl"), window: 2)
        for ms in [1, 2, 3] { record(store, "ol", .ok, ms: ms) }
        #expect(store.records()["ol"]?.map(\.elapsedMs) == [2, 3])
        store.clear()
        #expect(store.records().isEmpty)
    }

    @Test("clear forgets every call")
    func clears() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("stats.jsonl")
        let store = ProviderStatsStore(url: url)
        record(store, "ol", .ok, ms: 10)
        store.clear()
        #expect(store.records().isEmpty)
        record(store, "ol", .ok, ms: 20)
        #expect(store.records()["ol"]?.map(\.elapsedMs) == [20])
    }

    @Test("a provider without calls has no rate and no latencies")
    func emptySummary() throws {
        let store = ProviderStatsStore(url: try resilienceTemporaryDirectory().appendingPathComponent("stats.json"))
        let summary = store.summary(for: "none")
        #expect(summary.calls == 0)
        #expect(summary.successRate == nil)
        #expect(summary.p50Ms == nil)
    }
}
