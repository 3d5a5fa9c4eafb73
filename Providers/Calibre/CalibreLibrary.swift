import Foundation
import GRDB
import SeekCore

/// A Calibre library folder, read as Calibre's own `metadata.db` without Calibre
/// (`../shared/reference/calibre-library.md`).
///
/// The database is opened read-only (`SQLITE_OPEN_READONLY`, a busy timeout, no journal mode set), so
/// Seek never writes it and never creates a `-journal`, `-wal` or `-shm` file beside it; Calibre's own
/// writes (a rollback journal) are waited for. Only base tables are read: Calibre's views and triggers
/// call SQL functions that Calibre registers on its own connections (`title_sort`, `sortconcat`, …).
struct CalibreLibrary: Sendable {
    /// The library folder.
    let root: URL
    /// How long a read waits for Calibre's write transaction before it gives up.
    let busyTimeout: TimeInterval

    init(root: URL, busyTimeout: TimeInterval = 5) {
        self.root = root.standardizedFileURL
        self.busyTimeout = busyTimeout
    }

    var databaseURL: URL { root.appendingPathComponent("metadata.db") }

    // MARK: - Change detection

    /// What changes whenever Calibre commits: the file's size and modification time, and SQLite's file
    /// change counter (header bytes 24–27, bumped by every commit in rollback-journal mode).
    struct Signature: Sendable, Hashable, CustomStringConvertible {
        var size: Int64
        var modified: Int64
        var changeCounter: UInt32

        var description: String { "\(size)-\(modified)-\(changeCounter)" }
    }

    /// The current signature, from `stat` and the first 28 bytes of the file; throws when the folder
    /// is not a library (no `metadata.db`) or the file cannot be read.
    func signature() throws -> Signature {
        let path = databaseURL.path
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT {
                var isDirectory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) {
                    throw CalibreError.notALibrary(root, reason: "the folder does not exist")
                }
                throw CalibreError.notALibrary(
                    root, reason: isDirectory.boolValue ? "it has no metadata.db" : "it is a file, not a folder")
            }
            throw CalibreError.unreadable(root, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CalibreError.notALibrary(root, reason: "its metadata.db is not a file")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CalibreError.unreadable(root, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        // The header's change counter (bytes 24-27, big-endian); the descriptor stays open for `stat`'s
        // file and is closed by the `defer` above, not by the handle.
        let header = try? FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).read(upToCount: 28)
        var counter: UInt32 = 0
        if let header, header.count == 28 {
            counter = header.dropFirst(24).reduce(0) { $0 << 8 | UInt32($1) }
        }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return Signature(size: Int64(info.st_size), modified: modified, changeCounter: counter)
    }

    // MARK: - Reading

    /// Opens `metadata.db` read-only, checks it is a Calibre library, and runs `body` in one read
    /// transaction (one snapshot of every table). The connection is closed afterwards: Calibre may
    /// replace the file (a library restored from a backup) and an open descriptor would keep the old one.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        _ = try signature()
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = false
        configuration.label = "calibre-library"
        // Never `immutable=1`: SQLite would then skip locking and could read a half-written file.
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: databaseURL.path, configuration: configuration)
        } catch {
            throw describe(error)
        }
        do {
            return try queue.inDatabase { db in
                var value: T?
                try db.inTransaction(.deferred) {
                    try checkSchema(db)
                    value = try body(db)
                    return .commit
                }
                guard let value else { throw CalibreError.unreadable(root, reason: "the read returned nothing") }
                return value
            }
        } catch let error as CalibreError {
            throw error
        } catch {
            throw describe(error)
        }
    }

    /// Throws unless the database has the base tables Seek reads.
    private func checkSchema(_ db: Database) throws {
        let needed: Set<String> = ["books", "authors", "books_authors_link", "identifiers", "data"]
        let tables = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        let missing = needed.subtracting(tables)
        guard missing.isEmpty else {
            throw CalibreError.notALibrary(
                root, reason: "metadata.db has no \(missing.sorted().joined(separator: ", ")) table (not Calibre's schema)")
        }
    }

    /// A GRDB or SQLite error as what happened to the library, in words.
    func describe(_ error: any Error) -> CalibreError {
        guard let database = error as? DatabaseError else {
            return .unreadable(root, reason: String(describing: error))
        }
        switch database.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .busy(root, seconds: busyTimeout)
        case .SQLITE_NOTADB:
            return .notALibrary(root, reason: "metadata.db is not an SQLite database")
        case .SQLITE_CORRUPT:
            return .unreadable(root, reason: "metadata.db is damaged (\(database.message ?? "database disk image is malformed"))")
        case .SQLITE_READONLY:
            return .unreadable(
                root, reason: "metadata.db was left half-written (a hot journal beside it); open the library in Calibre once to repair it")
        case .SQLITE_CANTOPEN:
            return .unreadable(root, reason: "metadata.db cannot be opened read-only (\(database.message ?? "unable to open"))")
        default:
            return .unreadable(root, reason: database.message ?? "SQLite error \(database.resultCode.rawValue)")
        }
    }
}

/// What went wrong with the library, naming the folder and the cause.
enum CalibreError: Error, Sendable, CustomStringConvertible {
    case notALibrary(URL, reason: String)
    case unreadable(URL, reason: String)
    case busy(URL, seconds: TimeInterval)

    var description: String {
        switch self {
        case .notALibrary(let root, let reason):
            return "\(root.path) is not a Calibre library: \(reason)"
        case .unreadable(let root, let reason):
            return "cannot read the Calibre library in \(root.path): \(reason)"
        case .busy(let root, let seconds):
            return "the Calibre library in \(root.path) stayed locked for \(SeekError.format(seconds))s (Calibre is writing); try again"
        }
    }

    /// As the provider's typed error.
    var seekError: SeekError {
        switch self {
        case .notALibrary: SeekError(.configuration, provider: CalibreProvider.id, detail: description)
        case .unreadable: SeekError(.undecodable, provider: CalibreProvider.id, detail: description)
        case .busy: SeekError(.timeout(seconds: busyTimeoutSeconds), provider: CalibreProvider.id, detail: description)
        }
    }

    private var busyTimeoutSeconds: Double {
        if case .busy(_, let seconds) = self { return seconds }
        return 0
    }
}
