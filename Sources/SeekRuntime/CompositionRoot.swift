import AladinProvider
import CalibreProvider
import CrossrefProvider
import DeclaredProvider
import Foundation
import GiphyProvider
import GoogleBooksProvider
import OpenLibraryProvider
import SeekKit
import SeekCore
import SeekIdentity
import SeekResilience
import SeekImageCache
import SeekPostgres
import SeekStore

/// Container keys for the services a session shares.
public enum SettingsKey: ContainerKey { public typealias Value = Settings }
public enum ProvidersKey: ContainerKey { public typealias Value = ProviderRegistry }
public enum EngineKey: ContainerKey { public typealias Value = SearchEngine }
/// The one image cache every host and provider image goes through (SeekImageCache).
public enum ImageStoreKey: ContainerKey { public typealias Value = any ImageStore }
/// The user's state: favourites, history and the response cache.
public enum UserStateKey: ContainerKey { public typealias Value = UserState }
/// The content ratings the registered providers filter by.
public enum ContentRatingsKey: ContainerKey { public typealias Value = Set<String> }

/// The one place that lists providers and wires a session's services together.
public enum CompositionRoot {
    /// The providers Seek ships with, in display order.
    public static let builtInProviders: [ProviderFactory] = [
        OpenLibraryProvider.factory,
        GiphyProvider.factory,
        AladinProvider.factory,
        GoogleBooksProvider.factory,
        CrossrefProvider.factory,
    ] + JSONDeclaredProvider.bundled  // Kakao, Naver, Project Gutenberg: declarations shipped as files (Providers/Declared/Bundled)
        + [CalibreProvider.factory]  // the reader's own library (SEEK_CALIBRE_LIBRARY), last: a tie goes to a remote source

    /// The ratings some provider of `factories` filters by: what a session accepts (`SeekSession.contentRatings`).
    static func ratings(declaredBy factories: [ProviderFactory]) -> Set<String> {
        factories.reduce(into: []) { $0.formUnion($1.contentRatings) }
    }

    /// Builds the frozen container: settings, the providers, the middleware every call goes through (the
    /// cache outermost, then breakers and stats, then sanitising), the engine (built once) and the image
    /// store (built on first use). `SeekSession.init` resolves the session's services from it, in one place.
    static func build(
        settings: Settings, transport: any HTTPTransport, extraProviders: [ProviderFactory],
        diagnostics: @escaping @Sendable (String) -> Void
    ) throws -> Container {
        // With SEEK_DATABASE_URL, the state instances share lives in PostgreSQL; else in SQLite and files.
        let shared = try sharedDatabase(settings: settings)
        // Each provider calls through retries and its rate limit (ResilienceServices).
        let resilience = ResilienceServices(settings: settings, stores: shared.map { database in
            CoordinationStores(
                breakers: PostgresBreakerStore(database: database, fallback: ResilienceServices.embeddedStores(settings: settings).breakers),
                buckets: PostgresRateLimitStore(database: database),
                clients: PostgresRateLimitStore(database: database, fallback: MemoryRateLimitStore()))
        })
        // Favourites, history, the response cache and cursor tokens (UserState.swift).
        let userState = try UserState(settings: settings, shared: shared, diagnostics: diagnostics)
        let coded = builtInProviders + extraProviders
        // Providers the config file declares ("jsonProviders"), validated here: a mistake is a configuration error.
        let declared = try JSONDeclaredProvider.factories(settings: settings, reservedIDs: Set(coded.map(\.id)))
        let providers = try (coded + declared).map { factory in
            try factory.make(ProviderEnvironment(settings: settings, transport: try resilience.transport(for: factory, base: transport)))
        }
        let registry = try ProviderRegistry(providers)
        let tuning = try ProviderTuning.load(from: settings, providers: registry.ids)
        var middlewares: [any ProviderMiddleware] = []
        if let caching = userState.cachingMiddleware(staleAfter: { context in
            CachingMiddleware.staleAfter(
                deadline: SearchEngine.timeout(for: context.provider, override: context.options.timeout, tuning: tuning))
        }) {
            middlewares.append(caching)
        }
        middlewares.append(MetricsMiddleware())  // /metrics' provider calls: those the cache did not answer, suspended included
        middlewares.append(try resilience.middleware(for: providers))
        // Innermost: every answer and error made safe as it leaves the provider, with the keys of every
        // provider redacted, so that the stats, the cache and every host only ever hold safe text.
        middlewares.append(SanitizingMiddleware(secrets: providers.flatMap(\.secrets), demoServer: settings.string(DemoMode.serverVariable)))
        // Outermost: another source's detail says when the reader's library holds the book (issue 49).
        if let library = providers.lazy.compactMap({ $0 as? CalibreProvider }).first, library.isConfigured {
            middlewares.insert(LibraryOwnershipMiddleware(library: library), at: 0)
        }
        let engine = SearchEngine(registry: registry, tuning: tuning, pipeline: ProviderPipeline(middlewares), merger: ResultMerger())

        var builder = ContainerBuilder()
        builder.register(SettingsKey.self, settings)
        // Checked now (a mistake is a configuration error for every command), built on first use.
        let imageCache = try ImageCacheConfiguration(settings: settings)
        // The library's covers are files: the cache reads those inside the library folder, and no other file.
        let library = CalibreProvider.libraryRoot(settings: settings)
        let images: any HTTPTransport = library.map { LibraryFilesTransport(roots: [$0], base: transport) } ?? transport
        builder.register(ImageStoreKey.self) { ImageCache(configuration: imageCache, transport: images) }
        builder.register(ProvidersKey.self, registry)
        builder.register(ResilienceKey.self, resilience)
        builder.register(UserStateKey.self, userState)
        builder.register(EngineKey.self, engine)
        builder.register(ContentRatingsKey.self, ratings(declaredBy: coded + declared))
        return builder.freeze()
    }

    /// The shared database `SEEK_DATABASE_URL` names, if any (connected on first use).
    static func sharedDatabase(settings: Settings) throws -> SharedDatabase? {
        guard let url = settings.string("SEEK_DATABASE_URL"), !url.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return try SharedDatabase(url: url)
    }
}
