/// The JSON figures of `journal-benchmarks fold`, each an object keyed by ``StoreConfiguration``
/// raw value (docs/benchmarks.md lists the fields).
///
/// Under the default retention compaction leaves only the entries after its horizon, so a
/// rebuild restores the horizon's checkpoint and folds those: `entriesFolded` says how many, and
/// every rate is per entry actually folded. The fold goal is read on `unlimited`, the one store
/// that keeps all `journalEntries`.
struct FoldFigures: Encodable {
    struct Parameters: Encodable {
        var entries: Int
        var records: Int
        var wideRecords: Bool
        var batchSize: Int
    }

    var parameters: Parameters
    /// The journal's last sequence: the entries ever appended.
    var journalEntries: [String: Int] = [:]
    /// The entries the rebuild folded (those after the horizon).
    var entriesFolded: [String: Int] = [:]
    var seconds: [String: Double] = [:]
    var entriesPerSecond: [String: Double] = [:]
    var entriesPerCPUSecond: [String: Double] = [:]
}
