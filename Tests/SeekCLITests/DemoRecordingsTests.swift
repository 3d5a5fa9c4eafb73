import Foundation
@testable import SeekSession
import Testing

@Suite("the demo recordings inside the binary")
struct DemoRecordingsTests {
    @Test("every recording under Sources/SeekSession/Resources/Demo is compiled in, byte for byte")
    func everyRecordingIsEmbeddedByteForByte() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/SeekSession").appendingPathComponent(DemoRecordings.folder)
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") } ?? []
        for file in files {
            let parts = file.split(separator: "/", maxSplits: 1).map(String.init)
            let expected = try Data(contentsOf: folder.appendingPathComponent(file))
            #expect(parts.count == 2 && DemoRecordings().bytes(parts[0], parts[1]) == Array(expected), "\(file)")
        }
        #expect(files.count >= 11, "\(files)")
    }
}
