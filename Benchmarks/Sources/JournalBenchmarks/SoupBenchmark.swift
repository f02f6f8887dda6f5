import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import Soups
import SyncTesting

/// A soup of `recordCount` records (~1 KB, 4 indexes) against SmartStore's SQLite layout
/// through GRDB: bulk insert rate, exact lookup by `Id`, and a page of 100 by range on
/// `AnnualRevenue`, with the same seeded records and probes on both sides.
struct SoupBenchmark {
    var recordCount = 1_000_000
    var batchSize = 2000
    var lookupCount = 10_000
    var rangeCount = 1000

    func run() throws {
        let directory = try TemporaryDirectory("bench-soup")
        defer { directory.remove() }
        print(
            "soup of \(recordCount) records (~1 KB, 4 indexes), \(batchSize) per transaction, durable commits, "
                + BenchmarkEncryption.label)

        let sqlite = try SQLiteSoupBaseline(path: directory.appending("smartstore.sqlite").path)
        let sqliteInsert = try insertAll { batch in try sqlite.insert(batch, modified: 1_700_000_000_000) }
        let syncedSQLiteInsert = try syncedSQLiteInsertSeconds()
        let soups = try makeSoupStore(directory)
        let soupInsert = try insertAll { batch in _ = try soups.create("accounts", batch) }
        print(
            String(
                format:
                    "insert  soups: %9.0f records/s   SQLite (GRDB, synchronous NORMAL): %9.0f records/s   ratio %.2f×",
                Double(recordCount) / soupInsert, Double(recordCount) / sqliteInsert, sqliteInsert / soupInsert))
        print(
            String(
                format:
                    "insert  soups: %9.0f records/s   SQLite (GRDB, synchronous FULL):   %9.0f records/s   ratio %.2f×",
                Double(recordCount) / soupInsert, Double(recordCount) / syncedSQLiteInsert,
                syncedSQLiteInsert / soupInsert))

        var probes = SplitMix64(seed: 99)
        var soupLookups = LatencySample()
        var sqliteLookups = LatencySample()
        for _ in 0..<lookupCount {
            let id = BenchmarkRecords.id(Int.random(in: 0..<recordCount, using: &probes))
            soupLookups.record(
                try measure { try soups.query(.exact("accounts", path: "Id", value: .string(id), pageSize: 1)) })
            sqliteLookups.record(try measure { try sqlite.lookup(id: id) })
        }
        print("exact lookup by Id   soups: \(soupLookups.summary)   SQLite: \(sqliteLookups.summary)")

        var soupRanges = LatencySample()
        var sqliteRanges = LatencySample()
        for _ in 0..<rangeCount {
            let low = Int64.random(in: 0..<10_000_000, using: &probes)
            soupRanges.record(
                try measure {
                    try soups.query(
                        .range(
                            "accounts", path: "AnnualRevenue", from: .number(JSONNumber(low)), to: nil,
                            orderPath: "AnnualRevenue", pageSize: 100))
                })
            sqliteRanges.record(try measure { try sqlite.rangePage(from: low) })
        }
        print("range page of 100    soups: \(soupRanges.summary)   SQLite: \(sqliteRanges.summary)")
        print(
            String(
                format: "store size   soups: %.1f MiB (journal and projections)   SQLite (GRDB): %.1f MiB",
                try Self.mebibytes(under: directory.appending("soups")),
                try Self.mebibytes(under: directory.appending("smartstore.sqlite"))
                    + Self.mebibytes(under: directory.appending("smartstore.sqlite-wal"))))
    }

    /// The insert into SQLite with every commit synced, like the journal's, in a store of its own.
    private func syncedSQLiteInsertSeconds() throws -> Double {
        let directory = try TemporaryDirectory("bench-soup-synced")
        defer { directory.remove() }
        let sqlite = try SQLiteSoupBaseline(path: directory.appending("smartstore.sqlite").path, syncsEveryCommit: true)
        return try insertAll { batch in try sqlite.insert(batch, modified: 1_700_000_000_000) }
    }

    /// The bytes of the files at or below `url` (the journal, the projections and their
    /// checkpoints for a store), in MiB; 0 when there is nothing there.
    static func mebibytes(under url: URL) throws -> Double {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return 0 }
        guard isDirectory.boolValue else {
            return Double((try manager.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0)
                / 1_048_576
        }
        return try manager.contentsOfDirectory(at: url, includingPropertiesForKeys: nil).reduce(0) { total, file in
            total + (try mebibytes(under: file))
        }
    }

    private func makeSoupStore(_ directory: TemporaryDirectory) throws -> SoupStore {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 8 << 30
        options = BenchmarkEncryption.applied(to: options)
        if CommandLine.arguments.contains("--keep-all-history") { options.retention = .unlimited }
        let clock = ManualWallClock(tick: .milliseconds(1))
        let journal = try Journal(
            directory: directory.appending("soups"), projections: [SoupProjection()], clock: clock, options: options,
            logger: Logger.discarding)
        let store = SoupStore(journal: journal, clock: clock, idGenerator: IncrementingIDGenerator())
        try store.registerSoup(
            "accounts",
            indexSpecs: BenchmarkRecords.indexedPaths.compactMap { path, type in
                IndexType(rawValue: type).map { IndexSpec(path: path, type: $0) }
            })
        return store
    }

    /// Generates the same records for both sides and returns the seconds spent storing them.
    private func insertAll(_ store: ([JSONValue]) throws -> Void) throws -> Double {
        var generator = SplitMix64(seed: 7)
        var seconds = 0.0
        var inserted = 0
        while inserted < recordCount {
            let count = min(batchSize, recordCount - inserted)
            let batch = (inserted..<inserted + count).map { BenchmarkRecords.record($0, using: &generator) }
            seconds += try measureSeconds { try store(batch) }
            inserted += count
        }
        return seconds
    }

    private func measure<T>(_ body: () throws -> T) throws -> Duration {
        let clock = ContinuousClock()
        var result: T?
        let elapsed = try clock.measure { result = try body() }
        _ = result
        return elapsed
    }

    private func measureSeconds(_ body: () throws -> Void) throws -> Double {
        let (seconds, attoseconds) = try measure(body).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
