import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekRuntime

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "List the providers: kinds, capabilities, configuration, endpoint and cool-down.",
        discussion: "A provider that failed repeatedly, or was told by its server to wait, is suspended until a time; `--reset NAME` clears that.")

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    @Option(name: .customLong("reset"), help: ArgumentHelp("Clear a provider's cool-down (`all` clears every one).", valueName: "NAME"))
    var reset: String?

    func validate() throws {
        guard format == .table || format == .json else { throw ValidationError("providers prints table or json") }
    }

    func run() async throws {
        try await CommandContext.with { session in
            if let reset {
                let ids = try await session.core.resetCoolDown(reset)
                session.context.out("\(ids.joined(separator: ", ")): cool-down cleared; the next call goes through")
                return ExitStatus.success
            }
            let documents = await session.core.providerDocuments()
            if format == .json {
                session.context.out(JSONText.pretty(ProvidersDocument(providers: documents)))
            } else {
                var table = Table([
                    .init("ID", width: 11), .init("KINDS", width: 5), .init("CAPABILITIES", width: 28),
                    .init("STATUS", width: 10), .init("ENDPOINT", share: 1),
                ])
                for document in documents {
                    table.add([
                        document.id, document.kinds.joined(separator: ","), document.capabilities.joined(separator: ","),
                        document.status, document.endpoint,
                    ])
                }
                var lines = [table.render()]
                lines += Self.needs(documents)
                for document in documents {
                    guard let until = document.suspendedUntil else { continue }
                    lines.append("\(document.id): suspended until \(until)" + (document.suspendedReason.map { " (\($0))" } ?? "")
                        + "; `seek providers --reset \(document.id)` clears it")
                }
                session.context.out(lines.joined(separator: "\n"))
            }
            return ExitStatus.success
        }
    }

    /// What each provider needs, one line a setting: whether it is set, and for a missing required
    /// one that the provider is skipped without it. Never a value.
    static func needs(_ documents: [ProviderDocument]) -> [String] {
        let rows = documents.flatMap { document in document.needs.map { (document.id, $0) } }
        guard !rows.isEmpty else { return [] }
        let width = max(11, (rows.map(\.0.count).max() ?? 0) + 1)
        var lines = ["", "needs:"]
        for (id, need) in rows {
            let state: String
            switch (need.isSet, need.required) {
            case (true, _): state = "set"
            case (false, true): state = "missing — \(id) is skipped until it is set (\(need.purpose))"
            case (false, false): state = "not set (optional: \(need.purpose))"
            }
            lines.append("  " + id.padding(toLength: width, withPad: " ", startingAt: 0) + need.variable + ": " + state)
        }
        return lines
    }
}

