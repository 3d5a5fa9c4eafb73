import ArgumentParser
import SeekCore
import SeekKit
import SeekRuntime

/// Errors the CLI turns into a stderr line and an exit code.
package enum CLIError: Error {
    /// Bad arguments: exit 64.
    case usage(String)
    /// A bad config file or environment: exit 64.
    case configuration(SeekError)
    /// A single-item command failed (detail, image): exit 4.
    case failed(SeekError)
    /// A detail failed: exit 4, what happened in words (`SeekSession.inWords`), then the cause on a
    /// line of its own for whoever reads the diagnostics.
    case unavailable(words: String, cause: SeekError)
    /// The host executable that runs `serve` and `mcp` cannot be run (missing, another build, not
    /// `seek-hosts` at all, or an embedding that cannot hand over): a configuration error, exit 64.
    case hostUnavailable(String)

    var exitCode: Int32 {
        switch self {
        case .usage, .configuration, .hostUnavailable: return ExitStatus.usage
        case .failed, .unavailable: return ExitStatus.noneAnswered
        }
    }

    var message: String {
        switch self {
        case .usage(let text): return text
        case .configuration(let error): return error.description
        case .failed(let error): return error.description
        case .unavailable(let words, let cause): return "\(words)\nseek: cause: \(cause.description)"
        case .hostUnavailable(let text): return text
        }
    }
}

/// DESIGN's exit codes.
package enum ExitStatus {
    package static let success: Int32 = 0
    static let someFailed: Int32 = 3
    static let noneAnswered: Int32 = 4
    static let usage: Int32 = 64

    /// 0 when every provider that counts answered, 3 when some did, 4 when none did (the session's verdict).
    static func of(_ verdict: CallVerdict) -> Int32 {
        switch verdict {
        case .allAnswered: return success
        case .someFailed: return someFailed
        case .noneAnswered: return noneAnswered
        }
    }
}

/// A user-state failure as the CLI reports it: `seek: <what failed>` on stderr, exit 1.
enum UserStateFailure {
    static func exit(_ error: any Error, context: CLIContext) -> ExitCode {
        context.err("seek: \(error)")
        return ExitCode(1)
    }
}
