import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekImageCache
import SeekRuntime

struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Fetch items' images through the shared cache and write them to files (or stdout).",
        discussion: """
        Takes item ids (openlibrary:OL45804W) or image URLs of configured providers, fetches them at once \
        through the image cache (memory, then disk, then the network) and writes one file per image: \
        -o FILE for a single image, -d DIR for several (named after the id, with the extension of the \
        image's real format). An item without an image, or whose image cannot be had, gets the cover Seek \
        draws (SVG); stderr then names the source and why its image was not used. \
        Exit code: 0 all written, 3 some failed, 4 none.
        """)

    @Argument(help: "Item ids such as openlibrary:OL45804W, or image URLs of configured providers.")
    var ids: [String]

    @Option(help: "small, medium, large or original.")
    var size: ImageSize = .large

    @Option(name: .shortAndLong, help: "Write the one image here (default: stdout when it is not a terminal).")
    var output: String?

    @Option(name: [.customShort("d"), .customLong("directory")], help: "Write every image into this folder, named after its id.")
    var directory: String?

    @Option(help: "Seconds each provider may take for an item's detail.")
    var timeout: Double?

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    var demo = false

    /// How many images are fetched at once.
    static let parallelism = 6

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("give at least one item id or image URL") }
        for text in ids where ImageTarget.looksLikeURL(text) == nil && ItemID(parsing: text) == nil {
            throw ValidationError("'\(text)' is neither a PROVIDER:ID item id nor an http(s) image URL")
        }
        if output != nil, directory != nil { throw ValidationError("use either -o FILE or -d DIR, not both") }
        if Set(ids).count > 1, directory == nil {
            throw ValidationError("several images need -d DIR (-o FILE takes one)")
        }
        if output == nil, directory == nil, isatty(STDOUT_FILENO) == 1 {
            throw ValidationError("refusing to write image bytes to a terminal: use -o FILE or -d DIR")
        }
        try TimeoutOption.validate(timeout)
    }

    func run() async throws {
        let code = try await CommandContext.with(demo: demo) { session in
            try await fetchAll(session)
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }

    private func fetchAll(_ session: CommandContext) async throws -> Int32 {
        try session.core.openImageCache()
        var unique: [String] = []
        for text in ids where !unique.contains(text) { unique.append(text) }
        // Every target is checked before anything is fetched.
        let targets = try unique.map { try session.core.imageTarget($0) }
        if let directory {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw CLIError.usage("cannot create the folder \(directory): \(error.localizedDescription)")
            }
        }
        var progress = ImageProgress(total: targets.count, context: session.context)
        let size = self.size, timeout = self.timeout
        let results = await withTaskGroup(of: (Int, Result<ItemImage, SeekError>).self) { group in
            var results = [Result<ItemImage, SeekError>?](repeating: nil, count: targets.count)
            // At most `parallelism` downloads at once: one more starts as each one ends.
            var pending = Array(targets.enumerated()).reversed().map { $0 }
            func fetch(_ index: Int, _ target: ImageTarget) async -> (Int, Result<ItemImage, SeekError>) {
                do {
                    let options = CallOptions(timeout: Duration(timeoutSeconds: timeout))
                    return (index, .success(try await session.core.image(of: target, size: size, options: options)))
                } catch {
                    return (index, .failure(ImageTarget.seekError(error, provider: target.provider)))
                }
            }
            for _ in 0..<Self.parallelism {
                guard let (index, target) = pending.popLast() else { break }
                group.addTask { await fetch(index, target) }
            }
            for await (index, result) in group {
                if results.indices.contains(index) { results[index] = result }
                progress.advance(failed: (try? result.get()) == nil)
                if let (index, target) = pending.popLast() {
                    group.addTask { await fetch(index, target) }
                }
            }
            return results
        }
        progress.finish()
        session.core.flushImageStatistics()

        var names = FileNames()
        var written = 0
        for (target, result) in zip(targets, results) {
            switch result {
            case .success(let image)?:
                // The source's image could not be had: say why (source and cause), then write the drawn cover.
                if let unused = image.unused { session.context.err("seek: " + unused.description) }
                do {
                    try write(image.image, drawnInstead: image.unused != nil, for: target, names: &names, context: session.context)
                    written += 1
                } catch let error as CLIError {
                    session.context.err("seek: " + error.message)
                }
            case .failure(let error)?:
                session.context.err("seek: " + error.description)
            case nil:
                session.context.err("seek: \(target.text): cancelled")
            }
        }
        if written == targets.count { return ExitStatus.success }
        return written > 0 ? ExitStatus.someFailed : ExitStatus.noneAnswered
    }

    /// Writes one image to `-o FILE`, into `-d DIR`, or to stdout.
    private func write(_ image: CachedImage, drawnInstead: Bool, for target: ImageTarget, names: inout FileNames, context: CLIContext) throws {
        let note = switch image.origin {
        case .network: ""
        case .generated where drawnInstead: " (a cover drawn by Seek in place of the source's image)"
        case .generated: " (a cover drawn by Seek: the source has no image)"
        case .memory, .disk: " (from the \(image.origin.rawValue) cache)"
        }
        if let directory {
            let name = names.unique(target.fileStem, extension: image.format.fileExtension)
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            try ImageDownload.write(image.data, to: path)
            context.err("Wrote \(image.data.count) bytes to \(path)\(note)")
        } else if let output {
            try ImageDownload.write(image.data, to: output)
            context.err("Wrote \(image.data.count) bytes to \(output)\(note)\(Self.formatMismatch(output, format: image.format))")
        } else {
            FileHandle.standardOutput.write(image.data)
        }
    }
}

extension ImageCommand {
    /// What to say when `-o`'s extension names another image format than the bytes are in (`-o cover.jpg`
    /// for a PNG, or for the cover Seek draws, which is SVG): the bytes are written as they are, never
    /// converted, so the reader learns which extension opens them. Empty when they agree or the name
    /// claims no image format.
    static func formatMismatch(_ path: String, format: ImageFormat) -> String {
        let named = URL(fileURLWithPath: path).pathExtension.lowercased()
        let claims: [String: ImageFormat] = ["jpg": .jpeg, "jpeg": .jpeg, "png": .png, "gif": .gif, "webp": .webp, "svg": .svg]
        guard let claimed = claims[named], claimed != format else { return "" }
        return "; note: the image is \(format.rawValue.uppercased()), not what .\(named) says: save it as .\(format.fileExtension) to open it"
    }
}

extension ImageSize: ExpressibleByArgument {}

/// What `seek image` adds to the session's `ImageTarget`: the file a target is written to, and its
/// failure as the line stderr shows.
extension ImageTarget {
    /// A file name without extension: `openlibrary-OL45804W`, or the provider and the URL's last segment.
    var fileStem: String {
        switch kind {
        case .item(let id):
            return FileNames.sanitize("\(id.provider)-\(id.value)")
        case .url(let url):
            let stem = url.deletingPathExtension().lastPathComponent
            return FileNames.sanitize(stem.isEmpty || stem == "/" ? provider + "-image" : "\(provider)-\(stem)")
        }
    }

    /// Any failure as a `SeekError` naming the provider.
    static func seekError(_ error: any Error, provider: String) -> SeekError {
        if let cli = error as? CLIError {
            switch cli {
            case .failed(let seek), .configuration(let seek), .unavailable(_, let seek): return seek.attributed(to: provider)
            case .usage(let text): return SeekError(.invalidInput, provider: provider, detail: text)
            case .hostUnavailable(let text): return SeekError(.configuration, provider: provider, detail: text)
            }
        }
        return SeekError.wrap(error, provider: provider)
    }
}

/// Unique, safe file names within one `-d DIR` run.
struct FileNames {
    private var used: Set<String> = []

    mutating func unique(_ stem: String, extension ext: String) -> String {
        var name = "\(stem).\(ext)"
        var counter = 2
        while used.contains(name) {
            name = "\(stem)-\(counter).\(ext)"
            counter += 1
        }
        used.insert(name)
        return name
    }

    /// Letters, digits, `.`, `-` and `_` kept; anything else becomes `_`; no leading dot.
    static func sanitize(_ text: String) -> String {
        var result = String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "_" })
        while result.hasPrefix(".") { result.removeFirst() }
        return result.isEmpty ? "image" : String(result.prefix(120))
    }
}

/// A progress line on stderr while images arrive, only when stderr is a terminal.
struct ImageProgress {
    let total: Int
    let context: CLIContext
    private var done = 0
    private var failed = 0

    init(total: Int, context: CLIContext) {
        self.total = total
        self.context = context
    }

    mutating func advance(failed didFail: Bool) {
        done += 1
        if didFail { failed += 1 }
        guard context.isTerminal else { return }
        let failedText = failed > 0 ? ", \(failed) failed" : ""
        context.stderr.write("\r\u{1B}[2Kseek: images \(done)/\(total)\(failedText)")
    }

    /// Clears the progress line.
    func finish() {
        guard context.isTerminal else { return }
        context.stderr.write("\r\u{1B}[2K")
    }
}

/// Writes image files safely.
enum ImageDownload {
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
