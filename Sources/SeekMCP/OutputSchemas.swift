import MCP
import SeekRuntime
import Yams

/// The tools' output schemas, derived from the one description of each document: the components of
/// SeekSession's `openapi.yaml` (what `GET /openapi.yaml` serves), with the components a schema
/// refers to carried as JSON Schema 2020-12 `$defs` and its `$ref`s pointed at them.
///
/// The YAML is parsed here, at run time, once per process (the first time a tool list is built):
/// only `seek mcp` and `seek serve` link this module and pay the few milliseconds; the short commands
/// (`seek providers`) link neither it nor Yams. Converting at build time in seek-embed would put a
/// YAML parser in the build tool and a second generated file in the tree for no measurable gain.
enum OutputSchemas {
    /// The component each tool's structured content is (a test checks every tool has one).
    static let components: [String: String] = [
        ToolCatalog.search: "SearchDocument",
        ToolCatalog.detail: "ItemDetail",
        ToolCatalog.trending: "TrendingDocument",
        ToolCatalog.suggest: "SuggestDocument",
        ToolCatalog.providers: "ProvidersDocument",
        ToolCatalog.favoritesList: "FavoritesDocument",
        ToolCatalog.favoritesAdd: "FavoritesDocument",
        ToolCatalog.favoritesRemove: "FavoritesDocument",
    ]

    /// `components/schemas` of openapi.yaml as MCP values; empty if the file does not parse (a test
    /// parses it, so a broken file fails the build's tests, not a client).
    static let schemas = schemas(fromYAML: OpenAPIFile.yaml)

    /// `components/schemas` of an OpenAPI document in YAML; empty if it does not parse.
    static func schemas(fromYAML text: String) -> [String: Value] {
        guard let node = try? Yams.compose(yaml: text),
              case .object(let schemas)? = value(of: node).objectValue?["components"]?.objectValue?["schemas"]
        else { return [:] }
        return schemas
    }

    static let componentPrefix = "#/components/schemas/"

    /// The output schema of `tool`: its document's component, with every component it refers to,
    /// directly or not, in `$defs`. Nil for a tool without a document.
    static func schema(forTool tool: String) -> Value? {
        guard let name = components[tool], let root = schemas[name] else { return nil }
        var definitions: [String: Value] = [:]
        var pending = references(in: root)
        while let next = pending.popLast() {
            guard definitions[next] == nil, let schema = schemas[next] else { continue }
            definitions[next] = rewritingReferences(schema)
            pending += references(in: schema)
        }
        guard case .object(var object) = rewritingReferences(root) else { return nil }
        if !definitions.isEmpty { object["$defs"] = .object(definitions) }
        return .object(object)
    }

    /// The component names `schema` refers to with `$ref`.
    static func references(in schema: Value) -> [String] {
        switch schema {
        case .object(let members):
            var names: [String] = []
            for (key, member) in members {
                if key == "$ref", case .string(let reference) = member, reference.hasPrefix(componentPrefix) {
                    names.append(String(reference.dropFirst(componentPrefix.count)))
                } else {
                    names += references(in: member)
                }
            }
            return names
        case .array(let elements):
            return elements.flatMap(references(in:))
        default:
            return []
        }
    }

    /// `schema` with `#/components/schemas/X` references turned into `#/$defs/X`.
    static func rewritingReferences(_ schema: Value) -> Value {
        switch schema {
        case .object(let members):
            var result: [String: Value] = [:]
            for (key, member) in members {
                if key == "$ref", case .string(let reference) = member, reference.hasPrefix(componentPrefix) {
                    result[key] = .string("#/$defs/" + reference.dropFirst(componentPrefix.count))
                } else {
                    result[key] = rewritingReferences(member)
                }
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map(rewritingReferences))
        default:
            return schema
        }
    }

    /// A YAML node as a JSON value, scalars typed by the tags YAML's core schema resolves.
    static func value(of node: Node) -> Value {
        if let mapping = node.mapping {
            var members: [String: Value] = [:]
            for (key, member) in mapping { members[key.string ?? ""] = value(of: member) }
            return .object(members)
        }
        if let sequence = node.sequence { return .array(sequence.map(value(of:))) }
        switch Tag.Name(rawValue: node.tag.description) {
        case .null: return .null
        case .bool: return node.bool.map(Value.bool) ?? .string(node.string ?? "")
        case .int: return node.int.map(Value.int) ?? .string(node.string ?? "")
        case .float: return node.float.map(Value.double) ?? .string(node.string ?? "")
        default: return .string(node.string ?? "")
        }
    }
}
