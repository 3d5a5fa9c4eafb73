import SeekSupport

/// Finding text in text on its UTF-8 code units, for redaction and untrusted upstream text.
extension String {
    /// Whether the text holds `target`, as `StringProtocol.containsBytes(of:)` finds it: for `String`
    /// itself, so that callers in other modules (redaction checks every text of an answer) do not take
    /// the generic form, which cost 380 instructions a call (issue 30).
    public func containsBytes(of target: String) -> Bool {
        UTF8Search.contains(self, target)
    }
}

extension StringProtocol {
    /// Whether the text holds `target`, compared on UTF-8 code units as `replacingAll(_:with:)` matches.
    public func containsBytes(of target: String) -> Bool {
        UTF8Search.contains(String(self), target)
    }
}
