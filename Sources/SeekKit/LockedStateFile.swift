#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekSupport

/// A small JSON state file that several `seek` processes (and tasks of one process) read and change
/// safely, and that a kill, a crash or a full disk at any moment leaves holding a whole state, old or new.
///
/// How: an update holds `flock(2)` on a lock file beside the state (`.NAME.lock`) for its
/// read-modify-write, writes the new state to a temporary file beside it (`.NAME.tmp`, one fixed name
/// that the next writer truncates, so a killed writer's leftover never accumulates), fsyncs it,
/// `rename(2)`s it over `NAME` and fsyncs the folder so the rename survives a power cut too. The lock
/// has a file of its own because rename gives the state a new inode: a lock on the old one would
/// guard nothing. Readers take no lock, as rename makes each read see one whole file. The lock dies
/// with its process, so a crash cannot leave it held. The side files start with a dot so that
/// listings of state files (`seek providers --reset` matching `ID@host…`) pass them by.
///
/// When the file cannot be used — its folder cannot be made or its lock file opened (a read-only
/// cache), or writing the new state fails (ENOSPC, EIO, the temporary name taken by a folder) — the
/// file keeps its old state untouched and this process carries on with the new state in its memory,
/// shared by every instance for the same path: its later reads and updates see that state, other
/// processes still see the file's. The next update whose write succeeds stores it and leaves memory.
/// A file that does not decode (written by hand, or by something else) reads as the empty state.
package struct LockedStateFile<State: Codable & Sendable & Equatable>: Sendable {
    /// The file's path; nil keeps the state in process memory only.
    package let path: String?
    private let memoryName: String?
    private let empty: State

    /// State kept in the file at `url` (its directory is created on first use).
    package init(url: URL, empty: State) {
        self.init(path: url.path, empty: empty)
    }

    /// State kept in the file at `path`: for callers that name a file per call (a breaker's admit and
    /// record), as making a file `URL` cost more than the stat(2) that usually follows.
    package init(path: String, empty: State) {
        self.path = path
        self.memoryName = nil
        self.empty = empty
    }

    /// State kept only in this process's memory, shared by every instance with the same `name`.
    package init(inMemory name: String, empty: State) {
        self.path = nil
        self.memoryName = name
        self.empty = empty
    }

    /// Where the state lives in memory when the file cannot be used (or there is none); made only
    /// then, as standardising a file URL costs more than the file access it stands in for.
    private var memoryKey: String {
        if let memoryName { return "memory:" + memoryName }
        return path.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? ""
    }

    /// The current state; a missing or unreadable file reads as the empty state (or as the state this
    /// process keeps in memory after the file could not be written).
    package func read() -> State {
        guard let path else { return memoryState() }
        if let kept = fallback() { return decode(kept) }
        return StateFileIO.contents(of: path).map(decode) ?? empty
    }

    /// Applies `change` to the state under an exclusive lock and stores the result; returns what `change` returns.
    /// Keep `change` quick and free of side effects: other processes wait for the lock meanwhile, and
    /// it may run twice (once on the empty state without the lock, see below).
    @discardableResult
    package func update<T: Sendable>(_ change: (inout State) -> T) -> T {
        guard let path else { return updateInMemory(change) }
        let paths = StateFilePaths(path)
        // Most updates find the empty state and leave it so (a closed breaker admits a call and records
        // its success): one stat(2) tells, with no lock taken and nothing written. Replacement is atomic,
        // so the empty file seen is what the lock would have shown at that moment.
        if StateFileIO.isEmptyOrMissing(paths.data), fallback() == nil {
            var state = empty
            let result = change(&state)
            if state == empty { return result }
        }
        guard let lock = StateFileIO.lock(paths) else {
            // No lock, no write: the state carries on in memory, from the file's if it can be read.
            return updateInMemory(change) { StateFileIO.contents(of: paths.data).map(decode) ?? empty }
        }
        defer { StateFileIO.unlock(lock) }
        let data = StateFileIO.contents(of: paths.data)
        // Read under the lock: every change to a file-backed memory state is made under it.
        let kept = fallback()
        let before = decode(kept ?? data ?? Data())
        var state = before
        let result = change(&state)
        // What the file is to hold; nil when it holds it already. Most calls change nothing (a closed
        // breaker stays closed): no encoding, no write. The empty state is an empty file, so the next
        // reader skips JSON decoding altogether, and no file at all until something else was stored.
        let wanted: Data?
        if state == empty {
            wanted = (kept == nil && (data ?? Data()).isEmpty) ? nil : Data()
        } else if state != before || kept != nil {
            wanted = try? Self.encoder.encode(state)
        } else {
            wanted = nil
        }
        guard let wanted else { return result }
        if StateFileIO.replace(paths, with: wanted) {
            if kept != nil { fallbackStore.withLockedValue { $0[memoryKey] = nil } }
        } else {
            // The file keeps its old state; this process keeps the new one until a write succeeds.
            fallbackStore.withLockedValue { $0[memoryKey] = wanted }
        }
        return result
    }

    /// Makes the state empty again: an empty file (replaced under the lock like any update), or an
    /// empty state in memory when the file cannot be written.
    package func reset() {
        let empty = self.empty
        update { $0 = empty }
        if path == nil { memoryStore.withLockedValue { $0[memoryKey] = nil } }
    }

    // MARK: Plumbing

    /// The encoded state of a memory-only instance.
    private func memoryState() -> State {
        memoryStore.withLockedValue { store in store[memoryKey] }.map(decode) ?? empty
    }

    /// The encoded state this process keeps for the file because it could not be written; nil when
    /// the file is in use (the usual case, found without making the key).
    private func fallback() -> Data? {
        fallbackStore.withLockedValue { store in store.isEmpty ? nil : store[memoryKey] }
    }

    /// `change` applied to the state in memory: a memory-only instance's, or a file's that cannot be
    /// locked (starting from `initial()` the first time).
    private func updateInMemory<T>(_ change: (inout State) -> T, initial: () -> State? = { nil }) -> T {
        let key = memoryKey
        let empty = self.empty
        return (path == nil ? memoryStore : fallbackStore).withLockedValue { store in
            var state = store[key].map(decode) ?? initial() ?? empty
            let result = change(&state)
            store[key] = try? Self.encoder.encode(state)
            return result
        }
    }

    private func decode(_ data: Data) -> State {
        guard !data.isEmpty else { return empty }
        return (try? Self.decoder.decode(State.self, from: data)) ?? empty
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

/// Encoded states of memory-only `LockedStateFile`s, by name.
private let memoryStore = NIOLockedValueBox<[String: Data]>([:])

/// Encoded states of `LockedStateFile`s whose file cannot be locked or written, by standardised path.
private let fallbackStore = NIOLockedValueBox<[String: Data]>([:])

/// The paths a state file at `data` uses: its folder, its lock file and its temporary file.
struct StateFilePaths {
    let data: String
    let directory: String
    let lock: String
    let temporary: String

    init(_ path: String) {
        // On UTF-8 bytes: "/" never occurs inside another character's encoding, and each provider
        // call works out these paths twice (its breaker's admit and record).
        let slashByte = UInt8(ascii: "/")
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == slashByte { bytes.removeLast() }
        data = String(decoding: bytes, as: UTF8.self)
        let slash = bytes.lastIndex(of: slashByte)
        let folder = slash.map { Array(bytes[...$0]) } ?? []
        let name = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
        directory = folder.isEmpty ? "." : folder.count == 1 ? "/" : String(decoding: folder.dropLast(), as: UTF8.self)
        let stem = String(decoding: folder, as: UTF8.self) + "." + String(decoding: name, as: UTF8.self)
        lock = stem + ".lock"
        temporary = stem + ".tmp"
    }
}

/// The syscalls of `LockedStateFile`: a lock file, whole-file reads, atomic replacement.
enum StateFileIO {
    /// Opens (creating it and its folder if needed) and exclusively locks the lock file; nil when it
    /// cannot be (a read-only or impossible location). `unlock` lets go.
    static func lock(_ paths: StateFilePaths) -> Int32? {
        // Read-only suffices for flock(2), and works on a lock file another user made.
        var fd = openFile(paths.lock, O_RDONLY | O_CREAT | O_CLOEXEC)
        if fd < 0, errno == ENOENT, LockedFile.makeDirectories(paths.directory) {
            fd = openFile(paths.lock, O_RDONLY | O_CREAT | O_CLOEXEC)
        }
        guard fd >= 0 else { return nil }
        guard LockedFile.lock(fd, exclusive: true) else {
            _ = close(fd)
            return nil
        }
        return fd
    }

    /// Lets go of a lock from `lock`: closing the only descriptor of the lock file releases it.
    /// A failed close loses nothing here (nothing was written through it).
    static func unlock(_ fd: Int32) {
        _ = close(fd)
    }

    /// Whether `path` names no file or an empty regular file: the empty state, known without opening it.
    static func isEmptyOrMissing(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return errno == ENOENT }
        return (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0
    }

    /// The whole file at `path`; nil when it is missing or cannot be read (a folder in its place, EIO).
    static func contents(of path: String) -> Data? {
        let fd = openFile(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        // Read-only: a failed close loses nothing.
        defer { _ = close(fd) }
        return FileDescriptorIO.readToEnd(fd)
    }

    /// Makes `data` the state file's content atomically: written to the temporary file, fsynced,
    /// renamed over the state file, the folder fsynced. False when any step before the rename fails;
    /// the state file is then untouched and the temporary file removed if it can be.
    static func replace(_ paths: StateFilePaths, with data: Data) -> Bool {
        // O_TRUNC: a killed writer's leftover is overwritten, never appended to.
        let fd = openFile(paths.temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { return false }
        let written = FileDescriptorIO.writeAll(fd, data) && syncFile(fd)
        // A failed close (EIO on a network file system) may mean lost data; EINTR still closes it.
        let closed = close(fd) == 0 || errno == EINTR
        guard written, closed, rename(paths.temporary, paths.data) == 0 else {
            // Not to be left half-written; fails harmlessly when the name is a folder or already gone.
            _ = unlink(paths.temporary)
            return false
        }
        syncDirectory(paths.directory)
        return true
    }

    /// open(2) (files made 0644, less the umask), again after an interruption; -1 with `errno` on failure.
    private static func openFile(_ path: String, _ flags: Int32) -> Int32 {
        while true {
            let fd = open(path, flags, 0o644)
            if fd >= 0 || errno != EINTR { return fd }
        }
    }

    /// fsync(2), again after an interruption; false when the data may not have reached the disk.
    private static func syncFile(_ fd: Int32) -> Bool {
        while fsync(fd) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Makes a rename in `path` durable. Best effort, after the fact: the new state is already what
    /// every process reads, so a failure (EINVAL where folders cannot be synced, EIO) has nothing to
    /// undo and only risks the rename not surviving a power cut.
    private static func syncDirectory(_ path: String) {
        let fd = openFile(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = syncFile(fd)
        _ = close(fd)
    }
}

/// `flock(2)`-locked file access of the stats log (which appends and compacts in place), and the
/// folder making the state files use too.
package enum LockedFile {
    /// Opens and locks `url`; nil when the file cannot be used. Writers (`exclusive`, or `create`)
    /// create the file and its directory if needed; readers never create anything.
    package static func openLocked(_ url: URL, exclusive: Bool, create: Bool = false, append: Bool = false) -> Int32? {
        guard let fd = openFile(url, writes: exclusive || create, append: append) else { return nil }
        guard lock(fd, exclusive: exclusive) else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Opens `url`, unlocked; nil when the file cannot be used. A writer creates the file and its
    /// directory if needed; a reader never creates anything.
    package static func openFile(_ url: URL, writes: Bool, append: Bool) -> Int32? {
        let path = url.path
        let flags = writes ? O_RDWR | O_CREAT | O_CLOEXEC | (append ? O_APPEND : 0) : O_RDONLY | O_CLOEXEC
        var fd = open(path, flags, 0o644)
        if writes, fd < 0, errno == ENOENT, makeDirectories(url.deletingLastPathComponent().path) {
            fd = open(path, flags, 0o644)
        }
        return fd >= 0 ? fd : nil
    }

    /// Takes a shared or exclusive `flock` on `fd`, waiting for it; false when it cannot be taken.
    package static func lock(_ fd: Int32, exclusive: Bool) -> Bool {
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Creates `path` and its missing parents, as `mkdir -p` does; true when it is a directory then.
    /// `mkdir(2)` directly: `FileManager`'s `createDirectory` costs ~0.2 ms a call on Linux, and a
    /// search's state files are opened on the way to every request.
    package static func makeDirectories(_ path: String) -> Bool {
        if mkdir(path, 0o777) == 0 { return true }
        switch errno {
        case EEXIST:
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        case ENOENT:
            var parent = Substring(path)
            while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
            guard let slash = parent.lastIndex(of: "/") else { return false }
            let parentPath = slash == parent.startIndex ? "/" : String(parent[..<slash])
            guard parentPath != path, makeDirectories(parentPath) else { return false }
            return mkdir(path, 0o777) == 0 || errno == EEXIST
        default:
            return false
        }
    }

    /// Lets go of a lock from `lock`, keeping the file open.
    package static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
    }

    package static func unlockAndClose(_ fd: Int32) {
        unlock(fd)
        close(fd)
    }

    package static func readAll(_ fd: Int32) -> Data {
        FileDescriptorIO.preadToEnd(fd)
    }

    /// Makes `data` the whole file.
    package static func replaceContents(_ fd: Int32, with data: Data) {
        let written = FileDescriptorIO.pwriteAll(fd, data)
        _ = ftruncate(fd, off_t(written))
    }

    /// The file's size in bytes, and how many names it has: none once it was removed or replaced.
    package static func status(_ fd: Int32) -> (size: Int, links: Int)? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return (Int(info.st_size), Int(info.st_nlink))
    }
}
