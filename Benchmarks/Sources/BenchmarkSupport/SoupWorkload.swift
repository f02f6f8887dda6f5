import Determinism

/// The soup benchmark's work, the same on every store: insert `recordCount` records of `shape`
/// (four indexes) in transactions of `batchSize`, then `lookupCount` exact lookups by `Id` and
/// `rangePageCount` range pages on `AnnualRevenue`.
///
/// Records and probes come from fixed seeds, so every store of a run — and the SQLCipher child
/// process — stores the same records and answers the same questions.
public struct SoupWorkload: Sendable {
    public var recordCount: Int
    public var batchSize: Int
    public var lookupCount: Int
    public var rangePageCount: Int
    /// What the records look like; both shapes carry the four indexed paths.
    public var shape: RecordShape

    public init(
        recordCount: Int, batchSize: Int, lookupCount: Int, rangePageCount: Int, shape: RecordShape = .lorem
    ) {
        self.recordCount = recordCount
        self.batchSize = batchSize
        self.lookupCount = lookupCount
        self.rangePageCount = rangePageCount
        self.shape = shape
    }

    /// Runs the workload on `store` and returns its figures.
    ///
    /// Only the stores' own calls are timed: each batch is generated before its clock starts.
    public func run(on store: some SoupWorkloadStore) throws -> SoupWorkloadFigures {
        let insertSeconds = try insertAll(into: store)
        var probes = SplitMix64(seed: 99)
        var lookups = LatencySample()
        for _ in 0..<lookupCount {
            let id = shape.id(Int.random(in: 0..<recordCount, using: &probes))
            let start = ContinuousClock.now
            let found = try store.lookup(id: id)
            lookups.record(ContinuousClock.now - start)
            precondition(found != nil, "every probed record was inserted")
        }
        var rangePages = LatencySample()
        for _ in 0..<rangePageCount {
            let low = Int64.random(in: 0..<10_000_000, using: &probes)
            let start = ContinuousClock.now
            _ = try store.rangePage(from: low)
            rangePages.record(ContinuousClock.now - start)
        }
        return SoupWorkloadFigures(
            insertRecordsPerSecond: Double(recordCount) / insertSeconds, storeBytes: try store.storeBytes(),
            lookups: lookups, rangePages: rangePages)
    }

    /// Inserts every record, batch by batch, and returns the seconds the store spent on them.
    private func insertAll(into store: some SoupWorkloadStore) throws -> Double {
        var generator = SplitMix64(seed: 7)
        var seconds = 0.0
        var inserted = 0
        while inserted < recordCount {
            let count = min(batchSize, recordCount - inserted)
            let batch = (inserted..<inserted + count).map { shape.record($0, using: &generator) }
            let start = ContinuousClock.now
            try store.insert(batch)
            seconds += (ContinuousClock.now - start).inSeconds
            inserted += count
        }
        return seconds
    }
}
