import Foundation
import MCP
@testable import SeekMCP
import Testing

/// openapi.yaml as it is in the repository, read from the source tree.
private func repositorySchemas() throws -> [String: Value] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let text = try String(contentsOf: root.appendingPathComponent("Sources/SeekRuntime/Documents/openapi.yaml"), encoding: .utf8)
    return OutputSchemas.schemas(fromYAML: text)
}

/// Every `$ref` in `schema`.
private func references(_ schema: Value) -> [String] {
    switch schema {
    case .object(let members):
        return members.flatMap { key, member -> [String] in
            if key == "$ref", case .string(let reference) = member { return [reference] }
            return references(member)
        }
    case .array(let elements): return elements.flatMap(references)
    default: return []
    }
}

@Suite("seek mcp: each tool's output schema is its document's component in openapi.yaml")
struct OutputSchemaTests {
    @Test("the embedded openapi.yaml is the repository's, and its schemas parse with typed scalars")
    func schemasParse() throws {
        let schemas = try repositorySchemas()
        #expect(schemas["SearchDocument"] != nil)
        #expect(schemas == OutputSchemas.schemas)
        let outcome = try #require(schemas["Outcome"]?.objectValue?["properties"]?.objectValue)
        #expect(outcome["count"]?.objectValue?["minimum"] == .int(0))
        #expect(outcome["error"]?.objectValue?["type"] == ["string", "null"])
    }

    @Test("a document that does not parse gives no schemas rather than a crash")
    func brokenYAMLGivesNoSchemas() {
        #expect(OutputSchemas.schemas(fromYAML: "components: [unclosed").isEmpty)
    }

    @Test("every listed tool's output schema is its component, references into $defs that hold every component referred to")
    func listedSchemasAreTheComponents() async throws {
        let schemas = try repositorySchemas()
        let harness = try await MCPHarness.start()
        let tools = try await harness.tools()
        try await harness.stop()
        #expect(Set(OutputSchemas.components.keys) == Set(tools.keys))
        for (name, tool) in tools {
            let component = try #require(OutputSchemas.components[name].flatMap { schemas[$0] }, "\(name)")
            var listed = try #require(tool.outputSchema?.objectValue, "\(name)")
            let definitions = listed.removeValue(forKey: "$defs")?.objectValue ?? [:]
            #expect(Value.object(listed) == OutputSchemas.rewritingReferences(component), "\(name)")
            for reference in references(.object(listed)) + references(.object(definitions)) {
                #expect(reference.hasPrefix("#/$defs/"), "\(name): \(reference)")
                let target = String(reference.dropFirst("#/$defs/".count))
                #expect(definitions[target] == schemas[target].map(OutputSchemas.rewritingReferences), "\(name): \(reference)")
            }
        }
    }

    @Test("search's schema requires the query on top of the page its trending shares")
    func searchExtendsTrending() async throws {
        let search = try #require(OutputSchemas.schema(forTool: ToolCatalog.search)?.objectValue)
        #expect(search["required"] == ["query"])
        #expect(search["allOf"] == [["$ref": "#/$defs/TrendingDocument"]])
        #expect(search["$defs"]?.objectValue?["Item"] != nil, "Item, referred to through TrendingDocument")
    }
}
