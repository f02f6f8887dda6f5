import BenchmarkSupport

/// The JSON figures of `journal-benchmarks compaction`, each an object keyed by
/// ``StoreConfiguration`` raw value (docs/benchmarks.md lists the fields).
struct CompactionFigures: Encodable {
    struct Parameters: Encodable {
        var soupRecords: Int
        var reSyncs: Int
        var minutesBetween: Int
        var reSyncChangedRecords: Int
        var shape: RecordShape
    }

    var parameters: Parameters
    /// The same soup in SmartStore's SQLite layout (database and WAL after a checkpoint).
    var sqliteBytes = 0
    var storeBytesAfterFullSync: [String: Int] = [:]
    var storeBytesLargest: [String: Int] = [:]
    var storeBytesFinal: [String: Int] = [:]
    /// The store's size every `--report-every` reSyncs.
    var storeBytesEvery: [String: [Int]] = [:]
    var largestOverFullSync: [String: Double] = [:]
    var largestOverSQLite: [String: Double] = [:]
    var reSyncP50Millis: [String: Double] = [:]
    /// The reSyncs during which the journal compacted.
    var compactions: [String: Int] = [:]
    var entriesRemoved: [String: Int] = [:]
    /// What the compacting reSyncs took beyond the median reSync, per entry removed; absent
    /// where nothing was compacted (unlimited history).
    var compactionMillisPerEntryRemoved: [String: Double] = [:]
    /// The final store under the app default over the same store with unlimited history.
    var finalDefaultOverUnlimited: Double?
}
