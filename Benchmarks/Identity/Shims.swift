// What the identity harness's copies of SeekCore's files need from files it leaves out (Deadline.swift
// needs SeekSupport's timers).
extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
