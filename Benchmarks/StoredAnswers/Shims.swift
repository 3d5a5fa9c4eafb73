// What the harness's copies of SeekCore's files need from files it leaves out (Bounds.swift needs
// Deadline.swift, which needs NIO).
extension Int {
    init?(checked value: Double) {
        guard value.isFinite, Swift.abs(value) <= 9_007_199_254_740_992 else { return nil }
        self.init(value.rounded(.towardZero))
    }
}

public enum SearchBounds {
    public static let defaultLimit = 20
}
