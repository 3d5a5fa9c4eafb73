import Foundation
import NIOConcurrencyHelpers
import SeekKit
import SeekCore
import SeekRuntime
import SeekSupport

/// Where text goes: the process's stdout/stderr, or a buffer in tests.
package protocol TextSink: Sendable {
    func write(_ text: String)
}

/// Writes straight to a file descriptor (stdout or stderr).
package struct FileDescriptorSink: TextSink {
    let descriptor: Int32
    package static let standardOutput = FileDescriptorSink(descriptor: STDOUT_FILENO)
    package static let standardError = FileDescriptorSink(descriptor: STDERR_FILENO)

    /// Writes all of `text`, or as much as the reader takes: a closed pipe (`seek … | head`) or a
    /// full disk ends the write quietly instead of trapping, as `FileHandle.write` would.
    package func write(_ text: String) {
        FileDescriptorIO.writeAll(descriptor, text)
    }
}

/// Collects text in memory, for in-process tests.
package final class CapturedText: TextSink {
    private let buffer = NIOLockedValueBox("")
    package init() {}
    package func write(_ text: String) { buffer.withLockedValue { $0 += text } }
    package var text: String { buffer.withLockedValue { $0 } }
}

/// Everything a command needs from its surroundings; set once per run as a task-local value.
package struct CLIContext: Sendable {
    package var environment: [String: String]
    package var stdout: any TextSink
    package var stderr: any TextSink
    /// Providers added by an embedding executable (e.g. `seek-itbook`), after the built-in ones.
    package var extraProviders: [ProviderFactory]
    /// Whether stderr is a terminal (progress lines, colour).
    package var isTerminal: Bool
    /// The width of the terminal stdout writes to, in columns, when it is one (`TIOCGWINSZ`).
    package var terminalColumns: Int?

    package init(
        environment: [String: String], stdout: any TextSink, stderr: any TextSink,
        extraProviders: [ProviderFactory] = [], isTerminal: Bool = false, terminalColumns: Int? = nil
    ) {
        self.environment = environment
        self.stdout = stdout
        self.stderr = stderr
        self.extraProviders = extraProviders
        self.isTerminal = isTerminal
        self.terminalColumns = terminalColumns
    }

    /// How wide tables are: `COLUMNS` when it is a number, else the terminal's width, else 80 (a
    /// pipe, a file); never narrower than `minimumWidth` nor wider than `maximumWidth`.
    package var width: Int {
        let asked = environment["COLUMNS"].flatMap { Int($0.trimmed()) }.flatMap { $0 > 0 ? $0 : nil }
        return min(Self.maximumWidth, max(Self.minimumWidth, asked ?? terminalColumns ?? Self.defaultWidth))
    }

    package static let defaultWidth = 80, minimumWidth = 40, maximumWidth = 1000

    /// The columns of the terminal `descriptor` is, or nil when it is none.
    package static func terminalColumns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    @TaskLocal package static var current = CLIContext(
        environment: processEnvironment(), stdout: FileDescriptorSink.standardOutput,
        stderr: FileDescriptorSink.standardError)

    /// The process's environment variables (the first of a repeated name, as `getenv` reads them).
    /// Read from `environ` directly: `ProcessInfo` builds its whole process-info object on first
    /// use, half a millisecond of every start.
    package static func processEnvironment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let separator = text.firstIndex(of: "="), variables[String(text[..<separator])] == nil {
                variables[String(text[..<separator])] = String(text[text.index(after: separator)...])
            }
            entry += 1
        }
        return variables
    }

    func out(_ line: String) { stdout.write(line + "\n") }
    /// Diagnostics: each line made safe (`UntrustedText`), so that nothing in them, whoever wrote it,
    /// puts a control character on the terminal.
    package func err(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        stderr.write(lines.map { UntrustedText.line(String($0), limit: .max) }.joined(separator: "\n") + "\n")
    }

    /// Colour only on a terminal and when NO_COLOR is unset.
    var useColor: Bool { isTerminal && (environment["NO_COLOR"] ?? "").isEmpty }
}
