import SeekCore

extension ProviderTuning {
    /// Reads `providers.<id>.timeout` (seconds, 0–3600) and `providers.<id>.weight` (> 0) from the
    /// config file for each id; out-of-range values are a `.configuration` error naming the provider.
    public static func load(from settings: Settings, providers ids: [String]) throws -> [String: ProviderTuning] {
        var tuning: [String: ProviderTuning] = [:]
        for id in ids {
            var entry = ProviderTuning()
            entry.timeout = try settings.providerTimeout(id)
            if let weight = settings.number(provider: id, key: "weight") {
                guard weight > 0, weight.isFinite else {
                    throw SeekError(.configuration, provider: id, detail: "providers.\(id).weight must be a positive number")
                }
                entry.weight = weight
            }
            if entry.timeout != nil || entry.weight != nil { tuning[id] = entry }
        }
        return tuning
    }
}
