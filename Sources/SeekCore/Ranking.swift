import Foundation

/// How a merged result's score is computed from its positions in each provider's list.
public enum RankingMethod: String, Sendable, Hashable, CaseIterable, Codable {
    /// SearXNG's formula: |P| · Πw · Σ 1/p — P the distinct providers, w their weights, p the positions.
    case searxng
    /// Weighted reciprocal rank fusion: Σ w / (k + p), with k = 60.
    case rrf

    /// RRF's k: it damps the lead of the very first positions (Cormack et al. use 60).
    public static let rrfConstant = 60.0

    /// The score of a result found at these sources (each with its provider's weight).
    public func score(_ sources: [ResultSource]) -> Double {
        switch self {
        case .searxng:
            // Each distinct provider counts once in |P| and Πw (a loop, not a set: sources are few).
            var providers = 0
            var product = 1.0
            var positions = 0.0
            for (index, source) in sources.enumerated() {
                positions += 1 / Double(max(1, source.rank))
                if !sources[..<index].contains(where: { $0.provider == source.provider }) {
                    providers += 1
                    product *= source.weight
                }
            }
            return Double(providers) * product * positions
        case .rrf:
            return sources.reduce(0.0) { $0 + $1.weight / (Self.rrfConstant + Double(max(1, $1.rank))) }
        }
    }

    /// The score's terms as a formula, for `--explain`: `2 × (1 × 1.5) × (1/1 + 1/3)` or `1/(60+1) + 1.5/(60+3)`.
    public func terms(_ sources: [ResultSource]) -> String {
        switch self {
        case .searxng:
            let weights = Self.providerWeights(sources).map { Self.number($0.weight) }.joined(separator: " × ")
            let positions = sources.map { "1/\($0.rank)" }.joined(separator: " + ")
            return "\(Self.providerWeights(sources).count) × (\(weights)) × (\(positions))"
        case .rrf:
            let k = Self.number(Self.rrfConstant)
            return sources.map { "\(Self.number($0.weight))/(\(k)+\($0.rank))" }.joined(separator: " + ")
        }
    }

    /// Each distinct provider once, in first-seen order, with its weight.
    private static func providerWeights(_ sources: [ResultSource]) -> [(provider: String, weight: Double)] {
        var seen: [(provider: String, weight: Double)] = []
        for source in sources where !seen.contains(where: { $0.provider == source.provider }) {
            seen.append((source.provider, source.weight))
        }
        return seen
    }

    /// `1`, `1.5`, `0.25`: integers without a fraction, others as short as they read exactly.
    private static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(format: "%g", value)
    }
}
