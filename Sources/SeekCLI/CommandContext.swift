import Foundation
import SeekKit
import SeekCore
import SeekRuntime

/// What a command runs with: the one `SeekSession` this process opened (`core`), and where the
/// command writes (`context`). Not a session of its own: it opens and closes the `SeekSession`.
package struct CommandContext: Sendable {
    package let core: SeekSession
    package let context: CLIContext
    /// The demo server, with `--demo` (its `sampleQueries` for a host's banner); nil otherwise.
    package let demo: DemoMode?

    var settings: Settings { core.settings }

    /// Opens a session from the current context (with the demo server's settings when `demo` is
    /// set), runs `body`, and closes the session whatever `body` did.
    @discardableResult
    package static func with<T: Sendable>(demo: Bool = false, _ body: (CommandContext) async throws -> T) async throws -> T {
        var shown = CLIContext.current
        let demoMode: DemoMode?
        do {
            demoMode = demo ? try await DemoMode.start(extraProviders: shown.extraProviders) : nil
        } catch {
            throw CLIError.usage(SeekError.wrap(error).cause)
        }
        if let demoMode {
            // Nothing printed names the demo server's loopback address (an error's URL, say).
            shown.stdout = DemoMaskingSink(inner: shown.stdout, demo: demoMode)
            shown.stderr = DemoMaskingSink(inner: shown.stderr, demo: demoMode)
        }
        let context = shown
        if demoMode != nil { context.err("seek: " + DemoMode.notice) }
        let core: SeekSession
        do {
            var settings = try Settings.load(environment: context.environment)
            if let demoMode { settings = demoMode.applied(to: settings) }
            core = try await SeekSession.open(settings: settings, extraProviders: context.extraProviders) { line in
                context.err("seek: " + line)
            }
        } catch {
            await demoMode?.shutdown()
            throw CLIError.configuration(SeekError.wrap(error))
        }
        let session = CommandContext(core: core, context: context, demo: demoMode)
        do {
            let result = try await body(session)
            await core.close()
            await demoMode?.shutdown()
            return result
        } catch {
            await core.close()
            await demoMode?.shutdown()
            throw error
        }
    }
}

/// Writes through to `inner` with the demo server's address written `demo:` (`DemoMode.masked`).
struct DemoMaskingSink: TextSink {
    let inner: any TextSink
    let demo: DemoMode

    func write(_ text: String) {
        inner.write(demo.masked(text))
    }
}
