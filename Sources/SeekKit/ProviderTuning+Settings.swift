import SeekCore

extension ProviderTuning {
    /// The largest ranking weight: a score multiplies weights, and past this one provider would only
    /// drown the others (a config-declared provider has the same bound).
    public static let maxWeight: Double = 100

    /// Reads `providers.<id>.timeout` (seconds, 0–3600) and `providers.<id>.weight` (above 0, at most
    /// `maxWeight`) from the config file for each id; out-of-range values (NaN, infinity, 1e300) are a
    /// `.configuration` error naming the provider.
    public static func load(from settings: Settings, providers ids: [String]) throws -> [String: ProviderTuning] {
        var tuning: [String: ProviderTuning] = [:]
        for id in ids {
            var entry = ProviderTuning()
            entry.timeout = try settings.providerTimeout(id)
            if let weight = settings.number(provider: id, key: "weight") {
                guard weight > 0, weight <= maxWeight else {
                    throw SeekError(
                        .configuration, provider: id,
                        detail: "providers.\(id).weight must be a number above 0 and at most \(SeekError.format(maxWeight))")
                }
                entry.weight = weight
            }
            if entry.timeout != nil || entry.weight != nil { tuning[id] = entry }
        }
        return tuning
    }
}
