import Foundation
import MCP
import SeekCore
import SeekKit
import SeekRuntime
import SeekStore

/// What each tool does: the CLI's operation on the session (the same shared steps, the same JSON
/// document), answered as structured content plus a short text summary. A bad argument or a call
/// no provider answered is a result with `isError: true`; nothing here ends the session.
struct ToolCalls: Sendable {
    let session: SeekSession
    /// Tools by name, for their argument lists.
    let tools: [String: Tool]
    /// Told what the user should know that is not a result (a history that cannot be written).
    let diagnostics: @Sendable (String) -> Void

    func call(_ name: String, arguments: [String: Value]?) async throws -> CallTool.Result {
        guard let tool = tools[name] else {
            throw MCPError.invalidParams("unknown tool '\(name)' (tools: \(tools.keys.sorted().joined(separator: ", ")))")
        }
        do {
            let arguments = try ToolArguments(arguments, accepted: ToolCatalog.argumentNames(of: tool), tool: name)
            switch name {
            case ToolCatalog.search: return try await search(arguments)
            case ToolCatalog.detail: return try await detail(arguments)
            case ToolCatalog.trending: return try await trending(arguments)
            case ToolCatalog.suggest: return try await suggest(arguments)
            case ToolCatalog.providers: return try await providers()
            case ToolCatalog.favoritesList: return try await favoritesList()
            case ToolCatalog.favoritesAdd: return try await favoritesAdd(arguments)
            case ToolCatalog.favoritesRemove: return try await favoritesRemove(arguments)
            default: throw MCPError.invalidParams("unknown tool '\(name)'")
            }
        } catch let error as MCPError {
            throw error
        } catch {
            return Self.failure(ToolFailure.from(error))
        }
    }

    // MARK: Tools

    /// `seek search QUERY --format json`: bangs, providers, limit, cursor and rank as the CLI takes them.
    private func search(_ arguments: ToolArguments) async throws -> CallTool.Result {
        let request = SearchQuery(
            query: try arguments.requiredString("query"), providers: try arguments.providers(), limit: try arguments.integer("limit"),
            cursor: try arguments.string("cursor"), ranking: try arguments.ranking(), explain: try arguments.flag("explain"),
            language: try arguments.string("language"), group: try arguments.grouping())
        let answer = try await session.search(request)
        try Self.requireAnswer(answer.verdict, counted: answer.counted)
        return try Self.success(SearchDocument(answer.result), text: TextSummaries.search(answer.result, includeQuery: true))
    }

    /// `seek detail ID --format json`.
    private func detail(_ arguments: ToolArguments) async throws -> CallTool.Result {
        let request = ItemQuery(try arguments.requiredString("id"))
        let id = try session.checked(request).id
        let answer: ProviderAnswer<ItemDetail>
        do {
            answer = try await session.detail(request).answer
        } catch {
            throw unavailable(SeekError.wrap(error, provider: id.provider))
        }
        switch answer.result {
        case .success(let detail):
            return try Self.success(DetailDocument(id: id, answer: answer), text: TextSummaries.detail(detail))
        case .failure(let error):
            throw unavailable(error)
        }
    }

    /// A detail that failed, told in words naming the provider; the cause (URL, status, body excerpt)
    /// goes to the diagnostics (stderr), not to the assistant.
    private func unavailable(_ error: SeekError) -> ToolFailure {
        diagnostics("detail failed: \(error.description)")
        return ToolFailure.failed(session.inWords(error))
    }

    /// `seek trending --format json`: the search document without a query.
    private func trending(_ arguments: ToolArguments) async throws -> CallTool.Result {
        let answer = try await session.trending(FanOutQuery(providers: try arguments.providers(), limit: try arguments.integer("limit")))
        let result = answer.result
        try Self.requireAnswer(answer.verdict, counted: answer.counted)
        return try Self.success(SearchDocument(result, includeQuery: false), text: TextSummaries.search(result, includeQuery: false))
    }

    /// `seek suggest PREFIX --format json`.
    private func suggest(_ arguments: ToolArguments) async throws -> CallTool.Result {
        let request = FanOutQuery(text: try arguments.requiredString("prefix"), providers: try arguments.providers())
        let (answer, _) = try await session.suggest(request)
        let document = SuggestDocument(prefix: answer.prefix, suggestions: answer.suggestions, outcomes: answer.outcomes)
        try Self.requireAnswer(answer.verdict, counted: answer.counted)
        return try Self.success(document, text: TextSummaries.suggest(document))
    }

    /// `seek providers --format json`.
    private func providers() async throws -> CallTool.Result {
        let documents = await session.providerDocuments()
        return try Self.success(["providers": documents], text: TextSummaries.providers(documents))
    }

    /// `seek favorites list --format json`.
    private func favoritesList() async throws -> CallTool.Result {
        try await favoritesResult(change: nil)
    }

    /// `seek favorites add ID`: a snapshot of the item's detail; adding it again changes nothing.
    private func favoritesAdd(_ arguments: ToolArguments) async throws -> CallTool.Result {
        let request = ItemQuery(try arguments.requiredString("id"))
        let id = try session.checked(request).id
        let addition: FavoriteAddition
        do {
            addition = try await session.addFavorite(request, owner: .instanceOwner)
        } catch let error as StoreError {
            throw ToolFailure.failed("user state: \(error)")
        } catch {
            throw ToolFailure.failed(SeekError.wrap(error, provider: id.provider).description + " (not added)")
        }
        let change = switch addition {
        case .added(let favorite): "Added \(id) (\(TextSummaries.clip(favorite.title, to: 60)))."
        case .present(let favorite): "\(id) is already a favourite (\(TextSummaries.clip(favorite.title, to: 60)))."
        }
        return try await favoritesResult(change: change)
    }

    /// `seek favorites remove ID`: removing what is not a favourite changes nothing and is no error.
    private func favoritesRemove(_ arguments: ToolArguments) async throws -> CallTool.Result {
        let text = try arguments.requiredString("id")
        let (id, removed) = try await userState { try await session.removeFavorite(text, owner: .instanceOwner) }
        return try await favoritesResult(change: removed ? "Removed \(id)." : "\(id) is not a favourite (nothing removed).")
    }

    // MARK: Shared steps

    /// The favourites as `{ "entries": [...] }`, with `change` leading the text.
    private func favoritesResult(change: String?) async throws -> CallTool.Result {
        let all = try await userState { try await session.favorites(of: .instanceOwner) }
        return try Self.success(EntriesDocument(entries: all.map(FavoriteDocument.init)), text: TextSummaries.favorites(all, change: change))
    }

    /// `body`'s value; a database failure is a tool failure that says so.
    private func userState<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as RequestError {
            throw error
        } catch {
            throw ToolFailure.failed("user state: \(error)")
        }
    }

    /// Fails when the session's verdict is that no provider answered (the CLI's exit 4), naming each
    /// provider that counted and its cause; some failing (exit 3) is a normal result whose document lists them.
    static func requireAnswer(_ verdict: CallVerdict, counted: [ProviderOutcome]) throws(ToolFailure) {
        guard verdict == .noneAnswered else { return }
        let causes = counted.map { "\($0.provider): \($0.status.rawValue): \($0.error?.cause ?? $0.status.rawValue)" }
        throw .failed("no provider answered: " + causes.joined(separator: "; "))
    }

    /// A result whose structured content is `document`, the very JSON the CLI prints.
    static func success(_ document: some JSONWritable, text: String) throws -> CallTool.Result {
        let value: Value? = try DocumentValue.of(document)
        return CallTool.Result(content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: value, isError: false)
    }

    static func failure(_ failure: ToolFailure) -> CallTool.Result {
        CallTool.Result(content: [.text(text: failure.message, annotations: nil, _meta: nil)], isError: true)
    }
}

/// A JSON document as an MCP value: the CLI's compact JSON text, decoded.
enum DocumentValue {
    static func of(_ document: some JSONWritable) throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(JSONText.compact(document).utf8))
    }
}
