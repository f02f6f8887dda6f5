import Determinism
import EventJournal
import Foundation
import Logging
import MobileSync
import Soups
import SyncTesting

/// The fold of record-edit entries alone: a `SyncStore` of `recordCount` records created 100
/// per entry, then one local edit per entry up to `entryCount` entries, folded again in place
/// (`Journal.rebuild`). Give `--store DIR` to keep the built store and reuse it, so a profiler
/// (`valgrind --tool=callgrind --toggle-collect='*rebuild*'`) sees only the fold.
struct FoldBenchmark {
    var entryCount = 1_000_000
    var recordCount = 10_000
    var storeDirectory: URL?
    /// Records of about 1 KB with four indexes (the soup benchmark's) instead of small ones with two.
    var wideRecords = false

    func run() throws {
        let scratch = try TemporaryDirectory("bench-fold")
        defer { scratch.remove() }
        let directory = storeDirectory ?? scratch.appending("store")
        var options = JournalOptions()
        options.environment.mapSizeBytes = 16 << 30
        options.environment.flushesOnCommit = false
        options.checkpoints.isEnabled = false
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try SyncStore(
            directory: directory, clock: clock, idGenerator: IncrementingIDGenerator(), options: options,
            logger: Logger.discarding)
        if try store.journal.lastSequence() == 0 {
            try build(store)
        }
        let last = try store.journal.lastSequence()
        var cpuSeconds = 0.0
        let wall = try ContinuousClock().measure {
            cpuSeconds = try threadCPUSeconds { try store.journal.rebuild() }
        }
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        print(
            "fold of \(last) entries: \(wall), \(Int(Double(last) / wallSeconds)) entries/s; "
                + "CPU \(String(format: "%.2f", cpuSeconds)) s, \(Int(Double(last) / cpuSeconds)) entries per CPU second"
        )
    }

    private func build(_ store: SyncStore) throws {
        var generator = SplitMix64(seed: 3)
        if wideRecords {
            try store.soups.registerSoup(
                "accounts",
                indexSpecs: BenchmarkRecords.indexedPaths.map {
                    IndexSpec(path: $0.0, type: IndexType(rawValue: $0.1)!)
                })
        } else {
            try store.soups.registerSoup(
                "accounts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "Name", type: .string)])
        }
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
