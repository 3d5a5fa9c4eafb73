#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore

/// The process's open-file limit: `seek serve` raises the soft limit to the hard one at start, so
/// each connection's descriptor comes out of the largest budget the system allows.
enum OpenFileLimit {
    /// The soft and hard limits, or nil when the system does not say.
    static func current() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit (on macOS at most `OPEN_MAX`, the most it takes) and
    /// logs the change; a failure is a warning, never the server's end.
    static func raise(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else {
            logger.warning("could not read the open-file limit", metadata: ["errno": "\(errno)"])
            return
        }
        var target = limit.rlim_max
        #if canImport(Darwin)
        target = min(target, rlim_t(OPEN_MAX))
        #endif
        guard limit.rlim_cur < target else { return }
        let before = limit.rlim_cur
        limit.rlim_cur = target
        guard setrlimit(resource, &limit) == 0 else {
            logger.warning(
                "could not raise the open-file limit", metadata: ["soft": "\(before)", "hard": "\(limit.rlim_max)", "errno": "\(errno)"])
            return
        }
        logger.info("raised the open-file limit", metadata: ["from": "\(before)", "to": "\(target)"])
    }

    #if os(Linux)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}

/// The listening socket's first handler: when accepting fails for want of descriptors (EMFILE,
/// ENFILE, ENOBUFS, ENOMEM), closes the connections that have waited longest on their clients
/// (`ConnectionRegistry.shed`) and stops watching the socket for a moment. SwiftNIO's own
/// `AcceptBackoffHandler` (which its async `bind` installs) delays the next `read`, but the socket
/// stays registered for readability while a read is pending, so the event loop spins on `accept`.
final class DescriptorBackoffHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    /// How long accepting pauses after running out: short, since closing slow clients frees descriptors.
    static let pause = TimeAmount.milliseconds(100)
    /// How long it pauses when connections were closed to free descriptors: as long as their closing takes.
    static let pauseAfterShedding = TimeAmount.milliseconds(10)
    /// At most one warning per this long, however often accepting runs out.
    static let warningInterval = TimeAmount.seconds(10)

    private let logger: Logger
    private let connections: ConnectionRegistry
    private var resume: Scheduled<Void>?
    private var lastWarning: NIODeadline?
    /// Connections closed to free descriptors since the last warning.
    private var shedSinceWarning = 0

    init(logger: Logger, connections: ConnectionRegistry = ConnectionRegistry()) {
        self.logger = logger
        self.connections = connections
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, Self.isExhaustion(error.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        // Not passed on: an error that reaches the server's NIOAsyncChannel ends its accept loop.
        pauseAccepting(context: context, errno: error.errnoCode)
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        guard let resume else { return }
        resume.cancel()
        self.resume = nil
        try? context.channel.syncOptions?.setOption(.autoRead, value: true)
    }

    static func isExhaustion(_ code: CInt) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    }

    private func pauseAccepting(context: ChannelHandlerContext, errno code: CInt) {
        let now = NIODeadline.now()
        // Only while accepting is on: the accepts still queued in a read all fail the same way.
        let shed = resume == nil ? connections.shed(now: now) : 0
        shedSinceWarning += shed
        if lastWarning.map({ now - $0 >= Self.warningInterval }) ?? true {
            lastWarning = now
            let limit = OpenFileLimit.current().map { "\($0.soft)" } ?? "unknown"
            logger.warning(
                "out of file descriptors: closing the connections that waited longest on their clients, pausing new ones",
                metadata: ["errno": "\(code)", "open_file_limit": "\(limit)", "closed": "\(shedSinceWarning)"])
            shedSinceWarning = 0
        }
        // With autoRead off the channel leaves the socket's readability unwatched until it is back on.
        guard resume == nil, let options = context.channel.syncOptions, (try? options.getOption(.autoRead)) == true,
              (try? options.setOption(.autoRead, value: false)) != nil
        else { return }
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: shed > 0 ? Self.pauseAfterShedding : Self.pause) { [self] in
            resume = nil
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }
}

@available(*, unavailable)
extension DescriptorBackoffHandler: Sendable {}
