import Foundation
import SeekKit
import SeekResilience
import Testing

@Suite("Resilience: state file names and paths")
struct StateFileNamingTests {
    @Test("a breaker key keeps letters, digits and @.-_ and turns everything else into _")
    func asciiBreakerKeys() {
        #expect(FileBreakerStore.fileName("openlibrary") == "openlibrary.json")
        #expect(FileBreakerStore.fileName("giphy@api.giphy.com") == "giphy@api.giphy.com.json")
        #expect(FileBreakerStore.fileName("a/b c:d?e\u{7F}") == "a_b_c_d_e_.json")
        #expect(FileBreakerStore.fileName("../etc/passwd") == ".._etc_passwd.json")
    }

    @Test("a non-ASCII breaker key keeps letters and digits of any script, one _ per other character")
    func unicodeBreakerKeys() {
        #expect(FileBreakerStore.fileName("알라딘@책") == "알라딘@책.json")
        #expect(FileBreakerStore.fileName("é/٣ ✓") == "é_٣__.json")
    }

    @Test("a state file in a folder with a non-ASCII name and a trailing slash locks beside itself and keeps its state")
    func pathsOfNonASCIIFolders() throws {
        let folder = try resilienceTemporaryDirectory().appendingPathComponent("상태 files")
        let url = URL(fileURLWithPath: folder.path + "/state.json/")
        let file = LockedStateFile(url: url, empty: [String]())
        file.update { $0 = ["kept"] }
        #expect(LockedStateFile(url: folder.appendingPathComponent("state.json"), empty: [String]()).read() == ["kept"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == [".state.json.lock", "state.json"])
    }
}
