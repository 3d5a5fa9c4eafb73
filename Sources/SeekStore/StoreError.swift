import Foundation

/// The one error type of SeekStore: which operation on which database file failed, and why.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, in a few words (`open`, `add favorite`, `record search`, …).
    public var operation: String
    /// The database file.
    public var path: String
    /// The cause, e.g. SQLite's message.
    public var reason: String

    public init(operation: String, path: String, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    public var description: String {
        "user data store \(path): could not \(operation): \(reason)"
    }
}
