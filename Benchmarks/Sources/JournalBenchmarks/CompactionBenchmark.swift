import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Synchronization

/// Bounded disk under the default retention policy: a full sync of `soupCount` records, then
/// `reSyncCount` reSyncs of 100 changed records, one every `minutesBetween` minutes of a manual
/// clock, with durable commits. Prints the store's size (journal, projections and checkpoints)
/// after the full sync and after every 100 reSyncs, the same soup's size in SQLite, and what
/// the reSyncs that compacted cost beyond the median reSync, per entry removed.
struct CompactionBenchmark {
    var soupCount = 10_000
    var reSyncCount = 1_000
    var minutesBetween = 5

    func run() async throws {
        let directory = try TemporaryDirectory("bench-compaction")
        defer { directory.remove() }
        let clock = ManualWallClock(tick: .milliseconds(1))
        var registry = SyncDownTargetRegistry()
        registry.register("generated") { _ in GeneratedTarget(count: soupCount) }
        var generator = SplitMix64(seed: 11)
        let runs = Mutex(0)
        let changedRecords = Mutex([JSONValue]())
        registry.register("changed") { _ in
            let run = runs.withLock { count -> Int in
                count += 1
                return count
            }
            return PreparedTarget(pages: [changedRecords.withLock { $0 }.map { SyncDownBenchmark.edited($0, run: run) }]
            )
        }
        let store = try SyncDownBenchmark.makeStore(
            directory, clock: clock,
            indexSpecs: BenchmarkRecords.indexedPaths.compactMap { path, type in
                IndexType(rawValue: type).map { IndexSpec(path: path, type: $0) }
            })
        let manager = try SyncManager(
            store: store, client: nil, targets: registry, clock: clock, logger: Logger.discarding)
        print(
            "compaction: soup of \(soupCount), \(reSyncCount) reSyncs of \(SyncDownBenchmark.changedCount) changed "
                + "records every \(minutesBetween) min, default policy (\(RetentionPolicy.appDefault)), durable commits"
        )
        try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "generated")), soupName: "accounts")
        let baseline = try Self.storeBytes(store)
        let sqliteBytes = try Self.sqliteBytes(soupCount: soupCount)
        print(
            "after the full sync: \(Self.describe(baseline)); the same soup in SQLite: \(Self.mib(sqliteBytes)) MiB")
        var sync: SyncState?
        var samples: [(seconds: Double, removed: UInt64)] = []
        var largest = baseline.total
        for round in 1...reSyncCount {
            changedRecords.withLock { records in
                records = (0..<SyncDownBenchmark.changedCount).map { _ in
                    SyncDownBenchmark.record(Int.random(in: 0..<soupCount, using: &generator), using: &generator)
                }
            }
            clock.advance(by: .seconds(60 * minutesBetween))
            let horizonBefore = try store.journal.horizon().firstSequence
            let start = ContinuousClock.now
            let final: SyncState
            if let sync {
                final = try await manager.reSync(id: sync.id)
            } else {
                final = try await manager.syncDown(
                    target: try SyncDownTargetDescriptor(.custom(registryKey: "changed")), soupName: "accounts")
                sync = final
            }
            let seconds = SyncDownBenchmark.seconds(ContinuousClock.now - start)
            precondition(final.status == .done, "the benchmark reSync ends DONE: \(final.error)")
            let removed = try store.journal.horizon().firstSequence - horizonBefore
            samples.append((seconds, removed))
            let size = try Self.storeBytes(store)
            largest = max(largest, size.total)
            if round % 100 == 0 {
                print(
                    String(
                        format: "after %4d reSyncs: %@, %.2fx the full sync's, %.2fx SQLite's", round,
                        Self.describe(size), Double(size.total) / Double(baseline.total),
                        Double(size.total) / Double(sqliteBytes)))
            }
        }
        let median = samples.map(\.seconds).sorted()[samples.count / 2]
        let compacting = samples.filter { $0.removed > 0 }
        let removed = compacting.reduce(UInt64(0)) { $0 + $1.removed }
        let extra = compacting.reduce(0.0) { $0 + max(0, $1.seconds - median) }
        print(
            String(
                format: "largest size: %.2fx the full sync's; reSync p50 %.2f ms; %d reSyncs compacted, removing "
                    + "%llu entries, %.1f ms beyond the median in all: %.1f µs per entry removed",
                Double(largest) / Double(baseline.total), median * 1000, compacting.count, removed, extra * 1000,
                removed > 0 ? extra / Double(removed) * 1e6 : 0))
    }

    struct StoreBytes {
        var journal: Int
        var projections: Int
        var checkpoints: Int
        var live: Int
        var total: Int { journal + projections + checkpoints }
    }

    static func storeBytes(_ store: SyncStore) throws -> StoreBytes {
        let statistics = try store.journal.statistics()
        return StoreBytes(
            journal: statistics.journalFileBytes, projections: statistics.projectionFileBytes,
            checkpoints: statistics.checkpointBytes, live: statistics.liveBytes)
    }

    static func describe(_ size: StoreBytes) -> String {
        "\(mib(size.total)) MiB (journal \(mib(size.journal)), projections \(mib(size.projections)), checkpoints "
            + "\(mib(size.checkpoints)); live \(mib(size.live)))"
    }

    static func mib(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }

    /// The soup's size in SmartStore's SQLite layout: the database and its WAL after a checkpoint.
    static func sqliteBytes(soupCount: Int) throws -> Int {
        let directory = try TemporaryDirectory("bench-compaction-sqlite")
        defer { directory.remove() }
        let path = directory.appending("soups.sqlite").path
        let sqlite = try SQLiteSoupBaseline(path: path, syncsEveryCommit: true)
        var generator = SplitMix64(seed: 7)
        for start in stride(from: 0, to: soupCount, by: 2_000) {
            try sqlite.insert(
                (start..<min(start + 2_000, soupCount)).map { SyncDownBenchmark.record($0, using: &generator) },
                modified: 1)
        }
        try sqlite.queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return ["", "-wal"].reduce(0) { total, suffix in
            total
                + (((try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? NSNumber)?.intValue
                    ?? 0)
        }
    }
}
