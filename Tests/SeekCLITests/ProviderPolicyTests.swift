import Foundation
import ITBookstoreProvider
import SeekCLI
import SeekKit
import SeekCore
import SeekHTTPClient
import SeekLoopback
import SeekResilience
@testable import SeekRuntime
import SeekTesting
import Testing

/// A provider that is never called: the tests here read what its factory declares.
private struct SilentProvider: SearchProvider {
    let descriptor: ProviderDescriptor
    var endpoint: String { "https://\(descriptor.id).example" }

    init(id: String) {
        descriptor = ProviderDescriptor(id: id, name: id, kinds: [.book], capabilities: [.search], paging: .page)
    }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SeekCore.SearchPage { SeekCore.SearchPage(items: []) }
    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail { throw SeekError(.notFound, provider: descriptor.id) }
}

/// A transport that is never used: the tests here only read how it is wrapped.
private struct UnusedTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw SeekError(.network, detail: "not for use") }
}

/// Settings with private cache and data folders.
private func privateSettings(_ extra: [String: String] = [:]) throws -> Settings {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-policy-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    return try Settings.load(environment: [
        "HOME": home.path, "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path,
        "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
    ].merging(extra) { $1 })
}

/// The rate limit of the transport `factory`'s provider gets from the session's resilience services.
private func transportLimit(_ factory: ProviderFactory, settings: Settings) throws -> RateLimit? {
    let transport = try ResilienceServices(settings: settings).transport(for: factory, base: UnusedTransport())
    let limited = (transport as? RetryingTransport)?.base as? RateLimitedTransport
    return try #require(limited).limit
}

@Suite("providers own their policy: rate limits, content ratings, demo")
struct ProviderPolicyTests {
    @Test("the rate limit a provider declares is the one its transport gets")
    func declaredRateLimitIsTheDefault() throws {
        let declared = RateLimit(requests: 7, per: .seconds(60), burst: 3)
        let factory = ProviderFactory(id: "paced", defaultRateLimit: declared) { _ in SilentProvider(id: "paced") }
        #expect(try transportLimit(factory, settings: try privateSettings()) == declared)
        #expect(try transportLimit(ITBookstoreProvider.factory, settings: try privateSettings()) == ITBookstoreProvider.factory.defaultRateLimit)
        #expect(ITBookstoreProvider.factory.defaultRateLimit != nil)
    }

    @Test("a setting overrides the rate limit a provider declares")
    func settingOverridesDeclaredRateLimit() throws {
        let factory = ProviderFactory(id: "paced", defaultRateLimit: RateLimit(requests: 7, per: .seconds(60))) { _ in SilentProvider(id: "paced") }
        let settings = try privateSettings(["SEEK_PACED_RATE_LIMIT": "100/h"])
        #expect(try transportLimit(factory, settings: settings) == RateLimit(requests: 100, per: .seconds(3600)))
    }

    @Test("a provider that declares no rate limit gets none")
    func noDeclaredRateLimit() throws {
        let factory = ProviderFactory(id: "unpaced") { _ in SilentProvider(id: "unpaced") }
        #expect(try transportLimit(factory, settings: try privateSettings()) == nil)
    }

    @Test("the ratings a session accepts are those its providers declare, extra providers' included")
    func ratingsComeFromProviders() async throws {
        let family = ProviderFactory(id: "family", contentRatings: ["family"]) { _ in SilentProvider(id: "family") }
        let session = try await SeekSession.open(settings: try privateSettings(), extraProviders: [family])
        let ratings = session.contentRatings
        await session.close()
        let declared = CompositionRoot.builtInProviders.reduce(into: Set<String>()) { $0.formUnion($1.contentRatings) }
        #expect(ratings == declared.union(["family"]))
        #expect(declared.contains("pg-13"))
    }

    @Test("the session's one validation takes a rating an extra provider declares, and refuses one nobody declares")
    func sessionValidatesRatingsAgainstItsProviders() async throws {
        let family = ProviderFactory(id: "family", contentRatings: ["family"]) { _ in SilentProvider(id: "family") }
        let session = try await SeekSession.open(settings: try privateSettings(), extraProviders: [family])
        let accepted = try? await session.trending(FanOutQuery(providers: "family", rating: "FAMILY"))
        var refusal: RequestError?
        do { _ = try await session.trending(FanOutQuery(providers: "family", rating: "nc-17")) } catch let error as RequestError { refusal = error }
        await session.close()
        #expect(accepted != nil)
        #expect(refusal?.code == .invalidParameter)
        #expect(refusal?.message.contains("family") == true, "the refusal lists the declared ratings: \(String(describing: refusal))")
    }

    @Test("seek providers shows the timeout and weight the engine applies: the config file's over the provider's own")
    func providerDocumentsShowTuning() async throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("seek-tuning-\(UUID().uuidString).json")
        try Data(#"{"providers": {"giphy": {"timeout": 4, "weight": 1.5}}}"#.utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let session = try await SeekSession.open(settings: try privateSettings(["SEEK_CONFIG": config.path]))
        let documents = await session.providerDocuments()
        await session.close()
        let giphy = try #require(documents.first { $0.id == "giphy" })
        #expect(giphy.timeoutSeconds == 4)
        #expect(giphy.weight == 1.5)
        let openLibrary = try #require(documents.first { $0.id == "openlibrary" })
        #expect(openLibrary.timeoutSeconds == 10)
        #expect(openLibrary.weight == 1)
    }

    @Test("a rating no provider declares is refused")
    func undeclaredRatingRefused() async throws {
        #expect(!CompositionRoot.builtInProviders.contains { $0.contentRatings.contains("nc-17") })
        let harness = try await CLIHarness.start()
        let result = await harness.run(["search", "cats", "--providers", "giphy", "--rating", "nc-17"], environment: AggregationSamples.keys)
        try await harness.stop()
        #expect(result.code == 64, "stderr: \(result.stderr)")
        #expect(harness.server.requests.isEmpty)
    }

    @Test("demo mode serves the recording a provider's factory declares, at the settings it declares")
    func demoServesDeclaredRecording() async throws {
        let recording = #"{"answer": "recorded"}"#
        let demo = ProviderDemo(
            settings: ["SEEK_ECHO_URL": .url(path: "/api"), "SEEK_ECHO_KEY": .standInKey],
            routes: [DemoRoute("/api/answer") { request in .recording(request.queryValue("q") == "x" ? recording : nil, named: "answer.json") }],
            recording: { $0 == "answer.json" ? recording : nil })
        let factory = ProviderFactory(id: "echo", demo: demo) { _ in SilentProvider(id: "echo") }
        let mode = try await DemoMode.start(providers: [factory])
        let transport = AsyncHTTPTransport()
        let base = try #require(mode.overrides["SEEK_ECHO_URL"].flatMap { URL(string: $0) })
        let answered = try await transport.send(HTTPRequest(url: URL(string: base.absoluteString + "/answer?q=x") ?? base))
        let missing = try await transport.send(HTTPRequest(url: URL(string: base.absoluteString + "/answer?q=y") ?? base))
        try await transport.shutdown()
        await mode.shutdown()
        #expect(answered.status == 200)
        #expect(Array(answered.body) == Array(recording.utf8))
        #expect(missing.status == 500)
        #expect(mode.overrides["SEEK_ECHO_KEY"] == DemoMode.standInKey)
        #expect(base.host == "127.0.0.1")
    }

    @Test("seek-itbook --demo searches IT Bookstore's demo answers, with no change to the session")
    func itbookDemo() async throws {
        let harness = try await CLIHarness.start()
        let stdout = CapturedText()
        let stderr = CapturedText()
        let environment = harness.environment.merging(["SEEK_ITBOOK_URL": harness.server.url("/itbook").absoluteString, "SEEK_NO_CACHE": "1"]) { $1 }
        let context = CLIContext(environment: environment, stdout: stdout, stderr: stderr, extraProviders: [ITBookstoreProvider.factory])
        let search = await SeekMain.run(arguments: ["search", "devops", "--providers", "itbook", "--demo", "--format", "json"], context: context)
        let detail = await SeekMain.run(arguments: ["detail", "itbook:9781617291609", "--demo", "--format", "json"], context: context)
        try await harness.stop()
        #expect(search == 0 && detail == 0, "stderr: \(stderr.text)")
        #expect(stdout.text.contains("itbook:9781617294136"), "\(stdout.text)")
        #expect(stdout.text.contains("MongoDB in Action"))
        #expect(stdout.text.contains(ProviderDemo.synthesisNote))
        #expect(!stdout.text.contains(ProviderDemo.synthesisNotice), "the demo notice stands in a description")
        #expect(harness.server.requests.isEmpty)
    }
}
