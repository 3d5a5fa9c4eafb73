// The tool behind the EmbedFiles and BuildID build plugins; it runs at build time only, never ships.
//
//   seek-embed files OUTPUT ROOT FILE...      EmbeddedFiles: each FILE's text (UTF-8), by its path under ROOT
//   seek-embed build-id OUTPUT FORM ROOT FILE...  SeekBuild: a hash of every FILE (path under ROOT and bytes);
//                                                  FORM `id` gives `SeekBuild.id`, `marker` `SeekBuild.marker`
//
// The text goes into raw string literals (as many `#` as it needs), which the compiler reads fast and
// serves byte for byte: a carriage return or another control character is written as an escape.
import Foundation

struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// `path` relative to `root` (both absolute), with `/` between components.
func relative(_ path: String, to root: String) throws -> String {
    let prefix = root.hasSuffix("/") ? root : root + "/"
    guard path.hasPrefix(prefix) else { throw Failure(description: "\(path) is not under \(root)") }
    return String(path.dropFirst(prefix.count))
}

func contents(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read \(path)") }
    return Array(data)
}

/// `text` as a Swift raw string literal that evaluates to exactly `text`.
func rawLiteral(_ text: String) -> String {
    var longestRun = 0, run = 0
    for character in text.unicodeScalars {
        run = character == "#" ? run + 1 : 0
        longestRun = max(longestRun, run)
    }
    let hashes = String(repeating: "#", count: longestRun + 1)
    var body = ""
    body.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x0A, 0x09: body.unicodeScalars.append(scalar)
        case 0x0D: body += "\\\(hashes)r"
        case 0x00..<0x20, 0x7F: body += "\\\(hashes)u{\(String(scalar.value, radix: 16))}"
        default: body.unicodeScalars.append(scalar)
        }
    }
    // A multi-line literal drops the line break before its closing delimiter, and indents nothing when
    // that delimiter starts its line.
    return "\(hashes)\"\"\"\n\(body)\n\"\"\"\(hashes)"
}

/// A short Swift string literal (a path or a hash: no quote, backslash or control character).
func plainLiteral(_ text: String) throws -> String {
    guard !text.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 }) else {
        throw Failure(description: "unexpected character in \(text)")
    }
    return "\"\(text)\""
}

func writeIfChanged(_ text: String, to path: String) throws {
    let data = Data(text.utf8)
    // Unchanged output keeps its date, so nothing that depends on it is compiled again.
    if FileManager.default.contents(atPath: path) == data { return }
    try data.write(to: URL(fileURLWithPath: path))
}

func embedFiles(output: String, root: String, files: [String]) throws {
    let entries = try files.map { path -> (name: String, text: String) in
        let name = try relative(path, to: root)
        guard let text = String(validating: try contents(path), as: UTF8.self) else {
            throw Failure(description: "\(path) is not UTF-8 text; only text files are embedded")
        }
        return (name, text)
    }.sorted { $0.name < $1.name }
    var swift = """
        // Generated at build time by the EmbedFiles plugin (Plugins/EmbedFiles) from the target's
        // files that are not Swift. Edit those files, not this one.

        /// The target's non-Swift files, compiled into the binary: a copied executable carries them.
        enum EmbeddedFiles {
            /// The path of every embedded file, relative to the target's folder.
            static let paths: [String] = [

        """
    for entry in entries { swift += "        \(try plainLiteral(entry.name)),\n" }
    swift += """
            ]

            /// The text of the file at `path` (relative to the target's folder), exactly as in the repository.
            static func text(_ path: String) -> String? {
                switch path {

        """
    for entry in entries {
        swift += "        case \(try plainLiteral(entry.name)):\n            return \(rawLiteral(entry.text))\n"
    }
    swift += """
                default:
                    return nil
                }
            }
        }

        """
    try writeIfChanged(swift, to: output)
}

/// FNV-1a, 64 bits: enough to tell two trees apart (this is not a defence against a forger).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
    }
}

func buildID(output: String, form: String, root: String, files: [String]) throws {
    let named = try files.map { (name: try relative($0, to: root), path: $0) }.sorted { $0.name < $1.name }
    // Two hashes (the second over the input reversed) make 128 bits.
    var forward = FNV1a(), backward = FNV1a()
    for file in named {
        let bytes = try contents(file.path)
        let record = Array(file.name.utf8) + [0] + Array(String(bytes.count).utf8) + [0] + bytes
        forward.add(record)
        backward.add(record.reversed())
    }
    let hex = [forward.value, backward.value].map { value in
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }.joined()
    let member: String
    switch form {
    case "id":
        member = """
                /// This tree's build id: a hash of Package.swift and every file of every target but the tests.
                /// `seek-hosts` built from the same tree carries it as `seek-build-id:<id>` (SeekHosts' `SeekBuild.marker`).
                static let id = "\(hex)"
            """
    case "marker":
        member = """
                /// `seek-build-id:` and this tree's build id, as one literal, so that the bytes of the executable
                /// contain it: `seek` looks for its own id this way before it hands its process over.
                static let marker = "seek-build-id:\(hex)"
            """
    default:
        throw Failure(description: "unknown form \(form) (id or marker)")
    }
    let swift = """
        // Generated at build time by the BuildID plugin (Plugins/BuildID). Do not edit.

        enum SeekBuild {
        \(member)
        }

        """
    try writeIfChanged(swift, to: output)
}

/// Runs the command `arguments` names; exits 1 with a message on failure.
func runSeekEmbed(_ arguments: [String]) {
    do {
        switch arguments.first {
        case "files" where arguments.count >= 3:
            try embedFiles(output: arguments[1], root: arguments[2], files: Array(arguments.dropFirst(3)))
        case "build-id" where arguments.count >= 4:
            try buildID(output: arguments[1], form: arguments[2], root: arguments[3], files: Array(arguments.dropFirst(4)))
        default:
            throw Failure(description: "usage: seek-embed files OUTPUT ROOT FILE... | seek-embed build-id OUTPUT id|marker ROOT FILE...")
        }
    } catch {
        FileHandle.standardError.write(Data("seek-embed: \(error)\n".utf8))
        exit(1)
    }
}

#if SEEK_FUZZ_BUILD
// Fuzz/run.sh builds every target with -sanitize=fuzzer and -parse-as-library, this build tool
// included. SwiftPM then links an executable's `main` as `<target>_main` (which keeps libFuzzer's own
// `main` out, as Fuzz/Sources/CLibFuzzer explains): the tool's entry point is that function there.
// `argv` is C's `char **`, unused (CommandLine has the arguments): an opaque pointer of the same size.
@_cdecl("seek_embed_main")
func seekEmbedMain(_ argc: CInt, _ argv: OpaquePointer?) -> CInt {
    runSeekEmbed(Array(CommandLine.arguments.dropFirst()))
    return 0
}

/// libFuzzer's runtime, linked into every target of the fuzz build, wants one; the tool is never fuzzed.
@_cdecl("LLVMFuzzerTestOneInput")
func seekEmbedIsNotFuzzed(_ data: OpaquePointer?, _ size: Int) -> CInt { 0 }
#else
/// The command: `@main` rather than top-level code, so the tool also builds where every target is
/// compiled with `-parse-as-library` (Fuzz/run.sh).
@main
enum SeekEmbed {
    static func main() {
        runSeekEmbed(Array(CommandLine.arguments.dropFirst()))
    }
}
#endif
