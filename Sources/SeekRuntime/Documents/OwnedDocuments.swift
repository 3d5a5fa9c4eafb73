import SeekCore
import SeekKit

/// An item's `"owned"` member (issue 49): `{"id": "calibre:42", "formats": ["EPUB", "PDF"]}` when a
/// library book joined the row, written as `null` otherwise by its optional.
public struct OwnedDocument: JSONWritable {
    public let copy: OwnedCopy

    public init(_ copy: OwnedCopy) { self.copy = copy }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("id", copy.id)
            writer.field("formats", copy.formats)
        }
    }
}
