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
import SeekHTTP
import SeekJSON

/// A small JSON state file that several `seek` processes (and tasks of one process) read and change
/// safely: every access holds `flock(2)` on the file for a read-modify-write of a few hundred bytes.
///
/// Why this is safe across processes: `flock` locks the open file description, so two processes — or
/// two `open` calls in one process — exclude each other; the file is rewritten in place while the
/// exclusive lock is held and every reader takes a shared lock, so nobody sees a half-written file.
/// The lock dies with its process, so a crash cannot leave it held. A crash during the write can at
/// worst leave a file that does not decode; it then reads as the empty state, which for advisory
/// state (cool-downs, token counts, stats) only forgets history. When the file cannot be used at all
/// (read-only cache directory), the state lives in process memory instead, shared by every user in it.
public struct LockedStateFile<State: Codable & Sendable & Equatable>: Sendable {
    /// Where the state lives; nil keeps it in process memory only.
    public let url: URL?
    private let memoryName: String?
    private let empty: State

    /// State kept in the file at `url` (its directory is created on first use).
    public init(url: URL, empty: State) {
        self.url = url
        self.memoryName = nil
        self.empty = empty
    }

    /// State kept only in this process's memory, shared by every instance with the same `name`.
    public init(inMemory name: String, empty: State) {
        self.url = nil
        self.memoryName = name
        self.empty = empty
    }

    /// Where the state lives in memory when the file cannot be used (or there is none); made only
    /// then, as standardising a file URL costs more than the file access it stands in for.
    private var memoryKey: String {
        if let memoryName { return "memory:" + memoryName }
        return url?.standardizedFileURL.path ?? ""
    }

    /// The current state; a missing or unreadable file reads as the empty state.
    public func read() -> State {
        if let url, let state = withLockedFile(url, exclusive: false, { fd in decode(LockedFile.readAll(fd)) }) {
            return state
        }
        return memoryState()
    }

    /// Applies `change` to the state under an exclusive lock and stores the result; returns what `change` returns.
    /// Keep `change` quick: other processes wait for the lock meanwhile.
    @discardableResult
    public func update<T: Sendable>(_ change: (inout State) -> T) -> T {
        if let url, let fd = LockedFile.openLocked(url, exclusive: true) {
            defer { LockedFile.unlockAndClose(fd) }
            let data = LockedFile.readAll(fd)
            let before = decode(data)
            var state = before
            let result = change(&state)
            if state == empty {
                // The empty state is an empty file: the next reader skips JSON decoding altogether.
                if !data.isEmpty { LockedFile.replaceContents(fd, with: Data()) }
            } else if state != before, let encoded = try? Self.encoder.encode(state) {
                // Most calls change nothing (a closed breaker stays closed): no write, no encoding.
                LockedFile.replaceContents(fd, with: encoded)
            }
            return result
        }
        let key = memoryKey
        let empty = self.empty
        return memoryStore.withLockedValue { store in
            var state = store[key].flatMap { try? Self.decoder.decode(State.self, from: $0) } ?? empty
            let result = change(&state)
            store[key] = try? Self.encoder.encode(state)
            return result
        }
    }

    /// Makes the state empty again. The file is kept (emptied under the lock), so a process that
    /// has it open keeps sharing it.
    public func reset() {
        let empty = self.empty
        update { $0 = empty }
        memoryStore.withLockedValue { $0[memoryKey] = nil }
    }

    // MARK: Plumbing

    private func memoryState() -> State {
        memoryStore.withLockedValue { store in
            store[memoryKey].flatMap { try? Self.decoder.decode(State.self, from: $0) } ?? empty
        }
    }

    private func decode(_ data: Data) -> State {
        guard !data.isEmpty else { return empty }
        return (try? Self.decoder.decode(State.self, from: data)) ?? empty
    }

    private func withLockedFile<T>(_ url: URL, exclusive: Bool, _ body: (Int32) -> T) -> T? {
        guard let fd = LockedFile.openLocked(url, exclusive: exclusive) else { return nil }
        defer { LockedFile.unlockAndClose(fd) }
        return body(fd)
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

/// Encoded states of `LockedStateFile`s that live in memory (or whose file cannot be used), by key.
private let memoryStore = NIOLockedValueBox<[String: Data]>([:])

/// `flock(2)`-locked file access shared by the state files and the stats log.
enum LockedFile {
    /// Opens and locks `url`; nil when the file cannot be used. Writers (`exclusive`, or `create`)
    /// create the file and its directory if needed; readers never create anything.
    static func openLocked(_ url: URL, exclusive: Bool, create: Bool = false, append: Bool = false) -> Int32? {
        let path = url.path
        let writes = exclusive || create
        let flags = writes ? O_RDWR | O_CREAT | O_CLOEXEC | (append ? O_APPEND : 0) : O_RDONLY | O_CLOEXEC
        var fd = open(path, flags, 0o644)
        if writes, fd < 0, errno == ENOENT, makeDirectories(url.deletingLastPathComponent().path) {
            fd = open(path, flags, 0o644)
        }
        guard fd >= 0 else { return nil }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno != EINTR {
                close(fd)
                return nil
            }
        }
        return fd
    }

    /// Creates `path` and its missing parents, as `mkdir -p` does; true when it is a directory then.
    /// `mkdir(2)` directly: `FileManager`'s `createDirectory` costs ~0.2 ms a call on Linux, and a
    /// search's state files are opened on the way to every request.
    static func makeDirectories(_ path: String) -> Bool {
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

    static func unlockAndClose(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }

    static func readAll(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
            offset += off_t(count)
        }
        return data
    }

    /// Makes `data` the whole file.
    static func replaceContents(_ fd: Int32, with data: Data) {
        var written = 0
        data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = pwrite(fd, bytes.baseAddress.map { $0 + written }, bytes.count - written, off_t(written))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                written += count
            }
        }
        _ = ftruncate(fd, off_t(written))
    }

    /// The file's size in bytes.
    static func size(_ fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
