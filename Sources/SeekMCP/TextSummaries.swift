import Foundation
import SeekCore
import SeekRuntime
import SeekStore

/// The short text beside each tool's structured content: what a model reads first, so it is kept
/// small (a 20-item search stays under 2,500 characters) while the document carries every field.
/// Lengths count Unicode scalars, which is what most clients count as characters.
enum TextSummaries {
    /// Longest title and creators shown on a result line, and the whole line.
    static let titleLimit = 48
    static let creatorsLimit = 28
    static let lineLimit = 100
    /// A search summary shows at most this many result lines.
    static let maxLines = 50
    /// A search summary's cursor is shown only while the text stays within this budget.
    static let budget = 2_400

    static func search(_ result: SearchResult, includeQuery: Bool) -> String {
        let label = includeQuery ? "Search \"\(clip(result.query, to: 60))\"" : "Trending"
        let count = result.results.count
        var lines = ["\(label): \(count) result\(count == 1 ? "" : "s")\(result.page > 1 ? " (page \(result.page))" : "")."]
        lines.append(clip("Providers: " + outcomes(result.outcomes) + ".", to: 280))
        for (index, merged) in result.results.prefix(maxLines).enumerated() {
            lines.append(line(merged, number: index + 1))
        }
        if count > maxLines {
            lines.append("… \(count - maxLines) more in the structured result.")
        }
        if let next = result.next?.token {
            let offer = "More: call search again with the same query and cursor \"\(next)\"."
            let length = lines.reduce(0) { $0 + $1.unicodeScalars.count + 1 }
            lines.append(length + offer.unicodeScalars.count <= budget ? offer : "More: pass the structured result's `next` as cursor.")
        }
        return lines.joined(separator: "\n")
    }

    /// `7. Title — Creator, Creator (1954) · provider:id [2 sources]`: the id is never cut; the title
    /// and creators shrink so the line stays within `lineLimit`.
    static func line(_ merged: MergedResult, number: Int) -> String {
        let item = merged.item
        let year = item.year.map { " (\($0))" } ?? ""
        let sources = merged.sources.count > 1 ? " [\(merged.sources.count) sources]" : ""
        // The reader's own copy (issue 49), with its formats: "owned EPUB,PDF".
        let owned = item.owned.map { " · owned" + ($0.formats.isEmpty ? "" : " " + clip($0.formats.joined(separator: ","), to: 20)) } ?? ""
        let fixed = "\(number). " + year + " · " + item.id.description + sources + owned
        var room = max(12, lineLimit - fixed.unicodeScalars.count)
        let title = clip(item.title, to: min(titleLimit, room))
        room -= title.unicodeScalars.count
        let creators = item.creators.isEmpty || room < 8 ? "" : " — " + clip(byline(item.creators), to: min(creatorsLimit, room - 3))
        return "\(number). \(title)\(creators)\(year) · \(item.id)\(sources)\(owned)"
    }

    static func detail(_ detail: ItemDetail) -> String {
        let item = detail.item
        let names = item.creators.isEmpty ? detail.contributors.map(\.name) : item.creators
        var lines = [clip(item.subtitle.map { "\(item.title): \($0)" } ?? item.title, to: 160)
            + (names.isEmpty ? "" : " — " + clip(byline(names), to: 80))
            + (item.year.map { " (\($0))" } ?? "")]
        var facts = ["\(item.id)", item.kind.rawValue]
        if let owned = item.owned { facts.append("owned" + (owned.formats.isEmpty ? "" : " (\(clip(owned.formats.joined(separator: ", "), to: 40)))")) }
        if !detail.publishers.isEmpty { facts.append(clip(detail.publishers.joined(separator: ", "), to: 60)) }
        if let date = detail.publishDate { facts.append(clip(date, to: 30)) }
        if let pages = detail.pageCount { facts.append("\(pages) pages") }
        if let isbn = item.identifiers.isbn13.first { facts.append("ISBN \(isbn)") }
        lines.append(facts.joined(separator: " · "))
        if !detail.subjects.isEmpty { lines.append("Subjects: " + clip(detail.subjects.prefix(8).joined(separator: ", "), to: 160)) }
        if let description = detail.description, !description.isEmpty { lines.append(clip(description, to: 600)) }
        if let address = item.address { lines.append(address.text) }
        return lines.joined(separator: "\n")
    }

    static func suggest(_ document: SuggestDocument) -> String {
        let head = document.suggestions.isEmpty
            ? "No suggestions for \"\(clip(document.prefix, to: 80))\""
            : "\(document.suggestions.count) suggestion\(document.suggestions.count == 1 ? "" : "s") for \"\(clip(document.prefix, to: 80))\""
        var lines = [head + " (" + outcomes(document.outcomes) + ")."]
        lines += document.suggestions.prefix(maxLines).map { "- " + clip($0, to: 100) }
        return lines.joined(separator: "\n")
    }

    static func providers(_ documents: [ProviderDocument]) -> String {
        documents.map { provider in
            var line = "\(provider.id) (\(provider.kinds.joined(separator: ", ")); \(provider.capabilities.joined(separator: ", ")))"
            line += ": " + provider.status
            if !provider.missing.isEmpty { line += " (set " + provider.missing.joined(separator: " and ") + ")" }
            if let until = provider.suspendedUntil { line += " until \(until)" + (provider.suspendedReason.map { " (\(clip($0, to: 80)))" } ?? "") }
            return line
        }.joined(separator: "\n")
    }

    /// The favourites after a change (`change` says which), or as they are.
    static func favorites(_ favorites: [Favorite], change: String? = nil) -> String {
        var lines: [String] = change.map { [$0] } ?? []
        lines.append(favorites.isEmpty ? "No favourites." : "\(favorites.count) favourite\(favorites.count == 1 ? "" : "s"):")
        lines += favorites.prefix(maxLines).map { favorite in
            let by = favorite.creators.isEmpty ? "" : " — " + clip(byline(favorite.creators), to: creatorsLimit)
            return "- \(favorite.id)  \(clip(favorite.title, to: titleLimit))\(by)"
        }
        if favorites.count > maxLines { lines.append("… \(favorites.count - maxLines) more in the structured result.") }
        return lines.joined(separator: "\n")
    }

    static func history(_ entries: [SearchHistoryEntry]) -> String {
        guard !entries.isEmpty else { return "No searches recorded." }
        return entries.map { "- \"\(clip($0.query, to: 80))\" (\($0.providers.joined(separator: ", ")))" }.joined(separator: "\n")
    }

    /// `openlibrary ok 20, giphy skipped (no API key …)`: each provider's status, with the cause of a failure.
    static func outcomes(_ outcomes: [ProviderOutcome]) -> String {
        guard !outcomes.isEmpty else { return "none asked" }
        return outcomes.map { outcome in
            var text = "\(outcome.provider) \(outcome.status.rawValue)"
            if outcome.status == .ok { text += " \(outcome.count)" }
            if let error = outcome.error, !outcome.status.answered { text += " (\(clip(error.cause, to: 60)))" }
            if outcome.stale { text += " (cached)" }
            return text
        }.joined(separator: ", ")
    }

    /// The first two names, then "et al.".
    static func byline(_ names: [String]) -> String {
        names.count > 2 ? names.prefix(2).joined(separator: ", ") + " et al." : names.joined(separator: ", ")
    }

    /// `text` on one line, cut to at most `limit` scalars (an ellipsis marks the cut); whole
    /// characters only, so no accent or Hangul jamo is split from its letter.
    static func clip(_ text: String, to limit: Int) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard flat.unicodeScalars.count > limit else { return flat }
        var kept = ""
        var used = 0
        for character in flat {
            let size = character.unicodeScalars.count
            guard used + size <= limit - 1 else { break }
            kept.append(character)
            used += size
        }
        return kept.trimmingSuffixSpaces() + "…"
    }
}

extension String {
    /// Without trailing spaces, so a cut never leaves "word …".
    fileprivate func trimmingSuffixSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
