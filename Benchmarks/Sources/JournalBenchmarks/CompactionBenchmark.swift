import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import GRDB
import Logging
import MobileSync
import Soups
import SyncTesting
import Synchronization

/// Bounded disk: a full sync of `soupCount` records, then `reSyncCount` reSyncs of 100 changed
/// records, one every `minutesBetween` minutes of a manual clock, with durable commits, for each
/// ``StoreConfiguration``. Prints the store's size (journal, projections and checkpoints) after
/// the full sync and every `reportEvery` reSyncs, the same soup's size in SQLite, and what the
/// reSyncs that compacted cost beyond the median reSync, per entry removed.
struct CompactionBenchmark {
    var soupCount = 10_000
    var reSyncCount = 1_000
    var minutesBetween = 5
    var reportEvery = 100
    /// What the records look like (`--shape`).
    var shape = RecordShape.lorem
    var configurations = StoreConfiguration.allCases
    var report = Report()

    func run() async throws -> CompactionFigures {
        report.line(
            "compaction: soup of \(soupCount) \(shape.label), \(reSyncCount) reSyncs of \(SyncDownBenchmark.changedCount) changed "
                + "records every \(minutesBetween) min, durable commits")
        var figures = CompactionFigures(
            parameters: CompactionFigures.Parameters(
                soupRecords: soupCount, reSyncs: reSyncCount, minutesBetween: minutesBetween,
                reSyncChangedRecords: SyncDownBenchmark.changedCount, shape: shape))
        figures.sqliteBytes = try Self.sqliteBytes(soupCount: soupCount, shape: shape)
        report.line("the same soup in SQLite: \(DirectorySize.mebibytes(figures.sqliteBytes))")
        for configuration in configurations {
            report.line(configuration.label)
            try await measure(configuration, into: &figures)
        }
        if let plain = figures.storeBytesFinal[StoreConfiguration.default.rawValue],
            let unlimited = figures.storeBytesFinal[StoreConfiguration.unlimited.rawValue]
        {
            figures.finalDefaultOverUnlimited = (Double(plain) / Double(unlimited)).rounded(decimals: 2)
            report.line(
                String(format: "final store, app default / unlimited history: %.2f×", Double(plain) / Double(unlimited))
            )
        }
        return figures
    }

    /// One configuration's run, filed into `figures`.
    private func measure(_ configuration: StoreConfiguration, into figures: inout CompactionFigures) async throws {
        let directory = try TemporaryDirectory("bench-compaction")
        defer { directory.remove() }
        let run = try CompactionRun(
            soupCount: soupCount, shape: shape, directory: directory, configuration: configuration)
        try await run.fullSync()
        let baseline = try Self.storeBytes(run.store)
        report.line("  after the full sync: \(Self.describe(baseline))")
        var samples: [(seconds: Double, removed: UInt64)] = []
        var largest = baseline.total
        var every: [Int] = []
        for round in stride(from: 1, through: reSyncCount, by: 1) {
            run.clock.advance(by: .seconds(60 * minutesBetween))
            samples.append(try await run.reSync())
            let size = try Self.storeBytes(run.store)
            largest = max(largest, size.total)
            guard reportEvery > 0, round % reportEvery == 0 else { continue }
            every.append(size.total)
            report.line(
                String(
                    format: "  after %4d reSyncs: %@, %.2f× the full sync's, %.2f× SQLite's", round,
                    Self.describe(size), Double(size.total) / Double(baseline.total),
                    Double(size.total) / Double(figures.sqliteBytes)))
        }
        let key = configuration.rawValue
        figures.storeBytesAfterFullSync[key] = baseline.total
        figures.storeBytesLargest[key] = largest
        figures.storeBytesFinal[key] = try Self.storeBytes(run.store).total
        figures.storeBytesEvery[key] = every
        figures.largestOverFullSync[key] = (Double(largest) / Double(baseline.total)).rounded(decimals: 2)
        figures.largestOverSQLite[key] = (Double(largest) / Double(figures.sqliteBytes)).rounded(decimals: 2)
        fileCompactionCost(samples, key: key, into: &figures)
    }

    /// The median reSync, and what the compacting ones cost beyond it per entry removed.
    private func fileCompactionCost(
        _ samples: [(seconds: Double, removed: UInt64)], key: String, into figures: inout CompactionFigures
    ) {
        guard !samples.isEmpty else { return }
        let median = samples.map(\.seconds).sorted()[samples.count / 2]
        let compacting = samples.filter { $0.removed > 0 }
        let removed = compacting.reduce(UInt64(0)) { $0 + $1.removed }
        let extra = compacting.reduce(0.0) { $0 + max(0, $1.seconds - median) }
        figures.reSyncP50Millis[key] = (median * 1000).rounded(decimals: 2)
        figures.compactions[key] = compacting.count
        figures.entriesRemoved[key] = Int(removed)
        if removed > 0 {
            figures.compactionMillisPerEntryRemoved[key] = (extra / Double(removed) * 1000).rounded(decimals: 3)
        }
        report.line(
            String(
                format: "  reSync p50 %.2f ms; %d reSyncs compacted, removing %llu entries, %.1f ms beyond the "
                    + "median in all: %@", median * 1000, compacting.count, removed, extra * 1000,
                removed > 0
                    ? String(format: "%.1f µs per entry removed", extra / Double(removed) * 1e6)
                    : "nothing compacted"))
    }

    struct StoreBytes {
        var journal: Int
        var projections: Int
        var checkpoints: Int
        /// The anchor's file, counted in ``checkpoints``.
        var anchor: Int
        /// How many checkpoint copies ``checkpoints`` holds beside the anchor.
        var checkpointCount: Int
        var live: Int
        var total: Int { journal + projections + checkpoints }
    }

    static func storeBytes(_ store: SyncStore) throws -> StoreBytes {
        let statistics = try store.journal.statistics()
        return StoreBytes(
            journal: statistics.journalFileBytes, projections: statistics.projectionFileBytes,
            checkpoints: statistics.checkpointBytes, anchor: statistics.anchorBytes,
            checkpointCount: statistics.checkpointSequences.count, live: statistics.liveBytes)
    }

    static func describe(_ size: StoreBytes) -> String {
        "\(mib(size.total)) MiB (journal \(mib(size.journal)), projections \(mib(size.projections)), checkpoints "
            + "\(mib(size.checkpoints)): anchor \(mib(size.anchor)) and \(size.checkpointCount) "
            + "\(size.checkpointCount == 1 ? "copy" : "copies"); live \(mib(size.live)))"
    }

    static func mib(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }

    /// The soup's size in SmartStore's SQLite layout: the database and its WAL after a checkpoint.
    static func sqliteBytes(soupCount: Int, shape: RecordShape) throws -> Int {
        let directory = try TemporaryDirectory("bench-compaction-sqlite")
        defer { directory.remove() }
        let sqlite = try SQLiteSoupBaseline(path: directory.appending("soups.sqlite").path, syncsEveryCommit: true)
        var generator = SplitMix64(seed: 7)
        for start in stride(from: 0, to: soupCount, by: 2_000) {
            try sqlite.insert(
                (start..<min(start + 2_000, soupCount)).map {
                    SyncDownBenchmark.record($0, shape: shape, using: &generator)
                },
                modified: 1)
        }
        try sqlite.queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return sqlite.fileBytes()
    }
}
