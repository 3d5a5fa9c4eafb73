import Foundation
import ITBookstoreProvider
import SeekKit
@testable import SeekRuntime
import Testing

@Suite("the demo recordings inside the binary")
struct DemoRecordingsTests {
    /// Each provider with a demo, and the folder of its recordings in the repository.
    static let folders: [(factory: ProviderFactory, folder: String)] = [
        (CompositionRoot.builtInProviders[0], "Providers/OpenLibrary/Demo"),
        (CompositionRoot.builtInProviders[1], "Providers/Giphy/Demo"),
        (CompositionRoot.builtInProviders[2], "Providers/Aladin/Demo"),
        (ITBookstoreProvider.factory, "Examples/ITBookstore/Sources/ITBookstoreProvider/Demo"),
    ]

    @Test("every recording in a provider's Demo folder is compiled into the provider, byte for byte")
    func everyRecordingIsEmbeddedByteForByte() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        #expect(Self.folders.map(\.factory.id) == ["openlibrary", "giphy", "aladin", "itbook"])
        var count = 0
        for (factory, folder) in Self.folders {
            let demo = try #require(factory.demo, "\(factory.id) declares no demo")
            let directory = root.appendingPathComponent(folder)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
            #expect(!files.isEmpty, "\(folder)")
            for file in files {
                let expected = try Data(contentsOf: directory.appendingPathComponent(file))
                #expect(demo.recording(file).map { Array($0.utf8) } == Array(expected), "\(folder)/\(file)")
                count += 1
            }
        }
        #expect(count >= 14, "\(count) recordings")
    }
}
