import Foundation
import SeekCore
import SeekKit
import SeekResilience
import SeekImageCache

/// One provider as `seek providers --format json` prints it. Never includes a key.
public struct ProviderDocument: JSONWritable {
    public let id: String
    public let name: String
    public let kinds: [String]
    public let capabilities: [String]
    public let paging: String
    public let needsKey: Bool
    public let configured: Bool
    public var endpoint: String
    public let timeoutSeconds: Double
    public let weight: Double
    public let shortcuts: [String]
    /// The settings it needs or may use (keys, a contact address), each saying whether it is set.
    public let needs: [ProviderRequirement]
    /// The variables of `needs` that are required and not set: why it is `no key`.
    public let missing: [String]
    /// `ready`, `no key` or `suspended`.
    public let status: String
    /// ISO 8601 end of the cool-down, while suspended.
    public let suspendedUntil: String?
    public let suspendedReason: String?

    /// `tuning`: the config file's `providers.<id>.timeout|weight`, which the engine applies over the descriptor's.
    public init(_ provider: any SearchProvider, tuning: ProviderTuning? = nil, suspension: (until: Date, reason: String?)? = nil) {
        let descriptor = provider.descriptor
        id = descriptor.id
        name = descriptor.name
        kinds = descriptor.kinds.map(\.rawValue)
        capabilities = ProviderCapability.allCases.filter { descriptor.capabilities.contains($0) }.map(\.rawValue)
        paging = descriptor.paging.rawValue
        needsKey = descriptor.needsKey
        configured = provider.isConfigured
        endpoint = provider.endpoint
        timeoutSeconds = (tuning?.timeout ?? descriptor.defaultTimeout).seconds
        weight = tuning?.weight ?? descriptor.weight
        shortcuts = descriptor.shortcuts
        needs = provider.requirements
        missing = provider.missingRequirements.map(\.variable)
        suspendedUntil = suspension.map { $0.until.formatted(.iso8601) }
        suspendedReason = suspension?.reason
        status = !configured ? "no key" : (suspension == nil ? "ready" : "suspended")
    }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("id", id)
            writer.field("name", name)
            writer.field("kinds", kinds)
            writer.field("capabilities", capabilities)
            writer.field("paging", paging)
            writer.field("needsKey", needsKey)
            writer.field("configured", configured)
            writer.field("endpoint", endpoint)
            writer.field("timeoutSeconds", timeoutSeconds)
            writer.field("weight", weight)
            writer.field("shortcuts", shortcuts)
            writer.field("needs", needs.map(RequirementDocument.init))
            writer.field("missing", missing)
            writer.field("status", status)
            writer.field("suspendedUntil", suspendedUntil)
            writer.field("suspendedReason", suspendedReason)
        }
    }
}

/// One setting of a provider's `needs`: the variable, what it is, whether it is required and set. Never the value.
public struct RequirementDocument: JSONWritable {
    public let requirement: ProviderRequirement

    public init(_ requirement: ProviderRequirement) { self.requirement = requirement }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("variable", requirement.variable)
            writer.field("purpose", requirement.purpose)
            writer.field("required", requirement.required)
            writer.field("set", requirement.isSet)
        }
    }
}

public struct SuggestDocument: JSONWritable {
    public init(prefix: String, suggestions: [String], outcomes: [ProviderOutcome]) {
        self.prefix = prefix
        self.suggestions = suggestions
        self.outcomes = outcomes
    }

    public let prefix: String
    public let suggestions: [String]
    public let outcomes: [ProviderOutcome]

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("prefix", prefix)
            writer.field("suggestions", suggestions)
            writer.field("providers", outcomes.map(OutcomeDocument.init))
        }
    }
}

/// `seek cache stats --format json`: one object with a block per tier.
public struct CacheStatsDocument: JSONWritable {
    public let statistics: ImageCacheStatistics

    public init(_ statistics: ImageCacheStatistics) { self.statistics = statistics }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("directory", statistics.directory)
            writer.field("ttlSeconds", Int(saturating: statistics.timeToLiveSeconds.rounded()))
            writer.field("memory") { Self.write(statistics.memory, to: &$0) }
            writer.field("disk") { Self.write(statistics.disk, to: &$0) }
            writer.field("downloads", statistics.downloads)
            writer.field("rejected", statistics.rejected)
            writer.field("corrupt", statistics.corrupt)
        }
    }

    private static func write(_ tier: TierStatistics, to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("entries", tier.entries)
            writer.field("bytes", tier.bytes)
            writer.field("limitBytes", tier.limitBytes)
            writer.field("hits", tier.hits)
            writer.field("misses", tier.misses)
        }
    }
}

/// `{"window": 100, "providers": [...]}`.
public struct StatsEnvelope: JSONWritable {
    public init(window: Int, providers: [StatsDocument]) {
        self.window = window
        self.providers = providers
    }

    public let window: Int
    public let providers: [StatsDocument]

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("window", window)
            writer.field("providers", providers)
        }
    }
}

/// One provider's line of `seek stats --format json`.
public struct StatsDocument: JSONWritable {
    public init(summary: ProviderStatsSummary, suspension: (until: Date, reason: String?)?) {
        self.summary = summary
        self.suspension = suspension
    }

    public let summary: ProviderStatsSummary
    public let suspension: (until: Date, reason: String?)?

    public var state: String { suspension == nil ? "ready" : "suspended" }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("id", summary.provider)
            writer.field("calls", summary.calls)
            writer.field("successes", summary.successes)
            writer.field("successRate", summary.successRate.map { ($0 * 1000).rounded() / 1000 })
            writer.field("p50Ms", summary.p50Ms)
            writer.field("p95Ms", summary.p95Ms)
            writer.field("lastError", summary.lastError)
            writer.field("lastErrorAt", summary.lastErrorAt?.formatted(.iso8601))
            writer.field("lastCallAt", summary.lastCallAt?.formatted(.iso8601))
            writer.field("state", state)
            writer.field("suspendedUntil", suspension?.until.formatted(.iso8601))
        }
    }
}

/// `seek providers --format json`: `{ "providers": [...] }`.
public struct ProvidersDocument: JSONWritable {
    public let providers: [ProviderDocument]

    public init(providers: [ProviderDocument]) {
        self.providers = providers
    }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in writer.field("providers", providers) }
    }
}
