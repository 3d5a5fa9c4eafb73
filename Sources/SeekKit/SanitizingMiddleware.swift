import Foundation
import SeekCore

/// The innermost call middleware (the composition root adds it last, next to the provider): every
/// answer and every error a provider call yields is made safe here, once, before the resilience
/// stats, the cache or any host prints, stores or serves it. Upstream text goes through
/// `UntrustedText`, and the keys of every configured provider are redacted from all of it: a key
/// one provider's upstream echoes is as secret as the calling provider's own.
public struct SanitizingMiddleware: ProviderMiddleware {
    /// The secrets to redact, of four characters or more (shorter ones would redact ordinary text).
    public let secrets: [String]
    /// The demo server's address (`http://127.0.0.1:PORT`), written `demo:` in errors, so that no
    /// host shows a loopback address a reader cannot open; nil outside demo mode.
    public let demoServer: String?

    public init(secrets: [String], demoServer: String? = nil) {
        self.secrets = Array(Set(secrets.filter { $0.count >= 4 })).sorted { $0.count > $1.count }
        self.demoServer = demoServer.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func handle(
        _ request: ProviderRequest, context: ProviderCallContext,
        next: @escaping @Sendable (ProviderRequest, ProviderCallContext) async throws -> ProviderResponse
    ) async throws -> ProviderResponse {
        let response: ProviderResponse
        do {
            response = try await next(request, context)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw clean(SeekError.wrap(error, provider: context.providerID))
        }
        return clean(response)
    }

    public func clean(_ response: ProviderResponse) -> ProviderResponse {
        switch response {
        case .page(let page): .page(clean(page))
        // A demo detail built from a search answer says so in its note, not in its description.
        case .detail(let detail): .detail(ProviderDemo.lifted(clean(detail)))
        case .suggestions(let suggestions): .suggestions(suggestions.map { line($0) })
        }
    }

    public func clean(_ error: SeekError) -> SeekError {
        var copy = error
        var detail = Redaction.redact(error.detail, secrets: secrets)
        if let demoServer, detail.contains(demoServer) { detail = detail.replacingOccurrences(of: demoServer, with: "demo:") }
        copy.detail = UntrustedText.line(detail)
        return copy
    }

    public func clean(_ page: SearchPage) -> SearchPage {
        var copy = page
        copy.items = page.items.map(clean)
        copy.next = page.next.map { line($0, limit: 1000) }
        copy.staleBecause = page.staleBecause.map(clean)
        return copy
    }

    public func clean(_ item: Item) -> Item {
        var copy = item
        copy.id = clean(item.id)
        copy.title = line(item.title)
        copy.subtitle = item.subtitle.map { line($0) }
        cleanLines(&copy.creators)
        cleanLines(&copy.identifiers.other.values)
        copy.images = clean(item.images)
        if let address = item.address, let redacted = redacted(address) { copy.address = redacted }
        return copy
    }

    // Collections are written to only where a value changes (copied on that first write): most
    // upstream text is already clean, and building a new array or dictionary for every item was half
    // of this middleware's time (issue 30).

    private func cleanLines<Texts: MutableCollection<String>>(_ texts: inout Texts) {
        for index in texts.indices {
            let cleaned = line(texts[index])
            if cleaned != texts[index] { texts[index] = cleaned }
        }
    }

    /// The images whose URLs hold no secret as they are, the others redacted (or dropped when
    /// redacting leaves no URL).
    private func clean(_ images: [ImageSize: ImageReference]) -> [ImageSize: ImageReference] {
        var changed: [ImageSize: ImageReference]?
        for (size, image) in images {
            guard let redacted = redacted(image.address) else { continue }
            if changed == nil { changed = images }
            changed?[size] = redacted.map { ImageReference(address: $0, size: image.size, width: image.width, height: image.height) }
        }
        return changed ?? images
    }

    public func clean(_ detail: ItemDetail) -> ItemDetail {
        var copy = detail
        copy.item = clean(detail.item)
        copy.description = detail.description.map { UntrustedText.paragraph(Redaction.redactSecrets($0, secrets: secrets)) }
        copy.contributors = detail.contributors.map { Contributor(name: line($0.name), role: $0.role.map { line($0) }) }
        copy.subjects = detail.subjects.map { line($0) }
        copy.publishers = detail.publishers.map { line($0) }
        copy.publishDate = detail.publishDate.map { line($0) }
        copy.attributes = Dictionary(
            detail.attributes.map { (line($0.key, limit: 60), line($0.value)) }, uniquingKeysWith: { first, _ in first })
        copy.redirect = detail.redirect.map { ItemRedirect(from: $0.from, to: clean($0.to)) }
        copy.note = detail.note.map { line($0) }
        return copy
    }

    /// An id from an upstream: its value as one clean line (an id with control characters is not a
    /// real one, and it is printed in tables).
    public func clean(_ id: ItemID) -> ItemID {
        let value = line(id.value, limit: 200)
        return value == id.value ? id : ItemID(provider: id.provider, value: value)
    }

    /// A URL with no secret in it, or nil when redacting leaves no URL.
    public func clean(_ url: URL) -> URL? {
        guard let redacted = redacted(URLText(url)) else { return url }
        return redacted?.url
    }

    /// nil when `address` holds no secret; else the URL with its secrets redacted, itself nil when
    /// that is no URL.
    private func redacted(_ address: URLText) -> URLText?? {
        let text = address.text
        let redacted = Redaction.redactSecrets(text, secrets: secrets)
        return redacted == text ? nil : .some(URLText(redacted))
    }

    private func line(_ text: String, limit: Int = UntrustedText.lineLimit) -> String {
        UntrustedText.line(Redaction.redactSecrets(text, secrets: secrets), limit: limit)
    }
}
