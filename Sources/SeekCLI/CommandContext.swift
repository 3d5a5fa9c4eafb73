import Foundation
import SeekKit
import SeekCore
import SeekRuntime

/// What a command runs with: the one `SeekSession` this process opened (`core`), and where the
/// command writes (`context`). Not a session of its own: it opens and closes the `SeekSession`.
package struct CommandContext: Sendable {
    package let core: SeekSession
    package let context: CLIContext

    var registry: ProviderRegistry { core.registry }
    var engine: SearchEngine { core.engine }
    var settings: Settings { core.settings }
    var userState: UserState { core.userState }
    var resilience: ResilienceServices { core.resilience }

    /// Opens a session from the current context (with the demo server's settings when `demo` is
    /// set), runs `body`, and closes the session whatever `body` did.
    @discardableResult
    package static func with<T: Sendable>(demo: Bool = false, _ body: (CommandContext) async throws -> T) async throws -> T {
        let context = CLIContext.current
        let demoMode: DemoMode?
        do {
            demoMode = demo ? try await DemoMode.start(extraProviders: context.extraProviders) : nil
        } catch {
            throw CLIError.usage(SeekError.wrap(error).cause)
        }
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
        let session = CommandContext(core: core, context: context)
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
