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
import Synchronization

/// The sync-down engine's own cost, without HTTP: a custom target hands pages of ~1 KB records
/// (4 indexes) to `SyncManager`, which journals each page and folds it into the soup. Every
/// ``StoreConfiguration`` is measured in turn.
///
/// 1. Ingest: a full sync down of `recordCount` records, pre-generated, durable commits (skipped
///    when `recordCount` is 0), and the store's size after it.
/// 2. reSync: 100 changed records applied to soups of `smallSoupCount` and `largeSoupCount`
///    records (the median of `reSyncRepeatCount` runs each) and the ratio large / small; then
///    the same change on SmartStore's SQLite layout (skipped when `largeSoupCount` is 0).
///
/// With `measuresWithoutFsync` both run again without a sync per commit: the engine's own work,
/// apart from the disk's.
struct SyncDownBenchmark {
    var recordCount = 100_000
    var smallSoupCount = 10_000
    var largeSoupCount = 1_000_000
    var reSyncRepeatCount = 21
    static let pageSize = 2000
    /// Records per page in the ingest: Salesforce's REST pages hold at most 2,000, while a custom
    /// target may return more, and each page is one transaction.
    var ingestPageSize = pageSize
    /// Pages the ingest commits per transaction (`SyncManager(pagesPerCommit:)`).
    var ingestPagesPerCommit = 1
    var measuresWithoutFsync = false
    /// What the records look like (`--shape`).
    var shape = RecordShape.lorem
    var configurations = StoreConfiguration.allCases
    var report = Report()
    static let changedCount = 100

    var parameters: SyncDownFigures.Parameters {
        SyncDownFigures.Parameters(
            records: recordCount, pageSize: ingestPageSize, pagesPerCommit: ingestPagesPerCommit,
            smallSoup: smallSoupCount, largeSoup: largeSoupCount, reSyncRepeats: reSyncRepeatCount,
            reSyncChangedRecords: Self.changedCount, shape: shape)
    }

    func run() async throws -> SyncDownFigures {
        report.line(
            "sync down of \(shape.label) through an in-memory target, \(ingestPageSize) records per page and \(ingestPagesPerCommit)"
                + " page(s) per commit in the ingest")
        var generator = SplitMix64(seed: 7)
        let records = (0..<recordCount).map { Self.record($0, shape: shape, using: &generator) }
        let pages = stride(from: 0, to: records.count, by: ingestPageSize).map {
            Array(records[$0..<min($0 + ingestPageSize, records.count)])
        }
        var figures = SyncDownFigures(parameters: parameters)
        figures.durable = try await measure(pages, durable: true)
        if measuresWithoutFsync {
            figures.withoutFsync = try await measure(pages, durable: false)
        }
        if largeSoupCount > 0 {
            // The same change on SmartStore's SQLite layout, its WAL synced at every commit.
            let small = try SQLiteSoupBaseline.reSyncSeconds(
                soupCount: smallSoupCount, shape: shape, syncsEveryCommit: true, repeatCount: reSyncRepeatCount)
            let large = try SQLiteSoupBaseline.reSyncSeconds(
                soupCount: largeSoupCount, shape: shape, syncsEveryCommit: true, repeatCount: reSyncRepeatCount)
            figures.durable.addReSync(SoupFigures.sqliteFull, small: small, large: large)
            report.line(
                String(
                    format: "SQLite synchronous FULL: reSync of %d changed records, soup of %d p50 %.2f ms, "
                        + "soup of %d p50 %.2f ms, ratio %.2f",
                    Self.changedCount, smallSoupCount, small * 1000, largeSoupCount, large * 1000, large / small))
        }
        return figures
    }

    /// Every configuration's ingest and reSyncs, with or without a sync per commit.
    private func measure(_ pages: [[JSONValue]], durable: Bool) async throws -> SyncDownMeasures {
        var measures = SyncDownMeasures()
        for configuration in configurations {
            let key = configuration.rawValue
            report.line("\(configuration.label)\(durable ? ", durable commits" : ", no fsync per commit")")
            if recordCount > 0 {
                let (seconds, bytes) = try await ingest(pages, configuration: configuration, durable: durable)
                measures.ingest[key] = (Double(recordCount) / seconds).rounded(decimals: 0)
                measures.storeBytesAfterIngest[key] = bytes
                report.line(
                    String(
                        format: "  ingest %d records: %.2f s, %9.0f records/s; store %@", recordCount, seconds,
                        Double(recordCount) / seconds, DirectorySize.mebibytes(bytes)))
            }
            guard largeSoupCount > 0 else { continue }
            let small = try await reSync(soupCount: smallSoupCount, configuration: configuration, durable: durable)
            let large = try await reSync(soupCount: largeSoupCount, configuration: configuration, durable: durable)
            measures.addReSync(key, small: small.seconds, large: large.seconds)
            measures.stateAppendSmallP50Millis[key] = (small.appendSeconds * 1000).rounded(decimals: 2)
            measures.stateAppendLargeP50Millis[key] = (large.appendSeconds * 1000).rounded(decimals: 2)
            for (count, measured) in [(smallSoupCount, small), (largeSoupCount, large)] {
                report.line(
                    String(
                        format: "  reSync of %d changed records, soup of %d: p50 %.2f ms (one state-entry append "
                            + "p50 %.2f ms)", Self.changedCount, count, measured.seconds * 1000,
                        measured.appendSeconds * 1000))
            }
            report.line(String(format: "  reSync cost ratio (large / small): %.2f", large.seconds / small.seconds))
        }
        measures.computeEncryptionOverhead()
        if let overhead = measures.ingestEncryptionOverheadPercent {
            report.line(
                String(format: "ingest encryption overhead: %+.1f %% time (encrypted over plaintext)", overhead))
        }
        return measures
    }

    /// The full sync down of `pages`: its seconds, and the store's bytes after it.
    private func ingest(_ pages: [[JSONValue]], configuration: StoreConfiguration, durable: Bool) async throws -> (
        Double, Int
    ) {
        let directory = try TemporaryDirectory("bench-syncdown")
        defer { directory.remove() }
        var registry = SyncDownTargetRegistry()
        registry.register("all") { _ in PreparedTarget(pages: pages) }
        let manager = try makeManager(
            directory, registry, configuration: configuration, durable: durable, pagesPerCommit: ingestPagesPerCommit)
        let start = ContinuousClock.now
        let final = try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "all")), soupName: "accounts")
        let seconds = (ContinuousClock.now - start).inSeconds
        precondition(final.status == .done, "the benchmark sync ends DONE: \(final.error)")
        return (seconds, try DirectorySize.bytes(under: directory.appending("store")))
    }

    /// The median reSync of 100 changed records on a soup of `soupCount`, and the median of one
    /// state entry appended alone after each.
    private func reSync(soupCount: Int, configuration: StoreConfiguration, durable: Bool) async throws -> (
        seconds: Double, appendSeconds: Double
    ) {
        let directory = try TemporaryDirectory("bench-resync")
        defer { directory.remove() }
        var registry = SyncDownTargetRegistry()
        registry.register("generated") { [shape] _ in GeneratedTarget(count: soupCount, shape: shape) }
        var generator = SplitMix64(seed: 11)
        let changed = (0..<Self.changedCount).map { _ in
            Self.record(Int.random(in: 0..<soupCount, using: &generator), shape: shape, using: &generator)
        }
        // Each run brings a new edit of the records: a reSync of records fetched again unchanged
        // writes nothing (decision 0321), and that is not what this measures.
        let runs = Mutex(0)
        registry.register("changed") { _ in
            let run = runs.withLock { count -> Int in
                count += 1
                return count
            }
            return PreparedTarget(pages: [changed.map { Self.edited($0, run: run) }])
        }
        let manager = try makeManager(directory, registry, configuration: configuration, durable: durable)
        try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "generated")), soupName: "accounts")
        let sync = try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "changed")), soupName: "accounts")
        var samples: [Double] = []
        var appendSamples: [Double] = []
        for _ in 0..<reSyncRepeatCount {
            let start = ContinuousClock.now
            let final = try await manager.reSync(id: sync.id)
            samples.append((ContinuousClock.now - start).inSeconds)
            precondition(final.status == .done, "the benchmark reSync ends DONE: \(final.error)")
            let appendStart = ContinuousClock.now
            try manager.store.journal.append(final.changedEntryDraft)
            appendSamples.append((ContinuousClock.now - appendStart).inSeconds)
        }
        return (samples.sorted()[samples.count / 2], appendSamples.sorted()[appendSamples.count / 2])
    }

    private func makeManager(
        _ directory: TemporaryDirectory, _ registry: SyncDownTargetRegistry, configuration: StoreConfiguration,
        durable: Bool, pagesPerCommit: Int = 1
    ) throws -> SyncManager {
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try Self.makeStore(
            directory, clock: clock, configuration: configuration, durable: durable,
            indexSpecs: JournalSoupStore.indexSpecs)
        return try SyncManager(
            store: store, client: nil, targets: registry, clock: clock, logger: Logger.discarding,
            pagesPerCommit: pagesPerCommit)
    }

    /// A store with an `accounts` soup and an 8 GiB map, opened with `configuration`, and durable
    /// commits unless told otherwise.
    static func makeStore(
        _ directory: TemporaryDirectory, clock: ManualWallClock, configuration: StoreConfiguration,
        durable: Bool = true, indexSpecs: [IndexSpec]
    ) throws -> SyncStore {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 8 << 30
        options.environment.flushesOnCommit = durable
        options = try configuration.applied(to: options)
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            options: options, logger: Logger.discarding)
        try store.soups.registerSoup("accounts", indexSpecs: indexSpecs)
        return store
    }

    /// A benchmark record of `shape` with a modification date that grows with `index`, so pages
    /// carry a watermark (an org-shaped record's own `LastModifiedDate` is replaced).
    static func record(_ index: Int, shape: RecordShape = .lorem, using generator: inout SplitMix64) -> JSONValue {
        guard case .object(var fields) = shape.record(index, using: &generator) else { return .null }
        fields["LastModifiedDate"] = .string(
            WallTime(millisecondsSinceEpoch: 1_700_000_000_000 + Int64(index)).salesforceFormat)
        return .object(fields)
    }

    /// `record` as the `run`th edit on the server: a new name and a later modification date.
    static func edited(_ record: JSONValue, run: Int) -> JSONValue {
        guard case .object(var fields) = record else { return record }
        fields["Name"] = .string("Edit \(run)")
        fields["LastModifiedDate"] = .string(
            WallTime(millisecondsSinceEpoch: 1_800_000_000_000 + Int64(run) * 1000).salesforceFormat)
        return .object(fields)
    }
}
