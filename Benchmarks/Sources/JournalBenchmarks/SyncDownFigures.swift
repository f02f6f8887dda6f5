import BenchmarkSupport

/// The JSON figures of `journal-benchmarks sync-down` (docs/benchmarks.md lists the fields).
///
/// The durable figures sit at the top level, each an object keyed by ``StoreConfiguration`` raw
/// value (and `sqliteFull` for SmartStore's layout in SQLite, synced at every commit); with
/// `--without-fsync` the same measures without a sync per commit are under `withoutFsync`.
struct SyncDownFigures: Encodable {
    struct Parameters: Encodable {
        var records: Int
        var pageSize: Int
        var pagesPerCommit: Int
        var smallSoup: Int
        var largeSoup: Int
        var reSyncRepeats: Int
        var reSyncChangedRecords: Int
        var shape: RecordShape
    }

    var parameters: Parameters
    var durable = SyncDownMeasures()
    var withoutFsync: SyncDownMeasures?

    private enum CodingKeys: String, CodingKey {
        case parameters
        case withoutFsync
    }

    func encode(to encoder: any Encoder) throws {
        // The durable measures at the top level, as issue 25 names them (`sync-down.ingest`).
        try durable.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(parameters, forKey: .parameters)
        try container.encodeIfPresent(withoutFsync, forKey: .withoutFsync)
    }
}

/// The sync-down measures of one durability, each keyed by the store it was measured on.
struct SyncDownMeasures: Encodable {
    /// Records ingested per second by the full sync down.
    var ingest: [String: Double] = [:]
    /// The store's files right after the ingest.
    var storeBytesAfterIngest: [String: Int] = [:]
    /// The median reSync of the changed records, on the small and the large soup.
    var reSyncSmallP50Millis: [String: Double] = [:]
    var reSyncLargeP50Millis: [String: Double] = [:]
    /// Large over small: how a reSync's cost grows with the soup.
    var reSyncRatio: [String: Double] = [:]
    /// One state entry appended alone, for comparison: what a durable append costs on that store.
    var stateAppendSmallP50Millis: [String: Double] = [:]
    var stateAppendLargeP50Millis: [String: Double] = [:]

    /// How much longer the encrypted ingest takes than the plaintext one, in percent (issue 25's
    /// goal: at most 25); absent unless both ran.
    var ingestEncryptionOverheadPercent: Double?

    /// Files the reSync medians measured on `key`, and their ratio.
    mutating func addReSync(_ key: String, small: Double, large: Double) {
        reSyncSmallP50Millis[key] = (small * 1000).rounded(decimals: 2)
        reSyncLargeP50Millis[key] = (large * 1000).rounded(decimals: 2)
        reSyncRatio[key] = (large / small).rounded(decimals: 2)
    }

    /// Sets ``ingestEncryptionOverheadPercent`` from the two ingests, when both ran.
    mutating func computeEncryptionOverhead() {
        guard let plain = ingest[StoreConfiguration.default.rawValue],
            let encrypted = ingest[StoreConfiguration.defaultEncrypted.rawValue], encrypted > 0
        else { return }
        ingestEncryptionOverheadPercent = ((plain / encrypted - 1) * 100).rounded(decimals: 1)
    }
}
