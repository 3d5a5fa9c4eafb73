import MCP
import SeekCore
import SeekSession

/// The tools `seek mcp` offers (DESIGN's names, a contract), each with its input schema, the schema
/// of its structured content (the CLI's JSON document) and what it does to the world.
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
            "maximum": .int(SeekSession.resultLimits.upperBound), "default": 20,
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
                    "rank": [
                        "type": "string", "enum": .array(RankingMethod.allCases.map { .string($0.rawValue) }), "default": "searxng",
                        "description": "searxng (|P| × Πw × Σ 1/p) or rrf (reciprocal rank fusion).",
                    ],
                ], required: ["query"]),
                annotations: .init(title: "Search", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.search(withQuery: true)),
            Tool(
                name: detail, title: "Item detail",
                description: "The full record of one item from its provider: description, contributors, subjects, publishers, identifiers, images.",
                inputSchema: object(["id": itemID], required: ["id"]),
                annotations: .init(title: "Item detail", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.detail),
            Tool(
                name: trending, title: "Trending",
                description: "What is popular now at the selected providers (GIPHY's trending GIFs, Aladin's bestsellers), merged like a search.",
                inputSchema: object(["providers": providerList, "limit": limit], required: []),
                annotations: .init(title: "Trending", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.search(withQuery: false)),
            Tool(
                name: suggest, title: "Suggest",
                description: "Search suggestions for the start of a query, from the providers that offer them.",
                inputSchema: object([
                    "prefix": ["type": "string", "minLength": 1, "description": "The start of a query."],
                    "providers": providerList,
                ], required: ["prefix"]),
                annotations: .init(title: "Suggest", readOnlyHint: true, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.suggest),
            Tool(
                name: providers, title: "Providers",
                description: "The providers: id, kinds, capabilities, whether configured (API key), status and cool-down. Asks no provider.",
                inputSchema: object([:], required: []),
                annotations: .init(title: "Providers", readOnlyHint: true, idempotentHint: true, openWorldHint: false),
                outputSchema: OutputSchemas.providers),
            Tool(
                name: favoritesList, title: "List favourites",
                description: "The favourites, most recently added first (stored snapshots: works offline).",
                inputSchema: object([:], required: []),
                annotations: .init(title: "List favourites", readOnlyHint: true, idempotentHint: true, openWorldHint: false),
                outputSchema: OutputSchemas.favorites),
            Tool(
                name: favoritesAdd, title: "Add a favourite",
                description: "Add an item to the favourites, storing a snapshot of its provider's detail; adding it again changes nothing. Returns the favourites after the change.",
                inputSchema: object(["id": itemID], required: ["id"]),
                annotations: .init(title: "Add a favourite", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true),
                outputSchema: OutputSchemas.favorites),
            Tool(
                name: favoritesRemove, title: "Remove a favourite",
                description: "Remove an item from the favourites (nothing happens when it is not one). Returns the favourites after the change.",
                inputSchema: object(["id": itemID], required: ["id"]),
                annotations: .init(title: "Remove a favourite", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false),
                outputSchema: OutputSchemas.favorites),
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

/// JSON Schemas of the CLI's documents, as the tools' `outputSchema`s. Fields the documents always
/// write are required; optional ones are `null` when empty, never missing.
enum OutputSchemas {
    static func search(withQuery: Bool) -> Value {
        var properties: [String: Value] = [
            "page": ["type": "integer", "minimum": 1],
            "items": ["type": "array", "items": item(detail: false)],
            "providers": ["type": "array", "items": outcome],
            "next": ["type": ["string", "null"], "description": "Pass as `cursor` for the next page; null when there is none."],
        ]
        var required: [Value] = ["page", "items", "providers", "next"]
        if withQuery {
            properties["query"] = ["type": "string"]
            required.insert("query", at: 0)
        }
        return ["type": "object", "properties": .object(properties), "required": .array(required)]
    }

    static let detail = item(detail: true)

    static let suggest: Value = [
        "type": "object",
        "properties": [
            "prefix": ["type": "string"],
            "suggestions": strings,
            "providers": ["type": "array", "items": outcome],
        ],
        "required": ["prefix", "suggestions", "providers"],
    ]

    static let providers: Value = [
        "type": "object",
        "properties": [
            "providers": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": [
                        "id": ["type": "string"],
                        "name": ["type": "string"],
                        "kinds": strings,
                        "capabilities": ["type": "array", "items": ["type": "string", "enum": .array(ProviderCapability.allCases.map { .string($0.rawValue) })]],
                        "paging": ["type": "string"],
                        "needsKey": ["type": "boolean"],
                        "configured": ["type": "boolean"],
                        "endpoint": ["type": "string"],
                        "timeoutSeconds": ["type": "number"],
                        "weight": ["type": "number"],
                        "shortcuts": strings,
                        "status": ["type": "string", "enum": ["ready", "no key", "suspended"]],
                        "suspendedUntil": ["type": ["string", "null"]],
                        "suspendedReason": ["type": ["string", "null"]],
                    ],
                    "required": ["id", "name", "kinds", "capabilities", "configured", "status", "suspendedUntil"],
                ],
            ],
        ],
        "required": ["providers"],
    ]

    static let favorites: Value = [
        "type": "object",
        "properties": [
            "entries": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": [
                        "id": ["type": "string"],
                        "provider": ["type": "string"],
                        "kind": ["type": "string"],
                        "title": ["type": "string"],
                        "creators": strings,
                        "imageURL": ["type": ["string", "null"]],
                        "addedAt": ["type": "string"],
                    ],
                    "required": ["id", "provider", "kind", "title", "creators", "imageURL", "addedAt"],
                ],
            ],
        ],
        "required": ["entries"],
    ]

    static let history: Value = [
        "type": "object",
        "properties": [
            "entries": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": ["query": ["type": "string"], "providers": strings, "searchedAt": ["type": "string"]],
                    "required": ["query", "providers", "searchedAt"],
                ],
            ],
        ],
        "required": ["entries"],
    ]

    private static let strings: Value = ["type": "array", "items": ["type": "string"]]
    private static let nullableString: Value = ["type": ["string", "null"]]

    /// One provider's part of a call: DESIGN's statuses.
    private static let outcome: Value = [
        "type": "object",
        "properties": [
            "id": ["type": "string"],
            "status": ["type": "string", "enum": .array(ProviderStatus.allCases.map { .string($0.rawValue) })],
            "count": ["type": "integer", "minimum": 0],
            "elapsedMs": ["type": "integer"],
            "error": ["type": ["string", "null"], "description": "The cause, when the provider failed."],
            "stale": ["type": "boolean", "description": "True when the items are a cached answer served because the provider failed."],
        ],
        "required": ["id", "status", "count", "elapsedMs", "error", "stale"],
    ]

    private static func item(detail: Bool) -> Value {
        var properties: [String: Value] = [
            "id": ["type": "string", "description": "PROVIDER:ID of the best-ranked source: what detail and favorites_add take."],
            "provider": ["type": "string"],
            "kind": ["type": "string", "description": "book, gif, …"],
            "title": ["type": "string"],
            "subtitle": nullableString,
            "creators": strings,
            "year": ["type": ["integer", "null"]],
            "isbn13": strings,
            "imageURL": nullableString,
            "url": nullableString,
            "score": ["type": "number"],
            "sources": [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": ["provider": ["type": "string"], "id": ["type": "string"], "rank": ["type": "integer"]],
                    "required": ["provider", "id", "rank"],
                ],
            ],
            "provenance": ["type": "object", "additionalProperties": ["type": "string"]],
        ]
        var required: [Value] = [
            "id", "provider", "kind", "title", "subtitle", "creators", "year", "isbn13", "imageURL", "url", "score", "sources",
        ]
        if detail {
            let image: Value = [
                "type": "object",
                "properties": ["url": ["type": "string"], "width": ["type": ["integer", "null"]], "height": ["type": ["integer", "null"]]],
                "required": ["url"],
            ]
            properties["isbn10"] = strings
            properties["identifiers"] = ["type": "object", "additionalProperties": ["type": "string"]]
            properties["images"] = [
                "type": "object",
                "propertyNames": ["enum": .array(ImageSize.allCases.map { .string($0.rawValue) })],
                "additionalProperties": image,
            ]
            properties["description"] = nullableString
            properties["contributors"] = [
                "type": "array",
                "items": [
                    "type": "object",
                    "properties": ["name": ["type": "string"], "role": nullableString],
                    "required": ["name"],
                ],
            ]
            properties["subjects"] = strings
            properties["publishers"] = strings
            properties["publishDate"] = nullableString
            properties["pageCount"] = ["type": ["integer", "null"]]
            properties["attributes"] = ["type": "object", "additionalProperties": ["type": "string"]]
            required += ["isbn10", "identifiers", "images", "description", "contributors", "subjects", "publishers", "publishDate", "pageCount", "attributes"]
        }
        return ["type": "object", "properties": .object(properties), "required": .array(required)]
    }
}
