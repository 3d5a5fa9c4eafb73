import ArgumentParser
import Foundation
import SeekCore
import SeekRuntime
import SeekStore

/// `seek db import-sqlite [PATH]`: the shared database's chores.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Work with the shared PostgreSQL database (SEEK_DATABASE_URL).",
        subcommands: [ImportSQLite.self])

    /// Copies an embedded database's favourites and history into the shared one.
    struct ImportSQLite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-sqlite",
            abstract: "Copy favourites and history from an embedded SQLite database into SEEK_DATABASE_URL.",
            discussion: "PATH defaults to seek.sqlite under SEEK_DATA_DIR. Running it again adds nothing twice: a favourite already there is kept as it is, and a query already in the history keeps its newer search.")

        @Argument(help: "The embedded database (seek.sqlite).")
        var path: String?

        func run() async throws {
            let path = self.path
            try await FavoritesCommand.withUserState { session in
                let report: ImportReport
                do {
                    report = try await session.core.importEmbedded(from: path)
                } catch let error as SeekError {
                    throw CLIError.configuration(error)
                }
                session.context.out(
                    "Imported \(report.favoritesAdded) of \(report.favoritesRead) favourites and \(report.searchesAdded) of "
                        + "\(report.searchesRead) searches from \(report.source) into \(report.destination) "
                        + "(the rest were there already).")
                return ExitStatus.success
            }
        }
    }
}
