import BenchmarkSupport
import Determinism
import EventJournal
import Foundation
import LMDBStore
import Logging
import LosslessJSON
import MobileSync
import Soups
import SyncTesting

/// The fold of record-edit entries alone: a `SyncStore` of `recordCount` records created 100
/// per entry, then one local edit per entry up to `entryCount` entries, folded again in place
/// (`Journal.rebuild`), for each ``StoreConfiguration``. Give `--store DIR` to keep the built
/// stores and reuse them, so a profiler (`valgrind --tool=callgrind --toggle-collect='*rebuild*'`)
/// sees only the fold.
///
/// Only unlimited history keeps every entry; under the default retention the rebuild folds what
/// compaction left, and the figures say how many entries that was.
struct FoldBenchmark {
    var entryCount = 1_000_000
    var recordCount = 10_000
    var storeDirectory: URL?
    /// Records of about 1 KB with four indexes (the soup benchmark's) instead of small ones with two.
    var wideRecords = false
    /// Entries folded per projections transaction.
    var batchSize = JournalOptions().rebuildBatchSize
    var configurations = StoreConfiguration.allCases
    var report = Report()

    func run() throws -> FoldFigures {
        var figures = FoldFigures(
            parameters: FoldFigures.Parameters(
                entries: entryCount, records: recordCount, wideRecords: wideRecords, batchSize: batchSize))
        let scratch = try TemporaryDirectory("bench-fold")
        defer { scratch.remove() }
        for configuration in configurations {
            let directory = (storeDirectory ?? scratch.url).appendingPathComponent(configuration.rawValue)
            try measure(configuration, directory: directory, into: &figures)
        }
        return figures
    }

    private func measure(_ configuration: StoreConfiguration, directory: URL, into figures: inout FoldFigures) throws {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 16 << 30
        options.environment.flushesOnCommit = false
        options.checkpoints.isEnabled = false
        options.rebuildBatchSize = batchSize
        options = try configuration.applied(to: options)
        let store = try SyncStore(
            directory: directory, clock: ManualWallClock(tick: .milliseconds(1)),
            idGenerator: IncrementingIDGenerator(), options: options, logger: Logger.discarding)
        if try store.journal.lastSequence() == 0 {
            try build(store)
        }
        let last = try store.journal.lastSequence()
        let horizon = try store.journal.horizon()
        var folded: UInt64 = 0
        var cpuSeconds = 0.0
        let wall = try ContinuousClock().measure {
            cpuSeconds = try processCPUSeconds { try store.journal.rebuild { done, _ in folded = done } }
        }
        let key = configuration.rawValue
        figures.journalEntries[key] = Int(last)
        figures.entriesFolded[key] = Int(folded)
        figures.seconds[key] = wall.inSeconds.rounded(decimals: 3)
        figures.entriesPerSecond[key] = (Double(folded) / wall.inSeconds).rounded(decimals: 0)
        figures.entriesPerCPUSecond[key] = (Double(folded) / cpuSeconds).rounded(decimals: 0)
        report.line(configuration.label)
        report.line(
            horizon.isCompacted
                ? "  compaction kept entries \(horizon.firstSequence)...\(last) of \(last): the rebuild restores the "
                    + "horizon's checkpoint, then folds what is left"
                : "  nothing compacted: the rebuild folds all \(last) entries")
        report.line(
            "  fold of \(folded) entries, \(batchSize) per transaction: \(wall), "
                + "\(Int(Double(folded) / wall.inSeconds)) entries/s; "
                + "CPU \(String(format: "%.2f", cpuSeconds)) s, \(Int(Double(folded) / cpuSeconds)) entries per CPU second"
        )
    }

    private func build(_ store: SyncStore) throws {
        var generator = SplitMix64(seed: 3)
        try store.soups.registerSoup(
            "accounts",
            indexSpecs: wideRecords
                ? JournalSoupStore.indexSpecs
                : [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
        for batch in stride(from: 0, to: recordCount, by: 100) {
            _ = try store.soups.create(
                "accounts",
                (batch..<batch + 100).map { index in
                    wideRecords
                        ? BenchmarkRecords.record(index, using: &generator)
                        : ["Id": .string("001\(index)"), "Name": .string("Account \(index)")]
                })
        }
        while try store.journal.lastSequence() < UInt64(entryCount) {
            _ = try store.soups.updateLocally(
                "accounts", entryId: Int64.random(in: 1...Int64(recordCount), using: &generator),
                changes: ["Name": .string("Edit \(generator.next() % 1000)")])
        }
    }
}
