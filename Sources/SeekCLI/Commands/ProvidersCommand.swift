import ArgumentParser
import Foundation
import SeekCore

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers", abstract: "List the providers: kinds, capabilities, configuration and endpoint.")

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        guard format == .table || format == .json else { throw ValidationError("providers prints table or json") }
    }

    func run() async throws {
        try await Session.with { session in
            let registry = try session.registry
            if format == .json {
                let documents = registry.providers.map(ProviderDocument.init)
                session.context.out(try JSONText.pretty(["providers": documents]))
            } else {
                var table = Table([
                    .init("ID", width: 11), .init("KINDS", width: 5), .init("CAPABILITIES", width: 28),
                    .init("STATUS", width: 10), .init("ENDPOINT", share: 1),
                ])
                for provider in registry.providers {
                    let document = ProviderDocument(provider)
                    table.add([
                        document.id, document.kinds.joined(separator: ","), document.capabilities.joined(separator: ","),
                        document.configured ? "ready" : "no key", document.endpoint,
                    ])
                }
                session.context.out(table.render())
            }
            return ExitStatus.success
        }
    }
}

/// One provider as `seek providers --format json` prints it. Never includes a key.
struct ProviderDocument: Encodable {
    let id: String
    let name: String
    let kinds: [String]
    let capabilities: [String]
    let paging: String
    let needsKey: Bool
    let configured: Bool
    let endpoint: String
    let timeoutSeconds: Double
    let weight: Double
    let shortcuts: [String]

    init(_ provider: any SearchProvider) {
        let descriptor = provider.descriptor
        id = descriptor.id
        name = descriptor.name
        kinds = descriptor.kinds.map(\.rawValue)
        capabilities = ProviderCapability.allCases.filter { descriptor.capabilities.contains($0) }.map(\.rawValue)
        paging = descriptor.paging.rawValue
        needsKey = descriptor.needsKey
        configured = provider.isConfigured
        endpoint = provider.endpoint
        timeoutSeconds = descriptor.defaultTimeout.seconds
        weight = descriptor.weight
        shortcuts = descriptor.shortcuts
    }
}
