import Foundation
import PackagePlugin

/// Gives `seek` and `seek-hosts` one build id: a hash of Package.swift and of every file of every target
/// that is not a test, the same in both executables built from one tree. SeekHosts gets it as the
/// marker `seek-build-id:<id>` (one literal, found in the executable's bytes), every other target as
/// the bare id, so that `seek` can look for its `seek-hosts` without containing the marker itself.
@main
struct BuildID: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        var files = context.package.targets.compactMap { $0 as? SourceModuleTarget }.filter { $0.kind != .test }
            .flatMap { $0.sourceFiles.map(\.url) }
        files.append(root.appending(path: "Package.swift"))
        let form = target.name == "SeekHosts" ? "marker" : "id"
        let output = context.pluginWorkDirectoryURL.appending(path: "SeekBuild.swift")
        return [
            .buildCommand(
                displayName: "Build id for \(target.name)",
                executable: try context.tool(named: "seek-embed").url,
                arguments: ["build-id", output.path, form, root.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
