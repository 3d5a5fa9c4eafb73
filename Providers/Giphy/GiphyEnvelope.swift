import SeekCore
import SeekKit

/// A GIPHY response body read leniently: `data` (array, object or absent), `pagination`, `meta`, and the
/// legacy `{"message": …}` error form.
struct GiphyEnvelope {
    let data: JSONValue?
    let totalCount: Int?
    let metaStatus: Int?
    /// The API's own words: `meta.msg`, else a top-level `message`.
    let message: String?
    let responseID: String?

    init(_ root: JSONValue) {
        data = root["data"].flatMap { $0 == .null ? nil : $0 }
        totalCount = root["pagination"]?["total_count"]?.intValue
        metaStatus = root["meta"]?["status"]?.intValue
        let text = root["meta"]?["msg"]?.stringValue ?? root["message"]?.stringValue
        message = (text?.isEmpty ?? true) ? nil : text
        responseID = root["meta"]?["response_id"]?.stringValue
    }

    /// The objects of a list body (a lone object counts as a list of one).
    var list: [[String: JSONValue]] {
        if let array = data?.arrayValue { return array.compactMap(\.objectValue) }
        return single.map { [$0] } ?? []
    }

    /// The object of a single-object body (`/gifs/{id}`, `/random`).
    var single: [String: JSONValue]? { data?.objectValue }

    /// GIPHY's "synthetic response": status 200, an empty `response_id` and no data. Its docs say to treat it as an error.
    var isSynthetic: Bool {
        guard responseID == "", metaStatus == nil || metaStatus == 200 else { return false }
        if let array = data?.arrayValue { return array.isEmpty }
        if let object = data?.objectValue { return object.isEmpty }
        return true
    }
}
