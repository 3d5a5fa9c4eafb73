import Foundation
import SeekCore
import SeekKit
import SeekResilience
import Testing

/// What the state file at `url` holds, decoded strictly (`LockedStateFile` would read damage as empty).
private func stored(_ url: URL) throws -> [String] {
    try JSONDecoder().decode([String].self, from: Data(contentsOf: url))
}

/// The temporary file a writer of the state file at `url` writes before renaming it into place.
private func temporaryFile(of url: URL) -> URL {
    url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".tmp")
}

@Suite("Resilience: state files written atomically")
struct AtomicStateFileTests {
    @Test("a garbage temporary file left by a killed writer does not change what is read, and the next write succeeds")
    func leftoverTemporaryFile() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = ["before"] }
        // A writer killed half-way through a longer state.
        try Data(#"["before", "and a longer sta"#.utf8).write(to: temporaryFile(of: url))
        #expect(file.read() == ["before"])
        #expect(LockedStateFile(url: url, empty: [String]()).read() == ["before"])
        file.update { $0.append("after") }
        #expect(try stored(url) == ["before", "after"])
        #expect(file.read() == ["before", "after"])
        #expect(!FileManager.default.fileExists(atPath: temporaryFile(of: url).path), "the leftover was renamed into place")
    }

    @Test("a write that cannot create its temporary file (a folder in its place) keeps the old state in the file")
    func failedWriteKeepsOldState() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = ["old"] }
        // Running as root, a read-only folder would not stop the write: a non-empty folder where the
        // temporary file goes can be neither opened for writing nor removed.
        let blocker = temporaryFile(of: url)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: blocker.appendingPathComponent("inside"))
        file.update { $0 = ["new", "and longer than the old one"] }
        #expect(try stored(url) == ["old"])
    }

    @Test("a write that runs out of space (ENOSPC) keeps the old state in the file and leaves no temporary file")
    func fullDiskKeepsOldState() throws {
        try #require(FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full")
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = ["old"] }
        // Every write to /dev/full fails with ENOSPC, as on a full disk.
        try FileManager.default.createSymbolicLink(atPath: temporaryFile(of: url).path, withDestinationPath: "/dev/full")
        file.update { $0 = ["new"] }
        #expect(try stored(url) == ["old"])
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: temporaryFile(of: url).path)) == nil)
    }

    @Test("after a failed write this process reads its new state from memory, and the next write that succeeds stores it")
    func failedWriteCarriesOnInMemory() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = ["a"] }
        let blocker = temporaryFile(of: url)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        file.update { $0.append("b") }
        #expect(try stored(url) == ["a"])
        #expect(file.read() == ["a", "b"])
        #expect(LockedStateFile(url: url, empty: [String]()).read() == ["a", "b"], "shared by every instance for the path")
        try FileManager.default.removeItem(at: blocker)
        file.update { $0.append("c") }
        #expect(try stored(url) == ["a", "b", "c"])
        #expect(file.read() == ["a", "b", "c"])
    }

    @Test("an update replaces the file instead of rewriting it: a reader that opened the old one reads it whole")
    func replacedNotRewritten() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = Array(repeating: "a long entry", count: 20) }
        let old = try Data(contentsOf: url)
        let reader = try FileHandle(forReadingFrom: url)
        defer { try? reader.close() }
        file.update { $0 = ["short"] }
        #expect(try reader.readToEnd() == old)
        #expect(try stored(url) == ["short"])
    }

    @Test("reading takes no lock: a read goes through while another process holds the update lock")
    func readersTakeNoLock() async throws {
        let folder = try resilienceTemporaryDirectory()
        let file = LockedStateFile(url: folder.appendingPathComponent("state.json"), empty: [String]())
        file.update { $0 = ["stored"] }
        let (state, first) = try await whileAnotherProcessHoldsTheLock(of: "state.json", in: folder) { file.read() }
        #expect(state == ["stored"])
        #expect(first, "the read waited for the other process's lock")
    }

    @Test("an update that finds the empty state and leaves it so takes no lock and writes nothing")
    func emptyStateKeptWithoutTheLock() async throws {
        let folder = try resilienceTemporaryDirectory()
        let url = folder.appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = [] }
        let (count, first) = try await whileAnotherProcessHoldsTheLock(of: "state.json", in: folder) {
            file.update { state in state.count }
        }
        #expect(count == 0)
        #expect(first, "the update waited for the other process's lock")
        #expect(!FileManager.default.fileExists(atPath: url.path), "nothing was stored for the empty state")
    }

    @Test("an update that changes the empty state is stored, as before")
    func changeFromTheEmptyStateIsStored() throws {
        let url = try resilienceTemporaryDirectory().appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = [] }
        #expect(file.update { state -> Int in state.append("first"); return state.count } == 1)
        #expect(try stored(url) == ["first"])
        file.update { $0 = [] }
        #expect(file.read() == [], "emptied again: an empty file")
    }

    /// Runs `body` while flock(1), another process, holds the update lock of state file `name` in
    /// `folder`; returns what `body` returned and whether it finished before that process let go.
    private func whileAnotherProcessHoldsTheLock<T>(
        of name: String, in folder: URL, _ body: () -> T
    ) async throws -> (T, finishedFirst: Bool) {
        let flock = URL(fileURLWithPath: "/usr/bin/flock")
        try #require(FileManager.default.isExecutableFile(atPath: flock.path), "needs util-linux flock(1)")
        let locked = folder.appendingPathComponent("locked")
        let proceed = folder.appendingPathComponent("proceed")
        let released = folder.appendingPathComponent("released")
        // flock(1) holds the update lock until told to let go (or for 20 s), leaving a marker when it
        // has it and another just before letting go: a call that waited for it would come after that.
        let holder = Process()
        holder.executableURL = flock
        holder.arguments = [
            "--exclusive", folder.appendingPathComponent(".\(name).lock").path, "--command",
            "touch '\(locked.path)'; for i in $(seq 400); do [ -e '\(proceed.path)' ] && break; sleep 0.05; done; touch '\(released.path)'",
        ]
        try holder.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: locked.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(FileManager.default.fileExists(atPath: locked.path), "flock(1) never took the lock")
        let value = body()
        let first = !FileManager.default.fileExists(atPath: released.path)
        try Data().write(to: proceed)
        // Waiting without blocking a thread of the cooperative pool.
        while holder.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        return (value, first)
    }

    @Test("many updates leave only the state file and its hidden lock file in the folder")
    func noLeftovers() throws {
        let folder = try resilienceTemporaryDirectory()
        let url = folder.appendingPathComponent("state.json")
        let file = LockedStateFile(url: url, empty: [String]())
        for index in 0..<10 { file.update { $0.append("entry \(index)") } }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == [".state.json.lock", "state.json"])
        #expect(try stored(url).count == 10)
    }
}
