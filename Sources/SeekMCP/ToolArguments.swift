import MCP
import SeekCore
import SeekRuntime

/// Why a tool call failed: it becomes a result with `isError: true` and this message, and the session
/// goes on. Never carries a key (provider errors are redacted before they are built).
enum ToolFailure: Error, Sendable, Equatable {
    /// A bad argument: missing, of the wrong type, out of range, malformed, an unknown provider.
    case invalidArgument(String)
    /// The call was well formed but no provider answered it (the CLI's exit 4).
    case failed(String)

    var message: String {
        switch self {
        case .invalidArgument(let text): "invalid argument: \(text)"
        case .failed(let text): text
        }
    }

    /// An invalid-input error from the session as a bad argument; any other error as a failure
    /// naming its provider.
    static func from(_ error: any Error) -> ToolFailure {
        if let failure = error as? ToolFailure { return failure }
        if let refusal = error as? RequestError { return .invalidArgument(refusal.message) }
        let seek = SeekError.wrap(error)
        if seek.kind == .invalidInput, seek.provider == nil { return .invalidArgument(seek.detail.isEmpty ? seek.cause : seek.detail) }
        return .failed(seek.description)
    }
}

/// A tool call's arguments, read with the checks every tool shares. Names the tool takes are given
/// up front, so a misspelt argument is reported instead of silently ignored.
struct ToolArguments {
    let values: [String: Value]

    init(_ values: [String: Value]?, accepted: [String], tool: String) throws(ToolFailure) {
        let values = values ?? [:]
        if let unknown = values.keys.sorted().first(where: { !accepted.contains($0) }) {
            let takes = accepted.isEmpty ? "no arguments" : accepted.joined(separator: ", ")
            throw .invalidArgument("unknown argument '\(unknown)' (\(tool) takes \(takes))")
        }
        self.values = values
    }

    /// A string argument; nil when absent (or null).
    func string(_ name: String) throws(ToolFailure) -> String? {
        switch values[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw .invalidArgument("'\(name)' must be a string")
        }
    }

    /// A string argument that must be there; whether its text will do is the session's to say.
    func requiredString(_ name: String) throws(ToolFailure) -> String {
        guard let text = try string(name) else { throw .invalidArgument("'\(name)' is required") }
        return text
    }

    /// A whole number, or nil when absent; its bounds are the session's to check. A whole double (20.0) counts.
    func integer(_ name: String) throws(ToolFailure) -> Int? {
        switch values[name] {
        case nil, .null?: return nil
        case .int(let value)?: return value
        case .double(let value)?:
            guard let whole = Int(exactly: value) else { throw .invalidArgument("'\(name)' must be a whole number") }
            return whole
        default: throw .invalidArgument("'\(name)' must be a whole number")
        }
    }

    /// Provider ids as an array of strings (or one comma-separated string), joined by commas for
    /// `SeekSession.selection`; nil when absent, so the configured default applies.
    func providers(_ name: String = "providers") throws(ToolFailure) -> String? {
        switch values[name] {
        case nil, .null?:
            return nil
        case .string(let text)?:
            return text
        case .array(let list)?:
            var ids: [String] = []
            for entry in list {
                guard case .string(let id) = entry else { throw .invalidArgument("'\(name)' must be a list of provider ids") }
                ids.append(id)
            }
            guard !ids.isEmpty else { throw .invalidArgument("'\(name)' is an empty list (leave it out to ask every provider)") }
            return ids.joined(separator: ",")
        default:
            throw .invalidArgument("'\(name)' must be a list of provider ids")
        }
    }

    /// A ranking method by name; searxng when absent.
    /// `group`: work (the default) or edition.
    func grouping(_ name: String = "group") throws(ToolFailure) -> ResultGrouping {
        guard let text = try string(name) else { return .work }
        guard let grouping = ResultGrouping(rawValue: text.lowercased()) else {
            throw .invalidArgument("'\(name)' must be one of \(ResultGrouping.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(text)')")
        }
        return grouping
    }

    /// A true/false argument; false when absent.
    func flag(_ name: String) throws(ToolFailure) -> Bool {
        switch values[name] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw .invalidArgument("'\(name)' must be true or false")
        }
    }

    func ranking(_ name: String = "rank") throws(ToolFailure) -> RankingMethod {
        guard let text = try string(name) else { return .searxng }
        guard let method = RankingMethod(rawValue: text.lowercased()) else {
            throw .invalidArgument("'\(name)' must be one of \(RankingMethod.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(text)')")
        }
        return method
    }
}
