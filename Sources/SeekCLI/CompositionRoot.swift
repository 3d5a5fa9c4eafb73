import AladinProvider
import Foundation
import GiphyProvider
import OpenLibraryProvider
import SeekCore
import SeekImageCache

/// Container keys for the services the CLI shares.
enum SettingsKey: ContainerKey { typealias Value = Settings }
enum TransportKey: ContainerKey { typealias Value = any HTTPTransport }
enum ProvidersKey: ContainerKey { typealias Value = ProviderRegistry }
enum EngineKey: ContainerKey { typealias Value = SearchEngine }
/// The one image cache every command and provider image goes through (SeekImageCache).
enum ImageStoreKey: ContainerKey { typealias Value = any ImageStore }

/// The one place that lists providers and wires the process's services together.
public enum CompositionRoot {
    /// The providers `seek` ships with, in display order.
    public static let builtInProviders: [ProviderFactory] = [
        OpenLibraryProvider.factory,
        GiphyProvider.factory,
        AladinProvider.factory,
    ]

    /// `--rating` values, and the environment variables that carry one to the providers that filter by it.
    static let contentRatings: Set<String> = GiphyProvider.ratings
    static let contentRatingVariables = [GiphyProvider.ratingVariable]

    /// Builds the frozen container: settings, the shared transport, the provider registry and the engine.
    public static func build(
        settings: Settings, transport: any HTTPTransport, extraProviders: [ProviderFactory] = []
    ) throws -> Container {
        // Each provider calls through retries and its rate limit, behind its circuit breaker (ResilienceServices).
        let resilience = ResilienceServices(settings: settings)
        // Favourites, history and the response cache (UserState.swift); providers answer through the cache.
        let userState = try UserState(settings: settings, context: CLIContext.current)
        let coded = builtInProviders + extraProviders
        // Providers the config file declares ("jsonProviders"), validated here: a mistake is exit 64.
        let declared = try JSONDeclaredProvider.factories(settings: settings, reservedIDs: Set(coded.map(\.id)))
        let providers = try (coded + declared).enumerated().map { position, factory in
            let calls = try resilience.transport(for: factory.id, base: transport)
            let made = try resilience.wrap(factory.make(ProviderEnvironment(settings: settings, transport: calls)))
            return userState.wrap(made, position: position)
        }
        let registry = try ProviderRegistry(providers)
        var builder = ContainerBuilder()
        builder.register(SettingsKey.self, settings)
        builder.register(TransportKey.self, transport)
        // Checked now (a mistake is exit 64 for every command), built when a command first shows an image.
        let imageCache = try ImageCacheConfiguration(settings: settings)
        builder.register(ImageStoreKey.self) { ImageCache(configuration: imageCache, transport: transport) }
        builder.register(ProvidersKey.self, registry)
        builder.register(ResilienceKey.self, resilience)
        builder.register(UserStateKey.self, userState)
        let tuning = try ProviderTuning.load(from: settings, providers: registry.ids)
        builder.register(EngineKey.self, SearchEngine(registry: registry, tuning: tuning))
        return builder.freeze()
    }
}

/// A running session: the container plus the transport to shut down at the end.
struct Session: Sendable {
    let container: Container
    let transport: AsyncHTTPTransport
    let context: CLIContext
    /// The end of the session, once started: the history written while the connections close.
    private let ending = Locked<Task<Void, Never>?>(nil)

    var registry: ProviderRegistry { get throws { try container.resolve(ProvidersKey.self) } }
    var engine: SearchEngine { get throws { try container.resolve(EngineKey.self) } }
    var settings: Settings { get throws { try container.resolve(SettingsKey.self) } }

    /// Runs `body` with a session built from the current context, shutting the transport down after.
    @discardableResult
    static func with<T: Sendable>(
        environmentOverrides: [String: String] = [:], _ body: (Session) async throws -> T
    ) async throws -> T {
        let context = CLIContext.current
        let environment = context.environment.merging(environmentOverrides) { $1 }
        let settings: Settings
        let container: Container
        let transport = AsyncHTTPTransport()
        do {
            settings = try Settings.load(environment: environment)
            container = try CompositionRoot.build(
                settings: settings, transport: transport, extraProviders: context.extraProviders)
        } catch {
            try? await transport.shutdown()
            throw CLIError.configuration(SeekError.wrap(error))
        }
        let session = Session(container: container, transport: transport, context: context)
        do {
            let result = try await body(session)
            await session.finish()
            return result
        } catch {
            await session.finish()
            throw error
        }
    }

    /// Starts the end of the session, once: its searches recorded in the history while the transport
    /// closes its connections. A command that is done with the network calls this before printing,
    /// so that both overlap the output; the session's end waits for it either way.
    ///
    /// When the process exits as the command returns, only what must reach the disk is waited for:
    /// the session lives on until the exit and the kernel closes its connections and files.
    @discardableResult
    func beginEnding() -> Task<Void, Never> {
        ending.withLock { ending in
            if let ending { return ending }
            context.processLifetime?.keep(self)
            let closesConnections = context.processLifetime == nil
            let started = Task { [self] in
                async let closed: Void? = closesConnections ? try? transport.shutdown() : ()
                await finishUserState()
                _ = await closed
            }
            ending = started
            return started
        }
    }

    private func finish() async {
        await beginEnding().value
    }

    /// Provider ids selected by a flag, else SEEK_PROVIDERS / config `providers` list; nil means all.
    func selection(_ flag: String?) throws -> (ids: [String]?, explicit: Bool) {
        let settings = try self.settings
        let raw = flag ?? settings.string("SEEK_PROVIDERS") ?? settings.file["defaultProviders"]?.arrayValue?
            .compactMap(\.stringValue).joined(separator: ",")
        guard let raw, !raw.isEmpty else { return (nil, false) }
        let ids = raw.split(separator: ",").map { $0.trimmed().lowercased() }
            .filter { !$0.isEmpty }
        let registry = try self.registry
        for id in ids where registry.provider(id) == nil {
            throw CLIError.usage("unknown provider '\(id)' (known: \(registry.ids.joined(separator: ", ")))")
        }
        return (ids, true)
    }
}
