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
        let registry = session.registry
        let cache = try session.core.imageStore
        var unique: [String] = []
        for text in ids where !unique.contains(text) { unique.append(text) }
        let targets = try unique.map { try ImageTarget(parsing: $0, registry: registry) }
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
                    return (index, .success(try await target.fetch(session: session, cache: cache, size: size, timeout: timeout)))
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
        cache.flushStatistics()

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
            context.err("Wrote \(image.data.count) bytes to \(output)\(note)")
        } else {
            FileHandle.standardOutput.write(image.data)
        }
    }
}

extension ImageSize: ExpressibleByArgument {}

/// One thing to fetch: an item (its image URL comes from its provider's detail) or an image URL.
struct ImageTarget: Sendable {
    enum Kind: Sendable {
        case item(ItemID)
        case url(URL)
    }

    let text: String
    let kind: Kind
    /// The provider the image belongs to, for errors.
    let provider: String

    init(parsing text: String, registry: ProviderRegistry) throws {
        self.text = text
        if let url = Self.looksLikeURL(text) {
            guard let owner = ImageURLOwner.provider(for: url, in: registry) else {
                throw CLIError.usage("\(Redaction.redact(url: url)) is not an image URL of a configured provider (\(registry.ids.joined(separator: ", ")))")
            }
            kind = .url(url)
            provider = owner
        } else if let id = ItemID(parsing: text) {
            guard registry.provider(id.provider) != nil else {
                throw CLIError.usage("unknown provider '\(id.provider)' (known: \(registry.ids.joined(separator: ", ")))")
            }
            kind = .item(id)
            provider = id.provider
        } else {
            throw CLIError.usage("'\(text)' is neither a PROVIDER:ID item id nor an http(s) image URL")
        }
    }

    /// `text` as an absolute http(s) URL with a host, or nil.
    static func looksLikeURL(_ text: String) -> URL? {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
              let url = URL(string: text), url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// The image bytes, through the shared cache; an item's drawn cover says why the source's image was not used.
    func fetch(session: CommandContext, cache: any ImageStore, size: ImageSize, timeout: Double?) async throws -> ItemImage {
        switch kind {
        case .url(let url):
            return ItemImage(image: try await cache.image(at: url, provider: provider))
        case .item(let id):
            return try await session.core.itemImage(of: id, size: size, options: CallOptions(timeout: Duration(timeoutSeconds: timeout)))
        }
    }

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

/// Which configured provider an image URL belongs to: the same host (and port) as a provider's
/// endpoint, or a host under the same site (`covers.openlibrary.org` for `openlibrary.org`,
/// `media2.giphy.com` for `api.giphy.com`, `image.aladin.co.kr` for `www.aladin.co.kr`).
enum ImageURLOwner {
    static func provider(for url: URL, in registry: ProviderRegistry) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        var best: (id: String, score: Int)?
        for provider in registry.providers {
            guard let endpoint = URL(string: provider.endpoint), let base = endpoint.host?.lowercased() else { continue }
            var score = 0
            if host == base, url.port == endpoint.port {
                // The same server: prefer the provider whose endpoint path the URL is under.
                score = endpoint.path.count > 1 && url.path.hasPrefix(endpoint.path) ? 3 : 2
            } else if let site = site(of: base), host == site || host.hasSuffix("." + site) {
                score = 1
            }
            if score > (best?.score ?? 0) { best = (provider.descriptor.id, score) }
        }
        return best?.id
    }

    /// The registrable part of a DNS host (`api.giphy.com` → `giphy.com`, `www.aladin.co.kr` →
    /// `aladin.co.kr`); nil for IP addresses and single-label hosts, which must match exactly.
    static func site(of host: String) -> String? {
        let labels = host.split(separator: ".").map(String.init)
        guard labels.count >= 2, !labels.allSatisfy({ $0.allSatisfy(\.isNumber) }), !host.contains(":") else { return nil }
        let secondLevel: Set<String> = ["co", "com", "net", "org", "ac", "go", "or", "ne", "gov", "edu"]
        let suffixLength = labels.count >= 3 && labels[labels.count - 1].count == 2 && secondLevel.contains(labels[labels.count - 2]) ? 3 : 2
        guard labels.count >= suffixLength else { return nil }
        return labels.suffix(suffixLength).joined(separator: ".")
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
