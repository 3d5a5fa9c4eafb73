/// Work a command does for later while the providers answer, started once their requests are out:
/// until then the cores belong to the requests (on a two-core machine, earlier work delays them).
enum WhileProvidersAnswer {
    /// How long after the search starts the requests are out, with room to spare (~3 ms measured).
    static let delay = Duration.milliseconds(15)

    /// Runs `work` on a background task after `delay`; cancelling the task before then skips it.
    @discardableResult
    static func run(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task.detached {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            await work()
        }
    }
}
