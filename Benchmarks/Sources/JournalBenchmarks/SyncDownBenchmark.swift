import Determinism
import EventJournal
import Foundation
import Logging
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Synchronization

/// The sync-down engine's own cost, without HTTP: a custom target hands pages of ~1 KB records
/// (4 indexes) to `SyncManager`, which journals each page and folds it into the soup.
///
/// 1. Ingest: a full sync down of `recordCount` records, pages of 2,000, pre-generated, with
///    durable commits and without fsync (skipped when `recordCount` is 0).
/// 2. reSync: 100 changed records applied to soups of `smallSoupCount` and `largeSoupCount`
///    records (the median of `reSyncRepeatCount` runs each), and the ratio large / small, with
///    durable commits and again without fsync (skipped when `largeSoupCount` is 0).
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
    static let changedCount = 100

    func run() async throws {
        print(
            "sync down through an in-memory target, \(ingestPageSize) records per page and \(ingestPagesPerCommit)"
                + " page(s) per commit in the ingest, durable commits, \(BenchmarkEncryption.label)")
        if recordCount > 0 { try await runIngest() }
        // Without fsync as well: the ratio of the engine's own work, apart from the disk's
        // random writes (docs/benchmarks.md).
        for durable in [true, false] where largeSoupCount > 0 {
            let label = durable ? "" : ", no fsync per commit"
            let small = try await reSyncSeconds(soupCount: smallSoupCount, durable: durable)
            let large = try await reSyncSeconds(soupCount: largeSoupCount, durable: durable)
            print(
                String(
                    format: "reSync of %d changed records%@, soup of %d: p50 %.2f ms", Self.changedCount, label,
                    smallSoupCount, small * 1000))
            print(
                String(
                    format: "reSync of %d changed records%@, soup of %d: p50 %.2f ms", Self.changedCount, label,
                    largeSoupCount, large * 1000))
            print(String(format: "reSync cost ratio (large / small)%@: %.2f", label, large / small))
        }
        if largeSoupCount > 0 {
            // The same change on SmartStore's SQLite layout, its WAL synced at every commit.
            let small = try SQLiteSoupBaseline.reSyncSeconds(
                soupCount: smallSoupCount, syncsEveryCommit: true, repeatCount: reSyncRepeatCount)
            let large = try SQLiteSoupBaseline.reSyncSeconds(
                soupCount: largeSoupCount, syncsEveryCommit: true, repeatCount: reSyncRepeatCount)
            print(
                String(
                    format: "reSync of %d changed records, SQLite synchronous FULL: soup of %d p50 %.2f ms, "
                        + "soup of %d p50 %.2f ms, ratio %.2f",
                    Self.changedCount, smallSoupCount, small * 1000, largeSoupCount, large * 1000, large / small))
        }
    }

    private func runIngest() async throws {
        let ingest = try await ingestSeconds(durable: true)
        print(
            String(
                format: "ingest  %d records: %.2f s, %9.0f records/s", recordCount, ingest, Double(recordCount) / ingest
            ))
        let buffered = try await ingestSeconds(durable: false)
        print(
            String(
                format: "ingest  %d records, no fsync per commit: %.2f s, %9.0f records/s", recordCount, buffered,
                Double(recordCount) / buffered))
    }

    private func ingestSeconds(durable: Bool) async throws -> Double {
        let directory = try TemporaryDirectory("bench-syncdown")
        defer { directory.remove() }
        var generator = SplitMix64(seed: 7)
        let records = (0..<recordCount).map { Self.record($0, using: &generator) }
        let pages = stride(from: 0, to: records.count, by: ingestPageSize).map {
            Array(records[$0..<min($0 + ingestPageSize, records.count)])
        }
        var registry = SyncDownTargetRegistry()
        registry.register("all") { _ in PreparedTarget(pages: pages) }
        let manager = try makeManager(directory, registry, durable: durable, pagesPerCommit: ingestPagesPerCommit)
        let start = ContinuousClock.now
        let final = try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "all")), soupName: "accounts")
        let seconds = Self.seconds(ContinuousClock.now - start)
        precondition(final.status == .done, "the benchmark sync ends DONE: \(final.error)")
        return seconds
    }

    private func reSyncSeconds(soupCount: Int, durable: Bool) async throws -> Double {
        let directory = try TemporaryDirectory("bench-resync")
        defer { directory.remove() }
        var registry = SyncDownTargetRegistry()
        registry.register("generated") { _ in GeneratedTarget(count: soupCount) }
        var generator = SplitMix64(seed: 11)
        let changed = (0..<Self.changedCount).map { _ in
            Self.record(Int.random(in: 0..<soupCount, using: &generator), using: &generator)
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
        let manager = try makeManager(directory, registry, durable: durable)
        try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "generated")), soupName: "accounts")
        let sync = try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "changed")), soupName: "accounts")
        var samples: [Double] = []
        var appendSamples: [Double] = []
        for _ in 0..<reSyncRepeatCount {
            let start = ContinuousClock.now
            let final = try await manager.reSync(id: sync.id)
            samples.append(Self.seconds(ContinuousClock.now - start))
            precondition(final.status == .done, "the benchmark reSync ends DONE: \(final.error)")
            // One state entry alone: what a durable append costs on this store, for comparison.
            let appendStart = ContinuousClock.now
            try manager.store.journal.append(final.changedEntryDraft)
            appendSamples.append(Self.seconds(ContinuousClock.now - appendStart))
        }
        let append = appendSamples.sorted()[appendSamples.count / 2]
        print(
            String(
                format: "  soup of %d%@: one state-entry append p50 %.2f ms", soupCount,
                durable ? "" : ", no fsync", append * 1000))
        return samples.sorted()[samples.count / 2]
    }

    private func makeManager(
        _ directory: TemporaryDirectory, _ registry: SyncDownTargetRegistry, durable: Bool = true,
        pagesPerCommit: Int = 1
    ) throws -> SyncManager {
        let clock = ManualWallClock(tick: .milliseconds(1))
        let store = try Self.makeStore(
            directory, clock: clock, durable: durable,
            indexSpecs: BenchmarkRecords.indexedPaths.compactMap { path, type in
                IndexType(rawValue: type).map { IndexSpec(path: path, type: $0) }
            })
        return try SyncManager(
            store: store, client: nil, targets: registry, clock: clock, logger: Logger.discarding,
            pagesPerCommit: pagesPerCommit)
    }

    /// A store with an `accounts` soup, an 8 GiB map, and durable commits unless told otherwise.
    static func makeStore(
        _ directory: TemporaryDirectory, clock: ManualWallClock, durable: Bool = true, indexSpecs: [IndexSpec]
    ) throws -> SyncStore {
        var options = JournalOptions()
        options.environment.mapSizeBytes = 8 << 30
        options.environment.flushesOnCommit = durable
        options = BenchmarkEncryption.applied(to: options)
        if CommandLine.arguments.contains("--keep-all-history") { options.retention = .unlimited }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            options: options, logger: Logger.discarding)
        try store.soups.registerSoup("accounts", indexSpecs: indexSpecs)
        return store
    }

    /// A benchmark record with a modification date, so pages carry a watermark.
    static func record(_ index: Int, using generator: inout SplitMix64) -> JSONValue {
        guard case .object(var fields) = BenchmarkRecords.record(index, using: &generator) else { return .null }
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

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Serves pages generated before the run.
struct PreparedTarget: SyncDownTarget {
    var pages: [[JSONValue]]
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    var isSortedByModificationDate: Bool { true }
    private(set) var totalSize: Int64 = -1

    init(pages: [[JSONValue]]) {
        self.pages = pages
    }

    mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        totalSize = Int64(pages.reduce(0) { $0 + $1.count })
        return pages.isEmpty ? [] : pages.removeFirst()
    }

    mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        pages.isEmpty ? nil : pages.removeFirst()
    }

    func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        Set(pages.joined().compactMap { $0["Id"]?.string })
    }
}

/// Generates `count` records page by page, to fill large soups without holding them in memory.
struct GeneratedTarget: SyncDownTarget {
    let count: Int
    private var next = 0
    private var generator = SplitMix64(seed: 7)
    var idFieldName: String { "Id" }
    var modificationDateFieldName: String { "LastModifiedDate" }
    var isSortedByModificationDate: Bool { true }
    var totalSize: Int64 { Int64(count) }

    init(count: Int) {
        self.count = count
    }

    mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
        try await continueFetch(context) ?? []
    }

    mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
        guard next < count else { return nil }
        let end = min(next + SyncDownBenchmark.pageSize, count)
        defer { next = end }
        return (next..<end).map { SyncDownBenchmark.record($0, using: &generator) }
    }

    func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
        Set(localIds)
    }
}
