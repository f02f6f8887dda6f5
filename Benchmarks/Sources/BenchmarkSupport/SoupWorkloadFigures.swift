/// What the soup workload measured on one store.
///
/// The SQLCipher child prints it as JSON for `journal-benchmarks soup`, which is why it is
/// `Codable`; the soup benchmark's own JSON regroups these figures by measure.
public struct SoupWorkloadFigures: Codable, Sendable {
    /// Records inserted per second of the store's own time.
    public var insertRecordsPerSecond: Double
    /// The store's files after the workload.
    public var storeBytes: Int
    public var lookupP50Micros: Double
    public var lookupP99Micros: Double
    public var rangePageP50Micros: Double
    public var rangePageP99Micros: Double

    public init(insertRecordsPerSecond: Double, storeBytes: Int, lookups: LatencySample, rangePages: LatencySample) {
        self.insertRecordsPerSecond = insertRecordsPerSecond.rounded(decimals: 0)
        self.storeBytes = storeBytes
        lookupP50Micros = lookups.percentile(0.5).rounded(decimals: 1)
        lookupP99Micros = lookups.percentile(0.99).rounded(decimals: 1)
        rangePageP50Micros = rangePages.percentile(0.5).rounded(decimals: 1)
        rangePageP99Micros = rangePages.percentile(0.99).rounded(decimals: 1)
    }
}
