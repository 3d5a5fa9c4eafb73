import Foundation

/// How one provider's part of a request ended (DESIGN's status names).
public enum ProviderStatus: String, Sendable, Codable, CaseIterable {
    case ok, empty, timeout, error, rateLimited, unauthorized, skipped, suspended, unsupported

    /// Whether the provider answered (results may be empty).
    public var answered: Bool { self == .ok || self == .empty }

    /// The status an error maps to.
    public init(error: SeekError) {
        switch error.kind {
        case .timeout: self = .timeout
        case .rateLimited: self = .rateLimited
        case .unauthorized: self = .unauthorized
        case .missingKey: self = .skipped
        case .suspended: self = .suspended
        case .unsupported: self = .unsupported
        default: self = .error
        }
    }
}

/// One provider's outcome within a search: status, count, elapsed time and the error, if any.
public struct ProviderOutcome: Sendable, Hashable {
    public var provider: String
    public var status: ProviderStatus
    public var count: Int
    public var elapsed: Duration
    public var error: SeekError?
    /// The provider's continuation token, when it has more.
    public var next: String?
    public var total: Int?
    /// True when the items are a cached copy served because the provider failed (the status says how).
    public var stale: Bool

    public init(provider: String, status: ProviderStatus, count: Int = 0, elapsed: Duration = .zero,
                error: SeekError? = nil, next: String? = nil, total: Int? = nil, stale: Bool = false) {
        self.stale = stale
        self.provider = provider
        self.status = status
        self.count = count
        self.elapsed = elapsed
        self.error = error
        self.next = next
        self.total = total
    }

    public var elapsedMilliseconds: Int { elapsed.wholeMilliseconds }
}
