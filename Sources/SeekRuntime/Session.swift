import Foundation
import NIOConcurrencyHelpers
import SeekKit
import SeekHTTPClient
import SeekCore
import SeekResilience
import SeekImageCache
import SeekPostgres
import SeekStore

/// What every host opens once and closes once: the container with the providers, one HTTP client,
/// the response and image caches, breakers, stats and the database. The CLI opens one per process;
/// a server keeps one for its lifetime. Calls vary only by the options they carry.
public final class SeekSession: Sendable {
    public let container: Container
    public let settings: Settings
    // The engine, the registry, the resilience stores and the user's stores are the session's own:
    // hosts reach them only through its entries (issue 51), and only this package's tests look at
    // them directly.
    package let registry: ProviderRegistry
    package let engine: SearchEngine
    package let resilience: ResilienceServices
    package let userState: UserState
    /// The content ratings a call may ask for: those some registered provider filters by.
    public let contentRatings: Set<String>
    private let transport: AsyncHTTPTransport
    /// Told, one line at a time, what the user should know that is not a call's result (a history
    /// that could not be written).
    let diagnostics: @Sendable (String) -> Void
    private let closing = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// The search last written to the history, and when: the same search again within a minute is
    /// already the most recent entry, so a server answering it over and over writes it once.
    private let lastRecorded = NIOLockedValueBox<(owner: StateOwner, query: String, providers: [String], at: ContinuousClock.Instant)?>(nil)
    /// What recent searches, trending lists and favourites said of their items: what a cover is
    /// drawn from when an item's record cannot be had (`image(of:size:options:)`).
    public let recentItems = RecentItems()
    /// When visitors' old history was last looked for.
    private let lastVisitorSweep = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    /// How long a visitor's history outlives their last search.
    public static let visitorHistoryLifetime: TimeInterval = 30 * 86_400

    private init(container: Container, transport: AsyncHTTPTransport, diagnostics: @escaping @Sendable (String) -> Void) throws {
        self.container = container
        self.transport = transport
        self.diagnostics = diagnostics
        settings = try container.resolve(SettingsKey.self)
        registry = try container.resolve(ProvidersKey.self)
        engine = try container.resolve(EngineKey.self)
        resilience = try container.resolve(ResilienceKey.self)
        userState = try container.resolve(UserStateKey.self)
        contentRatings = try container.resolve(ContentRatingsKey.self)
    }

    /// What `error` means to a reader, the provider named by its display name ("Open Library no
    /// longer has this book."); never a URL or an upstream body, which stay in `error.description`.
    public func inWords(_ error: SeekError) -> String {
        error.inWords(error.provider.flatMap { registry.provider($0)?.descriptor })
    }

    /// Opens a session from `settings`, with `extraProviders` after the built-in ones.
    /// - Parameter diagnostics: told, one line at a time, what the user should know that is not a
    ///   call's result (a stale record served, a cache that cannot be used).
    public static func open(
        settings: Settings, extraProviders: [ProviderFactory] = [],
        diagnostics: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> SeekSession {
        let transport = AsyncHTTPTransport()
        do {
            let container = try CompositionRoot.build(
                settings: settings, transport: transport, extraProviders: extraProviders, diagnostics: diagnostics)
            return try SeekSession(container: container, transport: transport, diagnostics: diagnostics)
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    /// Readies the stores before a host serves: the shared database's schema brought up to date and,
    /// for a long-lived host, this instance announced to the others. Nothing to do for the embedded store.
    public func prepareStores(longLived: Bool) async {
        if case .shared(let database) = userState.place { await database.prepare(announce: longLived) }
    }

    /// Which store keeps the user's state and whether it answers (`/healthz`).
    public var storeHealth: StoreHealth {
        switch userState.place {
        case .embedded: StoreHealth(kind: "sqlite", reachable: true)
        case .shared(let database): StoreHealth(kind: "postgresql", reachable: database.isReachable ?? false)
        }
    }

    /// The shared image cache, built on first use.
    public var imageStore: any ImageStore {
        get throws { try container.resolve(ImageStoreKey.self) }
    }

    /// Records a finished search in `owner`'s history: its query and the providers it went to, in
    /// registry order. `search(_:onBatch:)` calls this once per search it answers. A visitor's search
    /// also sweeps, at most hourly, the history of visitors unseen for `visitorHistoryLifetime`.
    func recordHistory(of result: SearchResult, owner: StateOwner = .instanceOwner) async throws {
        guard userState.recordsHistory else { return }
        let asked = Set(result.outcomes.map(\.provider))
        let providers = registry.ids.filter { asked.contains($0) }
        let now = ContinuousClock.now
        let repeated = lastRecorded.withLockedValue { last in
            guard let last, last.owner == owner, last.query == result.query, last.providers == providers else { return false }
            return now - last.at < .seconds(60)
        }
        guard !repeated else { return }
        try await userState.record(query: result.query, providers: providers, owner: owner)
        lastRecorded.withLockedValue { $0 = (owner, result.query, providers, now) }
        if owner != .instanceOwner { try await sweepVisitors(now: now) }
    }

    /// Deletes the history of visitors unseen for `visitorHistoryLifetime`, at most once an hour.
    private func sweepVisitors(now: ContinuousClock.Instant) async throws {
        let due = lastVisitorSweep.withLockedValue { last -> Bool in
            guard last.map({ now - $0 >= .seconds(3600) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        try await userState.history.forgetVisitors(unseenSince: Date().addingTimeInterval(-Self.visitorHistoryLifetime))
    }

    /// Forgets every recent search of `owner` (and that any was recorded lately).
    public func clearHistory(owner: StateOwner = .instanceOwner) async throws {
        try await userState.history(of: owner).clear()
        lastRecorded.withLockedValue { $0 = nil }
    }

    /// Closes the session: waits for the response cache's pending writes, closes the database and
    /// every connection. Later calls wait for the first one's work.
    public func close() async {
        let task = closing.withLockedValue { closing in
            if let closing { return closing }
            let started = Task { [userState, transport] in
                async let connections: Void? = try? transport.shutdown()
                await userState.close()
                _ = await connections
            }
            closing = started
            return started
        }
        await task.value
    }
}

/// Which store a session keeps its state in, and whether it answered last.
public struct StoreHealth: Sendable, Hashable {
    /// `sqlite` (one machine) or `postgresql` (shared).
    public var kind: String
    public var reachable: Bool
}
