/// The JSON figures of `journal-benchmarks recovery`, each an object keyed by
/// ``StoreConfiguration`` raw value (docs/benchmarks.md lists the fields).
struct RecoveryFigures: Encodable {
    struct Parameters: Encodable {
        var records: Int
        var checkpointInterval: Int
    }

    var parameters: Parameters
    /// The entries the child appended before it was killed.
    var journalEntries: [String: Int] = [:]
    var openAfterKillMillis: [String: Double] = [:]
    var foldedAfterKill: [String: Int] = [:]
    var openAfterPowerLossMillis: [String: Double] = [:]
    var foldedAfterPowerLoss: [String: Int] = [:]
}
