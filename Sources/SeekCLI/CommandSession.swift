import Foundation
import SeekKit
import SeekCore
import SeekSession

/// A command's session: the `SeekSession` this process opened, and where the command writes.
package struct Session: Sendable {
    package let core: SeekSession
    package let context: CLIContext

    var container: Container { core.container }
    var registry: ProviderRegistry { core.registry }
    var engine: SearchEngine { core.engine }
    var settings: Settings { core.settings }
    var userState: UserState { core.userState }
    var resilience: ResilienceServices { core.resilience }

    /// Opens a session from the current context (with the demo server's settings when `demo` is
    /// set), runs `body`, and closes the session whatever `body` did.
    @discardableResult
    package static func with<T: Sendable>(demo: Bool = false, _ body: (Session) async throws -> T) async throws -> T {
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
        let session = Session(core: core, context: context)
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

    /// Provider ids selected by a flag, else SEEK_PROVIDERS / config `defaultProviders`; nil means all.
    func selection(_ flag: String?) throws -> ProviderSelection {
        try usage { try core.selection(flag) }
    }

    /// `body`'s value; an invalid-input error (an unknown provider, a malformed id) is a usage error.
    func usage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SeekError where error.kind == .invalidInput {
            throw CLIError.usage(error.detail)
        }
    }

    /// Records a finished search in the history; a failure is a warning, never the command's result.
    func recordHistory(of result: SearchResult) async {
        do {
            try await core.recordHistory(of: result)
        } catch {
            context.err("seek: warning: could not record the search in the history: \(error)")
        }
    }
}
