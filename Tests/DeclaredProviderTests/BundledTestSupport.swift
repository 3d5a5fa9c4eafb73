import DeclaredProvider
import Foundation
import SeekCore
import SeekHTTPClient
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

// Helpers for the suites of the bundled declarations (Kakao, Naver, Project Gutenberg): each provider is
// built through its bundled factory, as the composition root does, against a loopback stand-in that
// serves the recorded bodies of ../shared/fixtures/<id>/ at the API's real paths.

/// The bundled factory of `id`.
func bundledFactory(_ id: String) throws -> ProviderFactory {
    guard let factory = JSONDeclaredProvider.bundled.first(where: { $0.id == id }) else {
        throw SeekError(.configuration, detail: "no bundled declaration \(id)")
    }
    return factory
}

/// The bundled provider `id` with `environment` (its base URL variable pointed at `base` unless given).
func makeBundled(_ id: String, base: URL, environment: [String: String] = [:], transport: any HTTPTransport) throws -> any SearchProvider {
    let declaration = try JSONDeclaredProvider.bundledDeclaration(id)
    var environment = environment
    if let variable = declaration.baseURLEnv, environment[variable] == nil { environment[variable] = base.absoluteString }
    return try bundledFactory(id).make(ProviderEnvironment(settings: Settings(environment: environment), transport: transport))
}

/// Runs `body` with a fresh stand-in and the bundled provider `id`.
func withBundled<T>(
    _ id: String, environment: [String: String] = [:], _ body: (any SearchProvider, FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    do {
        let provider = try makeBundled(id, base: server.baseURL, environment: environment, transport: transport)
        let result = try await body(provider, server)
        try await transport.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        try? await server.shutdown()
        throw error
    }
}

/// A recorded body of `../shared/fixtures/<provider>/<file>`.
func recorded(_ provider: String, _ file: String) throws -> String {
    let url = try #require(SharedFixtures.url(provider, file), "missing fixture \(provider)/\(file)")
    return try String(contentsOf: url, encoding: .utf8)
}

/// The names of the recorded `.json` bodies of a provider whose names start with `prefix`.
func recordedFiles(_ provider: String, prefix: String) -> [String] {
    guard let directory = SharedFixtures.directory?.appendingPathComponent(provider),
          let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
    else { return [] }
    return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
}

/// A recorded body as a JSON object (for counting what it holds).
func recordedObject(_ provider: String, _ file: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(try recorded(provider, file).utf8))
    return try #require(object as? [String: Any])
}

/// A stand-in that answers 401 with `unauthorized` unless `authorized(request)`, else `answer(request)`.
func standIn(
    unauthorized: String, authorized: @escaping @Sendable (RecordedRequest) -> Bool,
    _ answer: @escaping @Sendable (RecordedRequest) -> FixtureResponse
) -> @Sendable (RecordedRequest) -> FixtureResponse {
    { request in authorized(request) ? answer(request) : .json(unauthorized, status: 401) }
}

/// Every text a search page or error shows, for checking that a key is in none of them.
func shownText(_ page: SearchPage?, _ error: SeekError?, _ provider: any SearchProvider) -> String {
    var parts = [provider.endpoint, error?.description ?? ""]
    for item in page?.items ?? [] {
        parts += [item.id.description, item.title, item.url?.absoluteString ?? ""]
        parts += item.images.values.map(\.url.absoluteString)
    }
    return parts.joined(separator: "\n")
}
