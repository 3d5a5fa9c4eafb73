import Foundation
import SeekKit
import SeekCore
import SeekLoopback
import SeekResilience

extension Settings {
    /// Loads `$SEEK_CONFIG`, else `$XDG_CONFIG_HOME/seek/config.json`, else `~/.config/seek/config.json`.
    /// A missing default file is fine; an unreadable or malformed one is an error.
    public static func load(environment: [String: String]) throws -> Settings {
        let explicit = environment["SEEK_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = explicit ?? configPath(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else {
            if explicit != nil {
                throw SeekError(.configuration, detail: "config file \(path) does not exist")
            }
            return Settings(environment: environment)
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let value = try JSONValue(parsing: data)
            guard case .object = value else {
                throw SeekError(.configuration, detail: "config file \(path) must hold a JSON object")
            }
            return Settings(environment: environment, file: value)
        } catch let error as SeekError {
            throw error
        } catch {
            throw SeekError(.configuration, detail: "config file \(path) is not valid JSON")
        }
    }

    static func configPath(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/seek/config.json" }
        return Settings.home(environment) + "/.config/seek/config.json"
    }

}
