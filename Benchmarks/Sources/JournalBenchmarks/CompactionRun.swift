import BenchmarkSupport
import Determinism
import EventJournal
import Logging
import LosslessJSON
import MobileSync
import SyncTesting
import Synchronization

/// One store of the compaction benchmark: its manual clock, the sync manager, and the server's
/// next batch of changed records.
final class CompactionRun {
    let soupCount: Int
    let shape: RecordShape
    let clock = ManualWallClock(tick: .milliseconds(1))
    let store: SyncStore
    let manager: SyncManager
    /// The records the "changed" target serves next, shared with the target the registry makes.
    private let changedRecords = ChangedRecords()
    private var generator = SplitMix64(seed: 11)
    private var sync: SyncState?

    init(
        soupCount: Int, shape: RecordShape = .lorem, directory: TemporaryDirectory, configuration: StoreConfiguration
    ) throws {
        self.soupCount = soupCount
        self.shape = shape
        var registry = SyncDownTargetRegistry()
        registry.register("generated") { _ in GeneratedTarget(count: soupCount, shape: shape) }
        let runs = Mutex(0)
        registry.register("changed") { [changedRecords] _ in
            let run = runs.withLock { count -> Int in
                count += 1
                return count
            }
            let records = changedRecords.value.withLock { $0 }
            return PreparedTarget(pages: [records.map { SyncDownBenchmark.edited($0, run: run) }])
        }
        store = try SyncDownBenchmark.makeStore(
            directory, clock: clock, configuration: configuration, indexSpecs: JournalSoupStore.indexSpecs)
        manager = try SyncManager(store: store, client: nil, targets: registry, clock: clock, logger: Logger.discarding)
    }

    /// The full sync of the soup.
    func fullSync() async throws {
        try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "generated")), soupName: "accounts")
    }

    /// One reSync of 100 newly changed records: its seconds, and the entries compaction removed during it.
    func reSync() async throws -> (seconds: Double, removed: UInt64) {
        let changed = (0..<SyncDownBenchmark.changedCount).map { _ in
            SyncDownBenchmark.record(
                Int.random(in: 0..<soupCount, using: &generator), shape: shape, using: &generator)
        }
        changedRecords.value.withLock { $0 = changed }
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
        let seconds = (ContinuousClock.now - start).inSeconds
        precondition(final.status == .done, "the benchmark reSync ends DONE: \(final.error)")
        return (seconds, try store.journal.horizon().firstSequence - horizonBefore)
    }

    /// A reference to the next changed records, so the registry's closure shares them with the run.
    private final class ChangedRecords: Sendable {
        let value = Mutex([JSONValue]())
    }
}
