import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekRuntime
import SeekStore

/// `seek favorites add|remove|toggle|list`: favourites kept across runs, listed without the network.
struct FavoritesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "favorites",
        abstract: "Keep favourite items: add, remove, toggle and list them (the list works offline).",
        discussion: "Adding stores a snapshot of the item from its provider's detail: title, creators, kind, image URL, provider and when it was added.",
        subcommands: [Add.self, Remove.self, Toggle.self, List.self])

    /// Runs `body` in a session, turning a user-state failure into `seek: …` and exit 1.
    static func withUserState(
        _ body: @escaping @Sendable (CommandContext) async throws -> Int32
    ) async throws {
        let code = try await CommandContext.with { session in
            do {
                return try await body(session)
            } catch let error as StoreError {
                throw UserStateFailure.exit(error, context: session.context)
            }
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }

    /// Adds `id` (already checked) to the owner's favourites: a user-state failure is thrown, a
    /// provider's is the outcome, naming the provider.
    static func add(_ id: ItemID, session: CommandContext, timeout: Double?) async throws -> Add.Outcome {
        do {
            switch try await session.core.addFavorite(
                ItemQuery(id.description, timeout: Duration(timeoutSeconds: timeout)), owner: .instanceOwner) {
            case .added(let favorite): return .added(favorite)
            case .present(let favorite): return .present(favorite)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            return .failed(SeekError.wrap(error, provider: id.provider).description)
        }
    }

    static func line(_ favorite: Favorite) -> String {
        let by = favorite.creators.isEmpty ? "" : " — " + favorite.creators.joined(separator: ", ")
        return "\(favorite.id)  \(favorite.title)\(by)"
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add items (PROVIDER:ID …); adding a favourite again changes nothing.")

        @Argument(help: "Item ids such as openlibrary:OL45804W.")
        var ids: [String]

        @Option(help: "Seconds each provider may take to answer.")
        var timeout: Double?

        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("give at least one PROVIDER:ID") }
            try TimeoutOption.validate(timeout)
        }

        func run() async throws {
            let texts = self.ids
            let timeout = self.timeout
            try await FavoritesCommand.withUserState { session in
                // Every id is checked before anything is fetched or stored.
                let ids = try texts.map { try session.core.itemID($0) }
                let outcomes = try await Self.add(ids, session: session, timeout: timeout)
                let context = session.context
                for (id, outcome) in zip(ids, outcomes) {
                    switch outcome {
                    case .added(let favorite): context.out("added " + FavoritesCommand.line(favorite))
                    case .present(let favorite): context.out("already a favorite: " + FavoritesCommand.line(favorite))
                    case .failed(let message): context.err("seek: \(id): \(message) (not added)")
                    }
                }
                let failed = outcomes.filter(\.isFailure).count
                if failed == 0 { return ExitStatus.success }
                return failed == outcomes.count ? ExitStatus.noneAnswered : ExitStatus.someFailed
            }
        }

        enum Outcome: Sendable {
            case added(Favorite), present(Favorite), failed(String)
            var isFailure: Bool { if case .failed = self { return true } else { return false } }
        }

        /// Adds each id (a few at a time), each in its own transaction as soon as its snapshot arrives.
        static func add(_ ids: [ItemID], session: CommandContext, timeout: Double?) async throws -> [Outcome] {
            try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
                var outcomes = [Outcome?](repeating: nil, count: ids.count)
                // A few at a time: one more starts as each one ends.
                var pending = Array(ids.enumerated()).reversed().map { $0 }
                @Sendable func add(_ index: Int, _ id: ItemID) async throws -> (Int, Outcome) {
                    (index, try await FavoritesCommand.add(id, session: session, timeout: timeout))
                }
                for _ in 0..<4 {
                    guard let (index, id) = pending.popLast() else { break }
                    group.addTask { try await add(index, id) }
                }
                while let (index, outcome) = try await group.next() {
                    if outcomes.indices.contains(index) { outcomes[index] = outcome }
                    if let (index, id) = pending.popLast() { group.addTask { try await add(index, id) } }
                }
                return outcomes.map { $0 ?? .failed("not attempted") }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove items (PROVIDER:ID …) from the favourites.")

        @Argument(help: "Item ids such as openlibrary:OL45804W.")
        var ids: [String]

        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("give at least one PROVIDER:ID") }
        }

        func run() async throws {
            let texts = self.ids
            try await FavoritesCommand.withUserState { session in
                for text in texts {
                    let (id, removed) = try await session.core.removeFavorite(text, owner: .instanceOwner)
                    if removed {
                        session.context.out("removed \(id)")
                    } else {
                        session.context.err("seek: \(id) is not a favorite (nothing to remove)")
                    }
                }
                return ExitStatus.success
            }
        }
    }

    struct Toggle: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "toggle",
            abstract: "Add an item if it is not a favourite, else remove it.")

        @Argument(help: "An item id such as openlibrary:OL45804W.")
        var id: String

        @Option(help: "Seconds the provider may take to answer (when adding).")
        var timeout: Double?

        func run() async throws {
            let text = self.id
            let timeout = self.timeout
            try await FavoritesCommand.withUserState { session in
                let id = try session.core.itemID(text)
                if try await session.core.removeFavorite(text, owner: .instanceOwner).removed {
                    session.context.out("removed \(id)")
                    return ExitStatus.success
                }
                switch try await FavoritesCommand.add(id, session: session, timeout: timeout) {
                case .added(let favorite), .present(let favorite):
                    session.context.out("added " + FavoritesCommand.line(favorite))
                    return ExitStatus.success
                case .failed(let message):
                    session.context.err("seek: \(message)")
                    return ExitStatus.noneAnswered
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the favourites, most recently added first.")

        @Option(help: "table or json.")
        var format: OutputFormat = .table

        func validate() throws {
            guard format == .table || format == .json else { throw ValidationError("favorites list prints table or json") }
        }

        func run() async throws {
            let format = self.format
            try await FavoritesCommand.withUserState { session in
                let favorites = try await session.core.favorites(of: .instanceOwner)
                if format == .json {
                    session.context.out(JSONText.pretty(EntriesDocument(entries: favorites.map(FavoriteDocument.init))))
                } else if favorites.isEmpty {
                    session.context.err("seek: no favorites yet (add one with `seek favorites add PROVIDER:ID`)")
                } else {
                    var table = Table([
                        .init("ID", width: 24), .init("TITLE", share: 3), .init("BY", share: 2),
                        .init("KIND", width: 5), .init("ADDED", width: 10),
                    ])
                    for favorite in favorites {
                        table.add([
                            favorite.id.description, favorite.title, favorite.creators.joined(separator: ", "),
                            favorite.kind.rawValue, UserStateText.day(favorite.addedAt),
                        ])
                    }
                    session.context.out(table.render())
                }
                return ExitStatus.success
            }
        }
    }
}

/// Dates as the user-state commands print them.
enum UserStateText {
    /// ISO 8601 in UTC, for JSON.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// The day (UTC), for tables.
    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }

    /// The local day and minute, for tables.
    static func minute(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
