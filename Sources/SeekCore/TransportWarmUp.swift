import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension AsyncHTTPTransport {
    /// Starts the event loops and sends one request, through a client of its own, to a one-shot
    /// listener on loopback. A process's first request pays a few milliseconds of one-time set-up
    /// in NIO and AsyncHTTPClient (type metadata, protocol-conformance lookups, the pipeline);
    /// `seek` pays it here, on the idle core, while it parses its command line, instead of on the
    /// way to the providers. The answer has a body and keeps the connection open, as the providers'
    /// do, so reading a body and handing a connection back to the pool are paid for too. Any
    /// failure only means the first real request pays instead.
    public static func warmUp() async {
        startEventLoops()
        guard let listener = OneShotHTTPListener(),
              let url = URL(string: "http://127.0.0.1:\(listener.port)/warm-up") else { return }
        let transport = AsyncHTTPTransport()
        _ = try? await transport.send(HTTPRequest(url: url, timeout: .seconds(2), maxBodyBytes: 1024))
        try? await transport.shutdown()
    }
}

/// A loopback TCP listener that answers a single HTTP request with `200 OK` and `{}`, on a thread
/// of its own, and closes once the client has; it gives up after two seconds without a caller.
struct OneShotHTTPListener {
    let port: UInt16

    init?() {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(socketFD, socketAddress, length) == 0 && listen(socketFD, 1) == 0
                    && getsockname(socketFD, socketAddress, &length) == 0
            }
        } && setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0
        guard ready else {
            close(socketFD)
            return nil
        }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { Self.serveOnce(socketFD) }
    }

    private static func serveOnce(_ socketFD: Int32) {
        let connection = accept(socketFD, nil, nil)
        close(socketFD)
        guard connection >= 0 else { return }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        defer { close(connection) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Reads up to the end of the request head (a GET has no body), at most 16 KiB.
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16 * 1024, !head.ends(with: Array("\r\n\r\n".utf8)) {
            let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            head += buffer[..<count]
        }
        let response = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)
        guard response.withUnsafeBytes({ write(connection, $0.baseAddress, $0.count) }) == response.count else { return }
        // Kept open until the client closes it (its shutdown) or the two-second timeout; a second
        // request on it is not answered: the connection closes as soon as one arrives.
        var next: UInt8 = 0
        _ = read(connection, &next, 1)
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
