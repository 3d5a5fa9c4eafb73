import Foundation
import SeekCore
import SeekKit

/// Finds the recorded real API responses in `../shared/fixtures` (next to the package).
public enum SharedFixtures {
    /// The fixtures directory: `$SEEK_SHARED_FIXTURES` when it names a directory, else
    /// `<package root>/../shared/fixtures`, where the package root is the nearest directory above
    /// this source file that holds `Package.swift`. Nil when neither exists.
    public static var directory: URL? {
        if let override = ProcessInfo.processInfo.environment["SEEK_SHARED_FIXTURES"], !override.isEmpty {
            let url = URL(fileURLWithPath: override, isDirectory: true)
            if isDirectory(url) {
                return url.standardizedFileURL
            }
        }
        guard let root = packageRoot() else { return nil }
        let url = root
            .deletingLastPathComponent()
            .appendingPathComponent("shared", isDirectory: true)
            .appendingPathComponent("fixtures", isDirectory: true)
            .standardizedFileURL
        return isDirectory(url) ? url : nil
    }

    /// `<directory>/<provider>/<file>`, or nil when there is no such file.
    public static func url(_ provider: String, _ file: String) -> URL? {
        guard let directory else { return nil }
        let url = directory
            .appendingPathComponent(provider, isDirectory: true)
            .appendingPathComponent(file, isDirectory: false)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        return url
    }

    private static func packageRoot(from filePath: String = #filePath) -> URL? {
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        for _ in 0..<64 where directory.path != "/" && !directory.path.isEmpty {
            let manifest = directory.appendingPathComponent("Package.swift", isDirectory: false)
            if FileManager.default.fileExists(atPath: manifest.path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
