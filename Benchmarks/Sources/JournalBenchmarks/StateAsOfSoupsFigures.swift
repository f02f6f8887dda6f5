/// The JSON figures of `journal-benchmarks state-as-of-soups` (docs/benchmarks.md).
struct StateAsOfSoupsFigures: Encodable {
    var entries: Int
    var records: Int
    var queries: Int
    /// Whether `verify` ran (and left its checkpoints) before the first question; false with `--cold`.
    var verifiedFirst: Bool
    /// Always `unlimited`: the figures need every entry.
    var retention = StoreConfiguration.unlimited.rawValue
    var buildSeconds = 0.0
    var verifySeconds: Double?
    /// The first question, as of the entry before the last (the last is the live state, no fold).
    var firstCallMillis = 0.0
    /// The size of the JSON document the first call described.
    var describedBytes = 0
    var queryP50Millis = 0.0
    var queryP99Millis = 0.0
    var queryMaxMillis = 0.0
    var checkpointsWritten = 0
    var checkpointMillis = 0.0
    /// The rebuild in place of every entry.
    var entriesFolded = 0
    var foldEntriesPerSecond = 0.0
    var foldEntriesPerCPUSecond = 0.0
}
