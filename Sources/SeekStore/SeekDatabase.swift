import Dispatch
import Foundation
import GRDB
import NIOConcurrencyHelpers

/// Seek's user-state database: one SQLite file (`seek.sqlite` under the data directory) in WAL
/// mode with a busy timeout, so several `seek` processes can read and write it at once.
///
/// Opening is lazy: nothing touches the disk until the first read or write, so commands that never
/// need user state (`seek providers`) do not pay for it. The schema is brought up to date on open.
public final class SeekDatabase: Sendable {
    /// The file name inside the data directory.
    public static let fileName = "seek.sqlite"

    /// The database file.
    public let path: String
    /// How long a writer waits for another process's write lock before failing.
    public let busyTimeout: TimeInterval
    private let migrationTarget: String?
    private let pool = PoolSlot()

    /// A database at `path`; the file (and its folder) is created on first use.
    public init(path: String, busyTimeout: TimeInterval = 5) {
        self.path = path
        self.busyTimeout = busyTimeout
        self.migrationTarget = nil
    }

    /// The database `seek.sqlite` in `directory` (SEEK_DATA_DIR).
    public convenience init(directory: URL, busyTimeout: TimeInterval = 5) {
        self.init(path: directory.appendingPathComponent(Self.fileName).path, busyTimeout: busyTimeout)
    }

    /// A database migrated only up to `migration`, to test upgrades from older versions.
    init(path: String, migratedUpTo migration: String) {
        self.path = path
        self.busyTimeout = 5
        self.migrationTarget = migration
    }

    /// Closes the database if it was opened, after moving the WAL's pages into the database file
    /// (a TRUNCATE checkpoint), so nothing is left for the next open to replay; a later use opens it again.
    public func close() async {
        guard let opened = await pool.take() else { return }
        _ = try? await opened.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        try? opened.close()
    }

    /// Opens the file now (creating and migrating it if needed) instead of on first use.
    public func open() async throws {
        _ = try await writer()
    }

    /// SQLite's `PRAGMA integrity_check` answer: `["ok"]` for a sound file.
    public func integrityCheck() async throws -> [String] {
        try await read("check integrity") { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// The journal mode in effect (`wal`).
    public func journalMode() async throws -> String {
        try await read("read journal mode") { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
        }
    }

    /// The identifiers of the applied migrations, oldest first.
    public func appliedMigrations() async throws -> [String] {
        let migrator = Self.migrator
        return try await read("read migrations") { db in try migrator.appliedMigrations(db) }
    }

    /// Runs `body` in a read transaction; failures become a `StoreError` naming `operation`.
    func read<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withPool(operation) { try await $0.read(body) }
    }

    /// Runs `body`, one statement that reads a row by key, on the calling thread; failures become a
    /// `StoreError` naming `operation`. GRDB's asynchronous read hands the work to a reader's queue and
    /// back: for a response-cache look-up that took 0.1 ms, those two hops cost 12 ms of waiting under
    /// load (BENCHMARKS.md, issue 30). In WAL mode a reader never waits for the writer: the calling
    /// thread waits for the read, and, when all the pool's readers are busy, for one of them to finish
    /// a read of its own on GRDB's queues. One statement reads one snapshot of the database by itself,
    /// so no transaction is opened around it: a BEGIN and a COMMIT, each prepared anew by GRDB, cost
    /// about as much as the look-up itself. More than one statement, lists and anything larger use `read`.
    func lookUpInPlace<T>(_ operation: String, _ statement: (Database) throws -> T) async throws -> T {
        try await withPool(operation) { try Self.readNow($0, statement) }
    }

    /// GRDB's synchronous read without a transaction (a function of its own, as an async caller would
    /// get the async one).
    private static func readNow<T>(_ pool: DatabasePool, _ statement: (Database) throws -> T) throws -> T {
        try pool.unsafeRead(statement)
    }

    /// Runs `body` in an immediate write transaction; failures become a `StoreError` naming `operation`.
    func write<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withPool(operation) { try await $0.writeWithoutTransaction { db in try Self.inWriteTransaction(db, body) } }
    }

    /// `body` between BEGIN IMMEDIATE and COMMIT, rolled back when it throws, as GRDB's `write` runs it,
    /// but with both statements prepared once per connection: GRDB prepares them anew for every
    /// transaction, 27 K instructions each time, and a miss writes twice (issue 30).
    static func inWriteTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let value = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            // SQLite may have rolled back already (a full disk, an I/O error); `rollback` then does nothing.
            try? db.rollback()
            throw error
        }
    }

    /// `body` with the open pool; its failures become a `StoreError` naming `operation` (a pool that
    /// cannot be opened throws its own).
    private func withPool<T>(_ operation: String, _ body: (DatabasePool) async throws -> T) async throws -> T {
        let pool = try await writer()
        do {
            return try await body(pool)
        } catch {
            throw storeError(operation, error)
        }
    }

    private func storeError(_ operation: String, _ error: any Error) -> StoreError {
        if let store = error as? StoreError { return store }
        return StoreError(operation: operation, path: path, reason: Self.reason(error))
    }

    static func reason(_ error: any Error) -> String {
        if let database = error as? DatabaseError {
            return database.message ?? "SQLite error \(database.resultCode.rawValue)"
        }
        if error is CancellationError { return "cancelled" }
        return String(describing: error)
    }

    /// The open pool, opened and migrated on first use. Once open, it is read under a lock, without
    /// a hop to the slot's actor: a hop can suspend, and a provider call that suspends before it
    /// sends its request sends it only after the answers queued before it (issue 30: a cache look-up
    /// took 50 ms under load).
    private func writer() async throws -> DatabasePool {
        if let open = pool.open.withLockedValue({ $0 }) { return open }
        return try await pool.get { try self.openPool() }
    }

    private func openPool() throws -> DatabasePool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(operation: "create folder \(folder.path)", path: path, reason: Self.reason(error))
        }
        let opened = try openRetryingWhileLocked(Self.configuration(busyTimeout: busyTimeout))
        try migrate(opened)
        return opened
    }

    /// Every connection's settings.
    static func configuration(busyTimeout: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        // WAL with synchronous=NORMAL: a commit survives a killed process (its pages are in the WAL
        // file, in the OS's cache, when the commit returns); only a power cut may lose the last
        // commits. It saves an fsync per write, which a CLI that records every search pays each run.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        configuration.label = "seek"
        return configuration
    }

    /// Opens the pool. Switching a new file to WAL can meet another process doing the same and fail
    /// with SQLITE_BUSY before the busy timeout applies, so a locked database is tried again for a while.
    private func openRetryingWhileLocked(_ configuration: Configuration) throws -> DatabasePool {
        var attempt = 0
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                attempt += 1
                if attempt >= 100 {
                    throw StoreError(operation: "open", path: path, reason: Self.reason(error))
                }
                usleep(useconds_t(10_000 + Int.random(in: 0..<20_000)))
            } catch {
                throw StoreError(operation: "open", path: path, reason: Self.reason(error))
            }
        }
    }

    /// Applies pending migrations. Another process may be migrating the same new file at the same
    /// moment; when a migration fails, a schema that is complete by now is not an error.
    private func migrate(_ pool: DatabasePool) throws {
        let migrator = Self.migrator
        let target = migrationTarget
        func isComplete() throws -> Bool {
            try pool.read { db in
                if let target { return try migrator.appliedIdentifiers(db).contains(target) }
                return try migrator.hasCompletedMigrations(db)
            }
        }
        do {
            if try isComplete() { return }
        } catch {
            throw StoreError(operation: "read schema version", path: path, reason: Self.reason(error))
        }
        var lastError: (any Error)?
        for _ in 0..<3 {
            do {
                if let target {
                    try migrator.migrate(pool, upTo: target)
                } else {
                    try migrator.migrate(pool)
                }
                return
            } catch {
                lastError = error
                if (try? isComplete()) == true { return }
            }
        }
        throw StoreError(operation: "migrate", path: path, reason: lastError.map(Self.reason) ?? "unknown error")
    }
}

/// Holds the pool once open. Opening runs on a dispatch queue, not a Swift concurrency thread: it is
/// blocking file I/O that may wait for another process's lock. Concurrent first uses share one opening;
/// a failed opening is tried again by the next use.
private actor PoolSlot {
    private var opening: Task<DatabasePool, any Error>?
    /// The pool once its opening succeeded, until it is taken: set and cleared by the actor, read by
    /// anyone under the lock.
    nonisolated let open = NIOLockedValueBox<DatabasePool?>(nil)

    /// The open pool, if any, handed over to be closed; the slot is empty afterwards.
    func take() async -> DatabasePool? {
        guard let opening else { return nil }
        self.opening = nil
        open.withLockedValue { $0 = nil }
        return try? await opening.value
    }

    func get(_ open: @escaping @Sendable () throws -> DatabasePool) async throws -> DatabasePool {
        if let opening { return try await opening.value }
        let task = Task<DatabasePool, any Error> {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result { try open() })
                }
            }
        }
        opening = task
        do {
            let pool = try await task.value
            // Unless it was taken meanwhile, to be closed.
            if opening == task { self.open.withLockedValue { $0 = pool } }
            return pool
        } catch {
            if opening == task { opening = nil }
            throw error
        }
    }
}

extension SeekDatabase {
    /// The schema's versions: each migration runs its file `SQL/<identifier>.sql` (compiled into the
    /// binary by the EmbedFiles plugin), in the order of `Migration.all`. GRDB records the identifiers
    /// applied, so a shipped migration's identifier and file are never edited: add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for identifier in Migration.all {
            migrator.registerMigration(identifier) { db in
                try db.execute(sql: try Migration.sql(identifier))
            }
        }
        return migrator
    }

    /// Migration identifiers, in order.
    enum Migration {
        static let favorites = "v1-favorites"
        static let searchHistory = "v2-search-history"
        static let responseCache = "v3-response-cache"
        static let safeCachedAnswers = "v4-safe-cached-answers"
        static let owners = "v5-owners"
        static let responseCacheBytes = "v6-response-cache-bytes"
        static let cursors = "v7-cursors"
        static let favoriteOwned = "v8-favorite-owned"
        static let all = [favorites, searchHistory, responseCache, safeCachedAnswers, owners, responseCacheBytes, cursors, favoriteOwned]

        /// The path of the SQL file `identifier` runs, under the target's folder.
        static func file(_ identifier: String) -> String { "SQL/\(identifier).sql" }

        /// The statements `identifier` runs; fails naming the file when the binary does not carry it.
        static func sql(_ identifier: String) throws -> String {
            let path = file(identifier)
            guard let text = EmbeddedFiles.text(path) else { throw MissingMigrationFile(path: path) }
            return text
        }
    }
}

/// A migration whose SQL file the binary does not carry (a build without the EmbedFiles plugin).
struct MissingMigrationFile: Error, CustomStringConvertible {
    let path: String

    var description: String {
        "the user-state database's migration file \(path) is not embedded in the binary (Sources/SeekStore/\(path) missing?)"
    }
}
