import Foundation
import SeekCore
import SeekKit

/// The shared image cache's transport with a library's cover files added: a `file://` URL inside one
/// of `roots` is answered from the disk (200 with the bytes, 404 when the file is missing), and any
/// other `file://` URL is refused (403) — a declared provider's upstream must not make the cache read
/// the server's files. Every other URL goes to `base`.
///
/// This is how the Calibre source's covers (`cover.jpg` beside each book) reach the image cache and
/// the image route unchanged: the cache keys, sniffs, sizes and stores them as it does a download.
public struct LibraryFilesTransport: HTTPTransport {
    /// Resolved folder paths, each ending in `/`.
    public let roots: [String]
    public let base: any HTTPTransport

    public init(roots: [URL], base: any HTTPTransport) {
        self.roots = roots.map { root in
            let path = root.standardizedFileURL.resolvingSymlinksInPath().path
            return path.hasSuffix("/") ? path : path + "/"
        }
        self.base = base
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.url.isFileURL else { return try await base.send(request) }
        let path = request.url.standardizedFileURL.resolvingSymlinksInPath().path
        guard roots.contains(where: { path.hasPrefix($0) }) else {
            return HTTPResponse(status: 403, body: Data("not a library file".utf8))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return HTTPResponse(status: 404, body: Data("no such file".utf8))
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: request.maxBodyBytes + 1) ?? Data()
        guard data.count <= request.maxBodyBytes else {
            throw SeekError(.bodyTooLarge(limitBytes: request.maxBodyBytes), detail: "\(request.url.lastPathComponent) is too large")
        }
        return HTTPResponse(status: 200, body: data)
    }
}
