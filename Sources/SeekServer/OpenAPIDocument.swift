import Foundation
/// `GET /openapi.yaml`: the OpenAPI 3.1 description of every route, written by hand. A test checks
/// that its paths are exactly the routes the server answers (`APIRoutes.table`).
enum OpenAPIDocument {
    static let yaml = #"""
openapi: 3.1.0
info:
  title: Seek
  version: 0.1.0
  description: >
    One search over several sources (Open Library, GIPHY, Aladin and any provider added), merged,
    ranked and de-duplicated. Every JSON document is the one `seek … --format json` prints.
servers:
  - url: /
paths:
  /api/v1/search:
    get:
      operationId: search
      summary: One merged, ranked, de-duplicated search over the selected providers.
      parameters:
        - $ref: '#/components/parameters/q'
        - $ref: '#/components/parameters/providers'
        - $ref: '#/components/parameters/limit'
        - $ref: '#/components/parameters/page'
        - $ref: '#/components/parameters/cursor'
        - $ref: '#/components/parameters/rank'
        - $ref: '#/components/parameters/rating'
        - $ref: '#/components/parameters/explain'
        - $ref: '#/components/parameters/no_cache'
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The search document; each provider's status is in `providers`.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/SearchDocument' }
        '400': { $ref: '#/components/responses/BadRequest' }
        '504': { $ref: '#/components/responses/Error' }
  /api/v1/search/stream:
    get:
      operationId: searchStream
      summary: The search as NDJSON, a `batch` line as each provider answers, then the `summary`.
      parameters:
        - $ref: '#/components/parameters/q'
        - $ref: '#/components/parameters/providers'
        - $ref: '#/components/parameters/limit'
        - $ref: '#/components/parameters/page'
        - $ref: '#/components/parameters/cursor'
        - $ref: '#/components/parameters/rank'
        - $ref: '#/components/parameters/rating'
        - $ref: '#/components/parameters/explain'
        - $ref: '#/components/parameters/no_cache'
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: One JSON object per line.
          content:
            application/x-ndjson:
              schema: { type: string }
        '400': { $ref: '#/components/responses/BadRequest' }
  /api/v1/items/{id}:
    get:
      operationId: detail
      summary: The full record of one item.
      parameters:
        - $ref: '#/components/parameters/id'
        - $ref: '#/components/parameters/no_cache'
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The detail document.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Item' }
        '400': { $ref: '#/components/responses/BadRequest' }
        '404': { $ref: '#/components/responses/Error' }
        '502': { $ref: '#/components/responses/Error' }
        '503': { $ref: '#/components/responses/Error' }
        '504': { $ref: '#/components/responses/Error' }
  /api/v1/items/{id}/image:
    get:
      operationId: image
      summary: The item's image through the shared image cache (never a URL given by the caller).
      parameters:
        - $ref: '#/components/parameters/id'
        - name: size
          in: query
          required: false
          schema: { type: string, enum: [small, medium, large, original], default: medium }
        - name: If-None-Match
          in: header
          required: false
          schema: { type: string }
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The image bytes, with Content-Type, ETag and Cache-Control.
          content:
            image/jpeg: { schema: { type: string, format: binary } }
            image/png: { schema: { type: string, format: binary } }
            image/gif: { schema: { type: string, format: binary } }
            image/webp: { schema: { type: string, format: binary } }
        '304': { description: The image has not changed (If-None-Match). }
        '400': { $ref: '#/components/responses/BadRequest' }
        '404': { $ref: '#/components/responses/Error' }
        '502': { $ref: '#/components/responses/Error' }
        '503': { $ref: '#/components/responses/Error' }
        '504': { $ref: '#/components/responses/Error' }
  /api/v1/trending:
    get:
      operationId: trending
      summary: What is popular now at the selected providers (GIFs, bestsellers), merged.
      parameters:
        - $ref: '#/components/parameters/providers'
        - $ref: '#/components/parameters/limit'
        - $ref: '#/components/parameters/rating'
        - $ref: '#/components/parameters/no_cache'
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The search document without `query`.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/SearchDocument' }
        '400': { $ref: '#/components/responses/BadRequest' }
  /api/v1/suggest:
    get:
      operationId: suggest
      summary: Search suggestions for a prefix.
      parameters:
        - $ref: '#/components/parameters/q'
        - $ref: '#/components/parameters/providers'
        - name: limit
          in: query
          required: false
          schema: { type: integer, minimum: 1, maximum: 50, default: 10 }
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The suggestions and each provider's status.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/SuggestDocument' }
        '400': { $ref: '#/components/responses/BadRequest' }
  /api/v1/providers:
    get:
      operationId: providers
      summary: Every provider, its capabilities, whether it is configured and its cool-down.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The providers document.
          content:
            application/json:
              schema:
                type: object
                required: [providers]
                properties:
                  providers: { type: array, items: { $ref: '#/components/schemas/Provider' } }
  /api/v1/stats:
    get:
      operationId: stats
      summary: Per-provider calls, success rate and p50/p95 latency.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The stats document.
          content:
            application/json:
              schema:
                type: object
                required: [window, providers]
                properties:
                  window: { type: integer }
                  providers: { type: array, items: { type: object } }
  /api/v1/favorites:
    get:
      operationId: favorites
      summary: The favourites, newest first, from their stored snapshots.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200': { $ref: '#/components/responses/Favorites' }
  /api/v1/favorites/{id}:
    put:
      operationId: addFavorite
      summary: Adds a favourite (a snapshot of its detail is stored); the list after the change.
      parameters:
        - $ref: '#/components/parameters/id'
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200': { $ref: '#/components/responses/Favorites' }
        '400': { $ref: '#/components/responses/BadRequest' }
        '404': { $ref: '#/components/responses/Error' }
        '502': { $ref: '#/components/responses/Error' }
        '503': { $ref: '#/components/responses/Error' }
        '504': { $ref: '#/components/responses/Error' }
    delete:
      operationId: removeFavorite
      summary: Removes a favourite; the list after the change.
      parameters:
        - $ref: '#/components/parameters/id'
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200': { $ref: '#/components/responses/Favorites' }
        '400': { $ref: '#/components/responses/BadRequest' }
  /api/v1/history:
    get:
      operationId: history
      summary: Recent searches, most recent first.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200': { $ref: '#/components/responses/History' }
    delete:
      operationId: clearHistory
      summary: Forgets every recent search.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200': { $ref: '#/components/responses/History' }
  /mcp:
    post:
      operationId: mcp
      summary: Seek's MCP server (the tools and resources of `seek mcp`) over Streamable HTTP, stateless.
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, description: A JSON-RPC 2.0 request or notification. }
      responses:
        default:
          description: A JSON-RPC error (malformed message, wrong headers), or the API's JSON error.
          content:
            application/json: { schema: { type: object } }
        '200':
          description: The JSON-RPC response.
          content:
            application/json: { schema: { type: object } }
        '202': { description: A notification was accepted. }
  /openapi.yaml:
    get:
      operationId: openapi
      summary: This document.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: OpenAPI 3.1 in YAML.
          content:
            application/yaml: { schema: { type: string } }
  /healthz:
    get:
      operationId: health
      summary: 200 while serving.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: Serving.
          content:
            application/json:
              schema:
                type: object
                required: [status, store]
                properties:
                  status: { type: string, const: ok }
                  store:
                    type: object
                    description: Which store keeps favourites, history and the shared state, and whether it answered last.
                    required: [kind, reachable]
                    properties:
                      kind: { type: string, enum: [sqlite, postgresql] }
                      reachable: { type: boolean }
  /metrics:
    get:
      operationId: metrics
      summary: Prometheus metrics (requests, provider calls, cache lookups, breakers, the shared store).
      description: >
        Open when the server is bound to a loopback address; on any other bind it needs
        `Authorization: Bearer $SEEK_METRICS_TOKEN`, and answers 404 while no token is set.
      responses:
        default: { $ref: '#/components/responses/Error' }
        '200':
          description: The Prometheus text format (version 0.0.4); every name starts with `seek_`.
          content:
            text/plain: { schema: { type: string } }
        '401': { $ref: '#/components/responses/Error' }
        '404': { $ref: '#/components/responses/Error' }
components:
  parameters:
    q:
      name: q
      in: query
      required: true
      description: The query; bangs (`!ol`, `!giphy`, `!aladin`) select providers.
      schema: { type: string, minLength: 1, maxLength: 500 }
    providers:
      name: providers
      in: query
      required: false
      description: Comma-separated provider ids (`openlibrary,aladin`); default all configured.
      schema: { type: string }
    limit:
      name: limit
      in: query
      required: false
      schema: { type: integer, minimum: 1, maximum: 100, default: 20 }
    page:
      name: page
      in: query
      required: false
      schema: { type: integer, minimum: 1, default: 1 }
    cursor:
      name: cursor
      in: query
      required: false
      description: The `next` of an earlier answer; nothing shown before repeats.
      schema: { type: string, maxLength: 4096 }
    rank:
      name: rank
      in: query
      required: false
      schema: { type: string, enum: [searxng, rrf], default: searxng }
    rating:
      name: rating
      in: query
      required: false
      schema: { type: string, enum: [g, pg, pg-13, r] }
    explain:
      name: explain
      in: query
      required: false
      schema: { type: boolean, default: false }
    no_cache:
      name: no_cache
      in: query
      required: false
      schema: { type: boolean, default: false }
    id:
      name: id
      in: path
      required: true
      description: An item id, `provider:value` (`openlibrary:OL45804W`).
      schema: { type: string }
  responses:
    BadRequest:
      description: A bad parameter.
      content:
        application/json:
          schema: { $ref: '#/components/schemas/Error' }
    Error:
      description: An error (a bad request, a provider's failure naming it and the cause, a request
        too large or too long, a deadline).
      content:
        application/json:
          schema: { $ref: '#/components/schemas/Error' }
    Favorites:
      description: The favourites.
      content:
        application/json:
          schema:
            type: object
            required: [entries]
            properties:
              entries: { type: array, items: { $ref: '#/components/schemas/Favorite' } }
    History:
      description: The recent searches.
      content:
        application/json:
          schema:
            type: object
            required: [entries]
            properties:
              entries: { type: array, items: { $ref: '#/components/schemas/HistoryEntry' } }
  schemas:
    Error:
      type: object
      required: [error]
      properties:
        error:
          type: object
          required: [code, message]
          properties:
            code: { type: string }
            message: { type: string }
    Status:
      type: string
      enum: [ok, empty, timeout, error, rateLimited, unauthorized, skipped, suspended, unsupported]
    Outcome:
      type: object
      required: [id, status, count, elapsedMs, error]
      properties:
        id: { type: string }
        status: { $ref: '#/components/schemas/Status' }
        count: { type: integer }
        elapsedMs: { type: integer }
        error: { type: [string, 'null'] }
        stale: { type: boolean }
    Source:
      type: object
      required: [provider, id, rank]
      properties:
        provider: { type: string }
        id: { type: string }
        rank: { type: integer }
    Item:
      type: object
      required: [id, provider, kind, title, creators, sources]
      properties:
        id: { type: string }
        provider: { type: string }
        kind: { type: string }
        title: { type: string }
        subtitle: { type: [string, 'null'] }
        creators: { type: array, items: { type: string } }
        year: { type: [integer, 'null'] }
        isbn13: { type: array, items: { type: string } }
        imageURL: { type: [string, 'null'] }
        url: { type: [string, 'null'] }
        score: { type: [number, 'null'] }
        sources: { type: array, items: { $ref: '#/components/schemas/Source' } }
        provenance: { type: object, additionalProperties: { type: string } }
    SearchDocument:
      type: object
      required: [page, items, providers, next]
      properties:
        query: { type: string }
        page: { type: integer }
        items: { type: array, items: { $ref: '#/components/schemas/Item' } }
        providers: { type: array, items: { $ref: '#/components/schemas/Outcome' } }
        next: { type: [string, 'null'], maxLength: 1024 }
    SuggestDocument:
      type: object
      required: [prefix, suggestions, providers]
      properties:
        prefix: { type: string }
        suggestions: { type: array, items: { type: string } }
        providers: { type: array, items: { $ref: '#/components/schemas/Outcome' } }
    Provider:
      type: object
      required: [id, name, kinds, capabilities, configured, status]
      properties:
        id: { type: string }
        name: { type: string }
        kinds: { type: array, items: { type: string } }
        capabilities: { type: array, items: { type: string } }
        configured: { type: boolean }
        status: { type: string }
        suspendedUntil: { type: [string, 'null'] }
    Favorite:
      type: object
      required: [id, provider, kind, title, creators, addedAt]
      properties:
        id: { type: string }
        provider: { type: string }
        kind: { type: string }
        title: { type: string }
        creators: { type: array, items: { type: string } }
        imageURL: { type: [string, 'null'] }
        addedAt: { type: string }
    HistoryEntry:
      type: object
      required: [query, providers, searchedAt]
      properties:
        query: { type: string }
        providers: { type: array, items: { type: string } }
        searchedAt: { type: string }

"""#
}
