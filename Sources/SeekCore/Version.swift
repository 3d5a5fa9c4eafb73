/// The version `seek` reports and sends in its User-Agent.
public enum SeekVersion {
    public static let current = "0.1.0"
}
