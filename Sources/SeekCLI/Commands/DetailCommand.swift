import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekRuntime

struct DetailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detail", abstract: "Show the full record of one item (PROVIDER:ID).")

    @Argument(help: "An item id such as openlibrary:OL45804W.")
    var id: String

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    @Option(help: "Seconds the provider may take.")
    var timeout: Double?

    @Flag(help: "Use recorded real responses served on loopback: no network, no keys.")
    var demo = false

    @Flag(help: "Ask the provider even when a cached detail is fresh (the fresh answer is still cached).")
    var noCache = false

    /// The item and what its provider call carries.
    var request: ItemQuery {
        ItemQuery(id, noCache: noCache, timeout: Duration(timeoutSeconds: timeout))
    }

    func validate() throws {
        guard format == .table || format == .json else { throw ValidationError("detail prints table or json") }
        try TimeoutOption.validate(timeout)
    }

    /// Prints the record; when the provider fails, `--format json` still prints a document (`DetailDocument`)
    /// before the stderr line and exit 4.
    func run() async throws {
        try await CommandContext.with(demo: demo) { session in
            let id = try session.core.checked(request).id
            let answer: ProviderAnswer<ItemDetail>
            do {
                answer = try await session.core.detail(request).answer
            } catch {
                let failure = SeekError.wrap(error, provider: id.provider)
                throw CLIError.unavailable(words: session.core.inWords(failure), cause: failure)
            }
            if format == .json { session.context.out(JSONText.pretty(DetailDocument(id: id, answer: answer))) }
            switch answer.result {
            case .success(let detail):
                if format == .table { session.context.out(DetailText.render(detail)) }
                return ExitStatus.success
            case .failure(let error):
                throw CLIError.unavailable(words: session.core.inWords(error), cause: error)
            }
        }
    }
}

/// The human-readable form of a detail record.
enum DetailText {
    static func render(_ detail: ItemDetail) -> String {
        let item = detail.item
        var fields: [(name: String, value: String)] = []
        func field(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            fields.append((name, value))
        }
        field("Note", detail.note)
        field("ID", item.id.description)
        field("Kind", item.kind.rawValue)
        if detail.contributors.isEmpty {
            field("By", item.creators.joined(separator: ", "))
        } else {
            field("By", detail.contributors.map { person in person.role.map { "\(person.name) (\($0))" } ?? person.name }.joined(separator: ", "))
        }
        field("Year", item.year.map(String.init))
        field("Published", detail.publishDate)
        field("Publishers", detail.publishers.joined(separator: ", "))
        field("Pages", detail.pageCount.map(String.init))
        field("ISBN-13", item.identifiers.isbn13.joined(separator: ", "))
        field("ISBN-10", item.identifiers.isbn10.joined(separator: ", "))
        field("Subjects", detail.subjects.prefix(8).joined(separator: ", "))
        for key in detail.attributes.keys.sorted() { field(key, detail.attributes[key]) }
        field("Image", item.image(.large)?.address.text)
        field("URL", item.address?.text)
        // Labels line up on the longest one, so provider attribute names are never cut.
        let labelWidth = fields.map(\.name.count).max() ?? 0
        // Every value one line, the description's lines indented: no upstream text stands as a line of its own.
        var lines = [UntrustedText.line(item.subtitle.map { "\(item.title): \($0)" } ?? item.title, limit: .max)]
        lines += fields.map {
            "\($0.name.padding(toLength: labelWidth, withPad: " ", startingAt: 0))  \(UntrustedText.line($0.value, limit: .max))"
        }
        if let description = detail.description, !description.isEmpty {
            lines.append("")
            lines += UntrustedText.paragraph(description, limit: .max).split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }
}
