import Foundation
import SeekCore

/// Configuration lookup: environment variables override the config file.
///
/// The config file is JSON: `{"providers": {"giphy": {"apiKey": "…", "url": "…", "timeout": 5,
/// "weight": 1.5}}, "SEEK_GIPHY_API_KEY": "…"}` — top-level keys may also use the variable names.
public struct Settings: Sendable {
    public let environment: [String: String]
    /// The parsed config file, or empty.
    public let file: JSONValue

    public init(environment: [String: String] = [:], file: JSONValue = .object([:])) {
        self.environment = environment
        self.file = file
    }

    public static func home(_ environment: [String: String]) -> String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// A string setting: the variable, else the file's same-named top-level key, else `providers.<provider>.<key>`.
    public func string(_ variable: String, provider: String? = nil, key: String? = nil) -> String? {
        if let value = environment[variable], !value.isEmpty { return value }
        if let value = file[variable]?.stringValue, !value.isEmpty { return value }
        if let provider, let key, let value = file["providers"]?[provider]?[key]?.stringValue, !value.isEmpty {
            return value
        }
        return nil
    }

    /// `providers.<id>.timeout`, in seconds from 0 to 3600: the one reader of a provider's deadline in
    /// the config file. Anything else (a string that is not a number, infinity, 1e300) is an error.
    /// The engine's (`ProviderTuning.load`), not a provider's: a provider declares its default in its descriptor.
    package func providerTimeout(_ id: String) throws -> Duration? {
        guard let value = file["providers"]?[id]?["timeout"] else { return nil }
        guard let seconds = value.doubleValue, seconds > 0, seconds <= 3600 else {
            throw SeekError(.configuration, provider: id, detail: "providers.\(id).timeout must be a number of seconds between 0 and 3600")
        }
        return .seconds(clamping: seconds)
    }

    /// A number setting from a provider's section of the config file.
    public func number(provider: String, key: String) -> Double? {
        file["providers"]?[provider]?[key]?.doubleValue
    }

    /// The cache directory: `SEEK_CACHE_DIR`, else `$XDG_CACHE_HOME/seek`, else `~/.cache/seek`.
    public var cacheDirectory: URL {
        if let dir = string("SEEK_CACHE_DIR") { return URL(fileURLWithPath: dir) }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg + "/seek") }
        return URL(fileURLWithPath: Self.home(environment) + "/.cache/seek")
    }

    /// The data directory: `SEEK_DATA_DIR`, else `$XDG_DATA_HOME/seek`, else `~/.local/share/seek`.
    public var dataDirectory: URL {
        if let dir = string("SEEK_DATA_DIR") { return URL(fileURLWithPath: dir) }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg + "/seek") }
        return URL(fileURLWithPath: Self.home(environment) + "/.local/share/seek")
    }

    /// A base URL setting, validated as absolute http(s).
    public func baseURL(_ variable: String, provider: String, default fallback: String) throws -> URL {
        let text = string(variable, provider: provider, key: "url") ?? fallback
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else {
            throw SeekError(.configuration, provider: provider, detail: "\(variable) is not an http(s) URL: \(text)")
        }
        return url
    }
}
