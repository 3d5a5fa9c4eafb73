import Foundation
import OpenLibraryProvider
import SeekKit
import SeekHTTPClient
import SeekCore
import SeekLoopback
import Testing

/// How the provider describes itself and is built from settings.
@Suite("Open Library configuration")
struct OpenLibraryConfigurationTests {
    @Test("the descriptor: id, name, book kind, capabilities, offset paging, no key, 10 s, weight 1, !ol")
    func descriptor() async throws {
        let transport = AsyncHTTPTransport()
        let environment = ProviderEnvironment(settings: Settings(), transport: transport)
        let provider = try OpenLibraryProvider(environment: environment)
        let descriptor = provider.descriptor
        #expect(descriptor.id == "openlibrary")
        #expect(descriptor.name == "Open Library")
        #expect(descriptor.kinds == [.book])
        #expect(descriptor.capabilities == [.search, .detail, .image])
        #expect(descriptor.paging == .offset)
        #expect(descriptor.needsKey == false)
        #expect(descriptor.defaultTimeout == .seconds(10))
        #expect(descriptor.weight == 1)
        #expect(descriptor.shortcuts == ["ol"])
        #expect(provider.isConfigured)
        try await transport.shutdown()
    }

    @Test("defaults to openlibrary.org and covers.openlibrary.org")
    func defaultURLs() async throws {
        let transport = AsyncHTTPTransport()
        let provider = try OpenLibraryProvider(environment: ProviderEnvironment(settings: Settings(), transport: transport))
        #expect(provider.baseURL.absoluteString == "https://openlibrary.org")
        #expect(provider.coversURL.absoluteString == "https://covers.openlibrary.org")
        #expect(provider.endpoint == "https://openlibrary.org")
        try await transport.shutdown()
    }

    @Test("the factory reads SEEK_OPENLIBRARY_URL and SEEK_OPENLIBRARY_COVERS_URL")
    func factoryReadsEnvironment() async throws {
        let transport = AsyncHTTPTransport()
        let settings = Settings(environment: [
            "SEEK_OPENLIBRARY_URL": "http://127.0.0.1:9/ol",
            "SEEK_OPENLIBRARY_COVERS_URL": "http://127.0.0.1:9/covers",
        ])
        let made = try OpenLibraryProvider.factory.make(ProviderEnvironment(settings: settings, transport: transport))
        let provider = try #require(made as? OpenLibraryProvider)
        #expect(OpenLibraryProvider.factory.id == "openlibrary")
        #expect(provider.baseURL.absoluteString == "http://127.0.0.1:9/ol")
        #expect(provider.coversURL.absoluteString == "http://127.0.0.1:9/covers")
        try await transport.shutdown()
    }

    @Test("the config file's url sets the API only; its timeout is the engine's, not read by the provider")
    func configFile() async throws {
        let transport = AsyncHTTPTransport()
        let file = JSONValue.object(["providers": .object(["openlibrary": .object([
            "url": .string("http://127.0.0.1:9/mirror"), "timeout": .number(4),
        ])])])
        let provider = try OpenLibraryProvider(
            environment: ProviderEnvironment(settings: Settings(file: file), transport: transport))
        #expect(provider.baseURL.absoluteString == "http://127.0.0.1:9/mirror")
        #expect(provider.coversURL.absoluteString == "https://covers.openlibrary.org")
        #expect(provider.descriptor.defaultTimeout == .seconds(10))
        #expect(try ProviderTuning.load(from: Settings(file: file), providers: [OpenLibraryProvider.id])[OpenLibraryProvider.id]?.timeout == .seconds(4))
        try await transport.shutdown()
    }

    @Test("a URL setting that is not http(s) is a configuration error")
    func invalidURL() async throws {
        let transport = AsyncHTTPTransport()
        for variable in ["SEEK_OPENLIBRARY_URL", "SEEK_OPENLIBRARY_COVERS_URL"] {
            let settings = Settings(environment: [variable: "ftp://example.org"])
            let error = #expect(throws: SeekError.self) {
                try OpenLibraryProvider(environment: ProviderEnvironment(settings: settings, transport: transport))
            }
            #expect(error?.kind == .configuration)
            #expect(error?.detail.contains(variable) == true)
        }
        try await transport.shutdown()
    }
}
