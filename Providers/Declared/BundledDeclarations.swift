import Foundation
import SeekKit
import SeekCore

/// The declarations Seek ships as files (`Bundled/<id>.json`, in the format users write in
/// `"jsonProviders"`), compiled in by the EmbedFiles plugin with their demo recordings
/// (`Bundled/Demo/<id>/`, see each folder's PROVENANCE.md).
extension JSONDeclaredProvider {
    /// The bundled declarations' ids, in display order.
    public static let bundledIDs = ["kakao", "naver", "gutendex"]

    /// A bundled declaration, parsed and validated as a user's would be.
    public static func bundledDeclaration(_ id: String) throws -> JSONProviderDeclaration {
        let file = "Bundled/\(id).json"
        guard let text = EmbeddedFiles.text(file) else {
            throw SeekError(.configuration, provider: id, detail: "the bundled declaration \(file) is missing from this build")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Data(text.utf8))
        } catch {
            throw SeekError(.configuration, provider: id, detail: "the bundled declaration \(file) is not JSON: \(error)")
        }
        return try JSONProviderDeclaration(parsing: value, origin: file)
    }

    /// The factories of the bundled declarations, with their demos. One that does not validate (a broken
    /// build) still has a factory, whose `make` throws the configuration error naming the file and field.
    public static let bundled: [ProviderFactory] = bundledIDs.map { id in
        do {
            let declaration = try bundledDeclaration(id)
            return factory(for: declaration) { file in EmbeddedFiles.text("Bundled/Demo/\(id)/\(file)") }
        } catch {
            return ProviderFactory(id: id) { _ in throw error }
        }
    }
}
