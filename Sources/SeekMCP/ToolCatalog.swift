import MCP
import SeekCore
import SeekRuntime

/// The tools `seek mcp` offers (DESIGN's names, a contract), each with its input schema, the schema
/// of its structured content (the CLI's JSON document, from openapi.yaml: `OutputSchemas`) and what
/// it does to the world.
enum ToolCatalog {
    static let search = "search"
    static let detail = "detail"
    static let trending = "trending"
    static let suggest = "suggest"
    static let providers = "providers"
    static let favoritesList = "favorites_list"
    static let favoritesAdd = "favorites_add"
    static let favoritesRemove = "favorites_remove"

    /// Every tool; `providerIDs` (the session's registry) are the allowed values of `providers`.
    static func tools(providerIDs: [String]) -> [Tool] {
        let providerList: Value = [
            "type": "array",
            "items": ["type": "string", "enum": .array(providerIDs.map(Value.string))],
            "uniqueItems": true,
            "minItems": 1,
            "description": "Provider ids to ask (default: SEEK_PROVIDERS or the config's defaultProviders, else all).",
        ]
        let limit: Value = [
            "type": "integer", "minimum": .int(SeekSession.resultLimits.lowerBound),
            "maximum": .int(SeekSession.resultLimits.upperBound), "default": .int(SeekSession.defaultLimit),
            "description": "Results per provider.",
        ]
        let itemID: Value = [
            "type": "string", "minLength": 3,
            "description": "An item id PROVIDER:ID as search results give it, e.g. openlibrary:OL45804W.",
        ]
        return [
            Tool(
                name: search, title: "Search",
                description: """
                    Search the selected providers at once (books: Open Library, Aladin; GIFs: GIPHY) and get one \
                    merged, ranked list: the same book from two sources is one item with two `sources`. A provider \
                    that fails is listed with its status; the search is recorded in the history. Bangs in the \
                    query choose providers (`!ol harbor`). Pass `next` back as `cursor` for the next page.
                    """,
                inputSchema: object([
                    "query": ["type": "string", "minLength": 1, "description": "What to search for."],
                    "providers": providerList,
                    "limit": limit,
                    "cursor": ["type": "string", "minLength": 1, "description": "The `next` of an earlier search with the same query: its next page, without repeats."],
                    "language": ["type": "string", "description": "Prefer results in this language (ISO 639-1, such as en); providers that cannot filter ignore it."],
                    "rank": [
                        "type": "string", "enum": .array(RankingMethod.allCases.map { .string($0.rawValue) }), "default": "searxng",
                        "description": "searxng (|P| × Πw × Σ 1/p) or rrf (reciprocal rank fusion).",
                    ],
                    "group": [
                        "type": "string", "enum": .array(ResultGrouping.allCases.map { .string($0.rawValue) }), "default": "work",
                        "description": "work: a work's editions are one item, listing their ISBNs; edition: records with different ISBN-13s stay apart.",
                    ],
                    "explain": [
                        "type": "boolean", "default": false,
                        "description": "Each source after an item's first says which key joined it (`joinedBy`: an ISBN, a DOI, or title and creator).",
                    ],
                ], required: ["query"]),
                annotations: .init(title: "Search", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.schema(forTool: search)),
            Tool(
                name: detail, title: "Item detail",
                description: "The full record of one item from its provider: description, contributors, subjects, publishers, identifiers, images.",
                inputSchema: object(["id": itemID], required: ["id"]),
                annotations: .init(title: "Item detail", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.schema(forTool: detail)),
            Tool(
                name: trending, title: "Trending",
                description: "What is popular now at the selected providers (GIPHY's trending GIFs, Aladin's bestsellers), merged like a search.",
                inputSchema: object(["providers": providerList, "limit": limit], required: []),
                annotations: .init(title: "Trending", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.schema(forTool: trending)),
            Tool(
                name: suggest, title: "Suggest",
                description: "Search suggestions for the start of a query, from the providers that offer them.",
                inputSchema: object([
                    "prefix": ["type": "string", "minLength": 1, "description": "The start of a query."],
                    "providers": providerList,
                ], required: ["prefix"]),
                annotations: .init(title: "Suggest", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.schema(forTool: suggest)),
            Tool(
                name: providers, title: "Providers",
                description: "The providers: id, kinds, capabilities, whether configured (API key), status and cool-down. Asks no provider.",
                inputSchema: object([:], required: []),
                annotations: .init(title: "Providers", readOnlyHint: true, idempotentHint: true, openWorldHint: false),
                outputSchema: OutputSchemas.schema(forTool: providers)),
            Tool(
                name: favoritesList, title: "List favourites",
                description: "The favourites, most recently added first (stored snapshots: works offline).",
                inputSchema: object([:], required: []),
                annotations: .init(title: "List favourites", readOnlyHint: true, idempotentHint: true, openWorldHint: false),
                outputSchema: OutputSchemas.schema(forTool: favoritesList)),
            Tool(
                name: favoritesAdd, title: "Add a favourite",
                description: "Add an item to the favourites, storing a snapshot of its provider's detail; adding it again changes nothing. Returns the favourites after the change.",
                inputSchema: object(["id": itemID], required: ["id"]),
                annotations: .init(title: "Add a favourite", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.schema(forTool: favoritesAdd)),
            Tool(
                name: favoritesRemove, title: "Remove a favourite",
                description: "Remove an item from the favourites (nothing happens when it is not one). Returns the favourites after the change.",
                inputSchema: object(["id": itemID], required: ["id"]),
                annotations: .init(title: "Remove a favourite", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false),
                outputSchema: OutputSchemas.schema(forTool: favoritesRemove)),
        ]
    }

    /// The argument names `tool`'s input schema lists.
    static func argumentNames(of tool: Tool) -> [String] {
        (tool.inputSchema.objectValue?["properties"]?.objectValue?.keys).map { $0.sorted() } ?? []
    }

    /// An object schema that takes only `properties`.
    private static func object(_ properties: [String: Value], required: [String]) -> Value {
        [
            "type": "object",
            "properties": .object(properties),
            "required": .array(required.map(Value.string)),
            "additionalProperties": false,
        ]
    }
}
