import SeekCore

/// How the composition root builds a provider from the process's settings and shared transport.
public struct ProviderFactory: Sendable {
    public let id: String
    public let make: @Sendable (ProviderEnvironment) throws -> any SearchProvider

    public init(id: String, make: @escaping @Sendable (ProviderEnvironment) throws -> any SearchProvider) {
        self.id = id
        self.make = make
    }
}

/// What a provider is built from: settings (environment over config file) and the shared HTTP transport.
public struct ProviderEnvironment: Sendable {
    public let settings: Settings
    public let transport: any HTTPTransport

    public init(settings: Settings, transport: any HTTPTransport) {
        self.settings = settings
        self.transport = transport
    }
}
