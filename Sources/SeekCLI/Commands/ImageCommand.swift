import ArgumentParser
import Foundation
import SeekCore

struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image", abstract: "Fetch an item's image and write its bytes to a file (or stdout).")

    @Argument(help: "An item id such as openlibrary:OL45804W.")
    var id: String

    @Option(help: "small, medium, large or original.")
    var size: ImageSize = .large

    @Option(name: .shortAndLong, help: "Write the image here (default: stdout when it is not a terminal).")
    var output: String?

    @Option(help: "Seconds the provider may take.")
    var timeout: Double?

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    var demo = false

    func validate() throws {
        guard ItemID(parsing: id) != nil else { throw ValidationError("'\(id)' is not a PROVIDER:ID item id") }
        if output == nil, isatty(STDOUT_FILENO) == 1 {
            throw ValidationError("refusing to write image bytes to a terminal: use -o FILE")
        }
    }

    func run() async throws {
        try await DemoMode.run(enabled: demo) { overrides in
            try await Session.with(environmentOverrides: overrides) { session in
                let detail = try await ItemLookup.detail(id, session: session, timeout: timeout)
                let registry = try session.registry
                let provider = try registry.require(detail.item.provider)
                guard let url = provider.imageURL(for: detail.item, size: size) else {
                    throw CLIError.failed(SeekError(.notFound, provider: detail.item.provider, detail: "\(id) has no image"))
                }
                let bytes = try await ImageDownload.fetch(url, provider: detail.item.provider, transport: session.transport)
                if let output {
                    try ImageDownload.write(bytes, to: output)
                    session.context.err("Wrote \(bytes.count) bytes to \(output)")
                } else {
                    FileHandle.standardOutput.write(bytes)
                }
                return ExitStatus.success
            }
        }
    }
}

extension ImageSize: ExpressibleByArgument {}

/// Downloads image bytes and writes them safely.
enum ImageDownload {
    /// GETs `url`; a non-2xx status or a body that is not an image is an error.
    static func fetch(_ url: URL, provider: String, transport: any HTTPTransport) async throws -> Data {
        let client = ProviderClient(provider: provider, transport: transport, maxBodyBytes: 32 * 1024 * 1024)
        do {
            let response = try await client.get(url, headers: [("Accept", "image/*")])
            guard ImageSignature.isImage(response.body) else {
                throw SeekError(.undecodable, provider: provider, detail: "no image: the reply is not JPEG, PNG, GIF or WebP (\(Redaction.redact(url: url)))")
            }
            return response.body
        } catch let error as SeekError {
            if error.kind == .notFound {
                throw CLIError.failed(SeekError(.notFound, provider: provider, detail: "no image at \(Redaction.redact(url: url))"))
            }
            throw CLIError.failed(error)
        }
    }

    /// Writes through a temporary file and a rename, so a failure never leaves a partial file.
    static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw CLIError.failed(SeekError(.invalidInput, detail: "cannot write \(path): \(error.localizedDescription)"))
        }
    }
}

/// Recognises image bytes by their magic numbers.
public enum ImageSignature {
    public static func isImage(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(12))
        guard bytes.count >= 4 else { return false }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return true }                       // JPEG
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return true }                 // PNG
        if bytes.starts(with: Array("GIF8".utf8)) { return true }                        // GIF
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return true                                                                  // WebP
        }
        return false
    }
}
