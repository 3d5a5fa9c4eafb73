import Foundation
import SeekKit
import SeekCore
import SeekLoopback

/// `--demo`: the real providers, through the real HTTP transport, against recorded real responses
/// compiled into Seek, served on loopback inside the process. No network, no keys.
///
/// Demo mode names no provider: it serves what each provider's factory declares (`ProviderDemo`: its
/// routes under `/<provider id>` and the settings that point it there).
public struct DemoMode: Sendable {
    private let server: FixtureServer

    /// The settings that point every provider at the demo server (base URLs and stand-in keys).
    public let overrides: [String: String]
    /// The searches the recordings answer, by provider id, in provider order: what a host offers a
    /// reader to try (the web UI's demo banner), so "dune" answering nothing is no surprise.
    public let sampleQueries: [(provider: String, query: String)]

    /// The setting that tells a session the demo server's address, which it writes `demo:` wherever
    /// it would show (an error's URL, a provider's endpoint).
    public static let serverVariable = "SEEK_DEMO_SERVER"

    /// The folder under the data and cache directories where demo mode keeps its state (history,
    /// stats, favourites, the response and image caches, cool-downs), apart from the real one.
    public static let stateFolder = "demo"

    /// What a host tells the user while demo mode runs.
    public static let notice = "demo mode: recorded real responses served on loopback (no network, no keys)"

    /// The key every keyed provider gets: keys are redacted from everything shown, so it is a word
    /// no upstream text holds ("demo" would black out every "demo" in titles and notices).
    static let standInKey = "seek-demo-stand-in-key"

    /// Starts the demo server with the demos of the built-in providers and of `extraProviders`;
    /// `shutdown()` ends it.
    public static func start(extraProviders: [ProviderFactory] = []) async throws -> DemoMode {
        try await start(providers: CompositionRoot.builtInProviders + extraProviders)
    }

    /// Starts the demo server serving the demo each of `providers` declares.
    static func start(providers: [ProviderFactory]) async throws -> DemoMode {
        let server = try await FixtureServer.start()
        var overrides: [String: String] = [:]
        var samples: [(provider: String, query: String)] = []
        for factory in providers {
            guard let demo = factory.demo else { continue }
            samples += demo.sampleQueries.map { (factory.id, $0) }
            let prefix = "/" + factory.id
            for route in demo.routes {
                server.route(prefix + route.path, handler: { request in
                    let answer = route.answer(DemoRequest(path: String(request.path.dropFirst(prefix.count)), query: DemoMode.query(of: request)))
                    return FixtureResponse(status: answer.status, body: answer.body)
                })
            }
            for (variable, setting) in demo.settings {
                switch setting {
                case .url(let path): overrides[variable] = server.url(prefix + path).absoluteString
                case .standInKey: overrides[variable] = standInKey
                case .text(let value): overrides[variable] = value
                }
            }
        }
        return DemoMode(server: server, overrides: overrides, sampleQueries: samples)
    }

    /// A request's query parameters, decoded (`+` is a space); the first of a repeated name.
    static func query(of request: RecordedRequest) -> [String: String] {
        var values: [String: String] = [:]
        for pair in (request.query ?? "").fields(separatedBy: "&") {
            let name = pair.fields(separatedBy: "=", maxSplits: 1, keepingEmpty: true).first.map(String.init) ?? ""
            let decoded = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
            if values[decoded] == nil, let value = request.queryValue(decoded) { values[decoded] = value }
        }
        return values
    }

    /// `text` with the demo server's address written `demo:` (`demo:/giphy/v1/gifs/x`): an error's
    /// URL names the recording asked for, never a loopback address a reader cannot open.
    public func masked(_ text: String) -> String {
        let base = server.baseURL.absoluteString
        guard text.contains(base) else { return text }
        return text.replacingOccurrences(of: base, with: "demo:")
    }

    /// `settings` with every provider pointed at the demo server, and the state kept apart from the
    /// real one: in a `demo` folder of the data and cache directories, never in a shared database.
    public func applied(to settings: Settings) -> Settings {
        var environment = settings.environment.merging(overrides) { $1 }
        environment[Self.serverVariable] = server.baseURL.absoluteString
        environment["SEEK_DATA_DIR"] = settings.dataDirectory.appendingPathComponent(Self.stateFolder).path
        environment["SEEK_CACHE_DIR"] = settings.cacheDirectory.appendingPathComponent(Self.stateFolder).path
        environment["SEEK_DATABASE_URL"] = nil
        var file = settings.file
        if case .object(var members) = file {
            members["SEEK_DATABASE_URL"] = nil
            file = .object(members)
        }
        return Settings(environment: environment, file: file)
    }

    public func shutdown() async {
        try? await server.shutdown()
    }
}
