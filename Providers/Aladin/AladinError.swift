import Foundation
import SeekCore
import SeekKit

/// Aladin's error body, `{"errorCode": 8, "errorMessage": "…"}`, which it serves with HTTP 200.
struct AladinError {
    let code: Int?
    let message: String

    /// Codes with public evidence: 8 = no item for that key, 10 = daily quota exceeded.
    static let notFoundCode = 8
    static let quotaCode = 10
    /// Codes public mocks use for a bad key (they disagree; the message is the better witness).
    static let badKeyCodes: Set<Int> = [1, 4, 100]

    /// The error in `body`, or nil when it is not an error body.
    init?(_ body: AladinEnvelope) {
        guard body.errorCode != nil || body.errorMessage != nil else { return nil }
        code = body.errorCode?.intValue
        message = body.errorMessage?.stringValue.map(HTMLEntities.decode) ?? ""
    }

    /// Which failure this is. Code 8's message ("키에 해당하는 상품이 존재하지 않습니다") says 키 (key) too,
    /// so the codes and the not-found and quota phrasings are read before a message naming the key.
    var kind: SeekError.Kind {
        let lowered = message.lowercased()
        if code == Self.notFoundCode { return .notFound }
        if code == Self.quotaCode { return .rateLimited(retryAfterSeconds: nil) }
        if lowered.contains("ttbkey") { return .unauthorized }
        if message.contains("존재하지 않") { return .notFound }
        if message.contains("초과") { return .rateLimited(retryAfterSeconds: nil) }
        if message.contains("키") || lowered.contains("key") { return .unauthorized }
        if let code, Self.badKeyCodes.contains(code) { return .unauthorized }
        return .invalidInput
    }

    func seekError(url: URL) -> SeekError {
        let said = message.isEmpty ? "no message" : message
        let label = code.map { "Aladin error \($0)" } ?? "Aladin error"
        return SeekError(kind, provider: AladinProvider.id, detail: "\(label): \(said) (\(Redaction.redact(url: url)))")
    }
}
