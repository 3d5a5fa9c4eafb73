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
        for factory in providers {
            guard let demo = factory.demo else { continue }
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
                }
            }
        }
        return DemoMode(server: server, overrides: overrides)
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

    /// `settings` with every provider pointed at the demo server.
    public func applied(to settings: Settings) -> Settings {
        Settings(environment: settings.environment.merging(overrides) { $1 }, file: settings.file)
    }

    public func shutdown() async {
        try? await server.shutdown()
    }
}
