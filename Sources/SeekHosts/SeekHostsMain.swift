import ArgumentParser
import Foundation
import SeekCLI
import SeekKit
import SeekRuntime

/// `seek` with the long-lived hosts linked in: every command of `seek`, with `serve` and `mcp`
/// running in this process.
struct SeekWithHostsCommand: AsyncParsableCommand {
    static let configuration = SeekCommand.rootConfiguration(hosts: [ServeCommand.self, McpCommand.self])
}

/// Entry point for `seek-hosts` (which `seek serve` and `seek mcp` run) and for executables that add
/// providers and serve them (`seek-itbook`).
public enum SeekHostsMain {
    public static func main(extraProviders: [ProviderFactory] = []) async -> Never {
        // `seek-hosts --build-id` prints the marker `seek` finds in this file before it hands over
        // (BuildID); the reference also keeps the marker in an optimised, stripped binary.
        if CommandLine.arguments.dropFirst().first == "--build-id" {
            print(SeekBuild.marker)
            exit(0)
        }
        // A server runs for days: bound the allocator's arenas before its threads start.
        AllocatorArenas.bound()
        await SeekMain.main(root: SeekWithHostsCommand.self, extraProviders: extraProviders)
    }
}
