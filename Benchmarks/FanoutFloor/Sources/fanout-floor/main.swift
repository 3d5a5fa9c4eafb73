import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import NIOPosix

// A server that does nothing a search engine does: `GET /search?q=…` calls the three stand-ins at
// once (on the paths Seek calls), reads each body whole, and answers their sizes. What it costs per
// request, and how fast it answers under load, is the floor Seek's own work stands on.
//
// BURN_US=N: each provider's answer is followed by N/3 µs of computing (thread CPU time) on the
// thread that took it, as parsing and mapping it would be: what N µs of work a request does to the
// rate and the latency, without any of Seek's own hand-offs.
// BURN_PRIORITY=low|background|high: that computing runs in a task of its own at that priority.
//
// Usage: fanout-floor PORT OL_BASE GIPHY_BASE ALADIN_BASE   (prints "serving on http://…" on stderr)

let arguments = CommandLine.arguments
guard arguments.count == 5, let port = Int(arguments[1]), (0...65535).contains(port) else {
    FileHandle.standardError.write(Data("usage: fanout-floor PORT OL_BASE GIPHY_BASE ALADIN_BASE\n".utf8))
    exit(64)
}
let bases = (ol: arguments[2], giphy: arguments[3], aladin: arguments[4])

// As Seek's transport: one event loop for every outgoing connection, up to 64 connections a host.
var configuration = HTTPClient.Configuration()
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup(numberOfThreads: 1), configuration: configuration)

/// A third of BURN_US, in nanoseconds: at most a second a request.
let burnNanoseconds = min(ProcessInfo.processInfo.environment["BURN_US"].flatMap { UInt64($0) } ?? 0, 1_000_000) * 1000 / 3

let burnPriority: TaskPriority? = switch ProcessInfo.processInfo.environment["BURN_PRIORITY"] {
case "low": .low
case "background": .background
case "high": .high
default: nil
}

/// The calling thread's CPU time, in nanoseconds.
@Sendable func threadCPUTime() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Computes (hashes a counter) until the thread has spent `nanoseconds` of CPU.
@Sendable func burn(_ nanoseconds: UInt64) -> UInt64 {
    let end = threadCPUTime() + nanoseconds
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    while threadCPUTime() < end {
        for byte in 0..<UInt64(64) { hash = (hash ^ byte) &* 0x100_0000_01b3 }
    }
    return hash
}

@Sendable func fetch(_ url: String) async throws -> Int {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
    guard response.status == .ok else { throw HTTPError(.badGateway) }
    let size = try await response.body.collect(upTo: 4 << 20).readableBytes
    guard burnNanoseconds > 0 else { return size }
    if let priority = burnPriority {
        return size + Int(await Task(priority: priority) { burn(burnNanoseconds) }.value & 1)
    }
    return size + Int(burn(burnNanoseconds) & 1)
}

let router = Router()
router.get("search") { request, _ -> String in
    let query = request.uri.queryParameters.get("q")?.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
    async let ol = fetch("\(bases.ol)/ol/search.json?q=\(query)&page=1&limit=20")
    async let giphy = fetch("\(bases.giphy)/giphy/v1/gifs/search?q=\(query)&api_key=bench-key&limit=20&offset=0")
    async let aladin = fetch("\(bases.aladin)/aladin/ttb/api/ItemSearch.aspx?Query=\(query)&ttbkey=bench-key&output=js&MaxResults=20")
    let sizes = try await [ol, giphy, aladin]
    return #"{"bytes":\#(sizes)}"#
}
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { channel in
        FileHandle.standardError.write(Data("serving on http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
    })
try await app.runService()
