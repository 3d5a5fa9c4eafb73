import Foundation
import PackagePlugin

/// Compiles the target's files that are not Swift (web assets, templates, the OpenAPI document, demo
/// recordings) into the target as `EmbeddedFiles`, so that an executable copied anywhere carries them:
/// the one policy for every non-Swift file (README, "Files that are not Swift").
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles.filter { $0.type == .unknown || $0.type == .resource }.map(\.url)
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) files in \(target.name)",
                executable: try context.tool(named: "seek-embed").url,
                arguments: ["files", output.path, target.directoryURL.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
