import ArgumentParser
import Foundation
import SeekCore
import SeekKit
import SeekSession
import SeekStore

/// `seek favorites add|remove|toggle|list`: favourites kept across runs, listed without the network.
struct FavoritesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "favorites",
        abstract: "Keep favourite items: add, remove, toggle and list them (the list works offline).",
        discussion: "Adding stores a snapshot of the item from its provider's detail: title, creators, kind, image URL, provider and when it was added.",
        subcommands: [Add.self, Remove.self, Toggle.self, List.self])

    /// Item ids given on the command line, checked before anything is fetched or stored.
    static func parse(_ texts: [String]) throws -> [ItemID] {
        try texts.map { text in
            guard let id = ItemID(parsing: text) else { throw ValidationError("'\(text)' is not a PROVIDER:ID item id") }
            return id
        }
    }

    /// Runs `body` in a session, turning a user-state failure into `seek: …` and exit 1.
    static func withUserState(
        _ body: @escaping @Sendable (Session, UserState) async throws -> Int32
    ) async throws {
        let code = try await Session.with { session in
            let state = session.userState
            do {
                return try await body(session, state)
            } catch let error as StoreError {
                throw UserStateFailure.exit(error, context: session.context)
            }
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }

    /// The snapshot of `id` from its provider's detail; failures are `CLIError`s naming the provider.
    static func snapshot(_ id: ItemID, session: Session, timeout: Double?) async throws -> Favorite {
        guard session.registry.provider(id.provider) != nil else {
            throw CLIError.usage("unknown provider '\(id.provider)' (known: \(session.registry.ids.joined(separator: ", ")))")
        }
        do {
            return try await session.core.favoriteSnapshot(of: id, options: CallOptions(timeout: Duration(timeoutSeconds: timeout)))
        } catch {
            throw CLIError.failed(SeekError.wrap(error, provider: id.provider))
        }
    }


    /// Unknown providers are a usage error before anything is fetched or stored.
    static func checkProviders(_ ids: [ItemID], session: Session) throws {
        let registry = session.registry
        for id in ids where registry.provider(id.provider) == nil {
            throw CLIError.usage("unknown provider '\(id.provider)' (known: \(registry.ids.joined(separator: ", ")))")
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
            _ = try FavoritesCommand.parse(ids)
            if let timeout, !(timeout > 0 && timeout <= 3600) {
                throw ValidationError("--timeout must be between 0 and 3600 seconds")
            }
        }

        func run() async throws {
            let ids = try FavoritesCommand.parse(self.ids)
            let timeout = self.timeout
            try await FavoritesCommand.withUserState { session, state in
                try FavoritesCommand.checkProviders(ids, session: session)
                let outcomes = try await Self.add(ids, session: session, state: state, timeout: timeout)
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
        static func add(_ ids: [ItemID], session: Session, state: UserState, timeout: Double?) async throws -> [Outcome] {
            let favorites = state.favorites
            return try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
                var outcomes = [Outcome?](repeating: nil, count: ids.count)
                // A few at a time: one more starts as each one ends.
                var pending = Array(ids.enumerated()).reversed().map { $0 }
                @Sendable func add(_ index: Int, _ id: ItemID) async throws -> (Int, Outcome) {
                    if let present = try await favorites.favorite(id) { return (index, .present(present)) }
                    let favorite: Favorite
                    do {
                        favorite = try await FavoritesCommand.snapshot(id, session: session, timeout: timeout)
                    } catch let error as CLIError {
                        return (index, .failed(error.message))
                    }
                    guard try await favorites.add(favorite) else {
                        return (index, .present(try await favorites.favorite(id) ?? favorite))
                    }
                    return (index, .added(favorite))
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
            _ = try FavoritesCommand.parse(ids)
        }

        func run() async throws {
            let ids = try FavoritesCommand.parse(self.ids)
            try await FavoritesCommand.withUserState { session, state in
                for id in ids {
                    if try await state.favorites.remove(id) {
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

        func validate() throws {
            _ = try FavoritesCommand.parse([id])
        }

        func run() async throws {
            guard let id = ItemID(parsing: self.id) else { throw ValidationError("'\(self.id)' is not a PROVIDER:ID item id") }
            let timeout = self.timeout
            try await FavoritesCommand.withUserState { session, state in
                var added: Favorite?
                let isFavorite = try await state.favorites.toggle(id) {
                    try FavoritesCommand.checkProviders([id], session: session)
                    let favorite = try await FavoritesCommand.snapshot(id, session: session, timeout: timeout)
                    added = favorite
                    return favorite
                }
                if isFavorite, let added {
                    session.context.out("added " + FavoritesCommand.line(added))
                } else {
                    session.context.out("removed \(id)")
                }
                return ExitStatus.success
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
            try await FavoritesCommand.withUserState { session, state in
                let favorites = try await state.favorites.all()
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
