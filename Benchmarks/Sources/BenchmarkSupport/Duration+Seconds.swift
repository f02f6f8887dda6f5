extension Duration {
    /// The duration in seconds, as the figures report it.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
