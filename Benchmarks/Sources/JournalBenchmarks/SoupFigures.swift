import BenchmarkSupport

/// The JSON figures of `journal-benchmarks soup`: each measure an object keyed by the store it
/// was measured on (docs/benchmarks.md lists the fields).
///
/// Keys: a ``StoreConfiguration`` raw value for the journal's stores; for the baselines
/// `sqliteFull` and `sqlcipherFull` in `insert` (commits synced: `synchronous = FULL`), `sqlite`
/// and `sqlcipher` in the figures of the store after the insert (its size, lookups and pages).
struct SoupFigures: Encodable {
    struct Parameters: Encodable {
        var records: Int
        var batchSize: Int
        var lookups: Int
        var rangePages: Int
        var shape: RecordShape
    }

    var parameters: Parameters
    /// SQLCipher's `cipher_version`, when the SQLCipher baseline ran.
    var sqlcipherVersion: String?
    /// Records inserted per second.
    var insert: [String: Double] = [:]
    var storeBytes: [String: Int] = [:]
    /// Where each journal store's bytes are (``JournalSoupStore/storeParts()``), by configuration.
    var storeParts: [String: [String: Int]] = [:]
    var lookupP50Micros: [String: Double] = [:]
    var lookupP99Micros: [String: Double] = [:]
    var rangePageP50Micros: [String: Double] = [:]
    var rangePageP99Micros: [String: Double] = [:]
    /// The goals' ratios, from this run's figures; a ratio is left out when a side did not run.
    var ratios: [String: Double] = [:]

    static let sqliteFull = "sqliteFull"
    static let sqlcipherFull = "sqlcipherFull"
    static let sqlite = "sqlite"
    static let sqlcipher = "sqlcipher"

    init(_ workload: SoupWorkload) {
        parameters = Parameters(
            records: workload.recordCount, batchSize: workload.batchSize, lookups: workload.lookupCount,
            rangePages: workload.rangePageCount, shape: workload.shape)
    }

    /// Files one store's figures: its insert rate under `insertKey`, the rest under `storeKey`.
    mutating func add(_ figures: SoupWorkloadFigures, insertKey: String, storeKey: String) {
        insert[insertKey] = figures.insertRecordsPerSecond
        storeBytes[storeKey] = figures.storeBytes
        lookupP50Micros[storeKey] = figures.lookupP50Micros
        lookupP99Micros[storeKey] = figures.lookupP99Micros
        rangePageP50Micros[storeKey] = figures.rangePageP50Micros
        rangePageP99Micros[storeKey] = figures.rangePageP99Micros
    }

    /// Computes ``ratios`` from the figures filed, as the goals of issue 25 state them.
    mutating func computeRatios() {
        let plain = StoreConfiguration.default.rawValue
        let encrypted = StoreConfiguration.defaultEncrypted.rawValue
        let unlimited = StoreConfiguration.unlimited.rawValue
        let stores = storeBytes.mapValues(Double.init)
        let candidates: [String: Double?] = [
            "insertDefaultOverSQLiteFull": Self.ratio(insert[plain], insert[Self.sqliteFull]),
            "insertDefaultEncryptedOverSQLCipherFull": Self.ratio(insert[encrypted], insert[Self.sqlcipherFull]),
            "insertUnlimitedOverSQLiteFull": Self.ratio(insert[unlimited], insert[Self.sqliteFull]),
            // Time, not rate: how much longer the encrypted insert takes, in percent.
            "encryptionOverheadPercent": Self.ratio(insert[plain], insert[encrypted]).map { ($0 - 1) * 100 },
            "storeDefaultOverSQLite": Self.ratio(stores[plain], stores[Self.sqlite]),
            "storeDefaultEncryptedOverSQLCipher": Self.ratio(stores[encrypted], stores[Self.sqlcipher]),
            "storeUnlimitedOverSQLite": Self.ratio(stores[unlimited], stores[Self.sqlite]),
            "storeDefaultOverUnlimited": Self.ratio(stores[plain], stores[unlimited]),
            "rangePageP50DefaultOverSQLite": Self.ratio(rangePageP50Micros[plain], rangePageP50Micros[Self.sqlite]),
            "rangePageP50DefaultEncryptedOverSQLite": Self.ratio(
                rangePageP50Micros[encrypted], rangePageP50Micros[Self.sqlite]),
            "rangePageP50DefaultEncryptedOverSQLCipher": Self.ratio(
                rangePageP50Micros[encrypted], rangePageP50Micros[Self.sqlcipher]),
        ]
        ratios = candidates.compactMapValues { $0?.rounded(decimals: 2) }
    }

    static func ratio(_ numerator: Double?, _ denominator: Double?) -> Double? {
        guard let numerator, let denominator, denominator > 0 else { return nil }
        return numerator / denominator
    }
}
