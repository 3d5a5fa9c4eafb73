import Foundation

extension SeekError {
    /// What happened, in words a reader understands, naming the provider by its display name
    /// (`descriptor`; "The provider" when none is known): "Open Library no longer has this book."
    ///
    /// Never the URL, the status line or the upstream's body: those are `description`, for the log.
    /// Input errors are about what the reader typed, so they keep their own `detail`.
    public func inWords(_ descriptor: ProviderDescriptor?) -> String {
        let name = descriptor?.name ?? "The provider"
        switch kind {
        case .notFound:
            return "\(name) no longer has this \(Self.noun(for: descriptor))."
        case .rateLimited:
            let when = kind.retryAfterSeconds.map { "in \(Self.secondsInWords(max(1, $0.rounded(.up))))" } ?? "in a minute"
            return "\(name) is receiving too many requests from Seek just now. Try again \(when)."
        case .suspended:
            let until = kind.until.map { "until \(Self.timestamp($0)). Try again then." } ?? "for a while. Try again later."
            return "\(name) failed several times in a row, so Seek is not asking it \(until)"
        case .timeout:
            return "\(name) took too long to answer. Try again in a moment."
        case .network:
            return "\(name) could not be reached. Check the network connection, or try again later."
        case .httpStatus where (kind.statusCode ?? 0) >= 500:
            return "\(name) had a problem of its own and could not answer. Try again later."
        case .httpStatus, .undecodable, .bodyTooLarge:
            return "\(name) sent an answer Seek could not read. Try again later."
        case .unauthorized:
            return "\(name) refused Seek's API key."
        case .missingKey:
            guard let variable = kind.variable else { return "\(name) needs a setting that is not set." }
            // Not every missing setting is a key: the Calibre library is a folder (SEEK_CALIBRE_LIBRARY).
            let isKey = ["KEY", "TOKEN", "SECRET"].contains { variable.contains($0) }
            return isKey ? "\(name) needs an API key: set \(variable)." : "\(name) needs a setting: set \(variable)."
        case .unsupported:
            return kind.capability.map { "\(name) does not offer \($0)." } ?? "\(name) does not offer this."
        case .invalidInput:
            return detail.isEmpty ? "That request is not valid." : detail
        case .cancelled:
            return "The request was cancelled."
        default:  // .configuration, .notRegistered
            return "Seek is not set up correctly; its log says more."
        }
    }

    /// What a provider's items are called: "book", "GIF", else "item".
    static func noun(for descriptor: ProviderDescriptor?) -> String {
        switch descriptor?.kinds {
        case [.book]?: return "book"
        case [.gif]?: return "GIF"
        default: return "item"
        }
    }
}
