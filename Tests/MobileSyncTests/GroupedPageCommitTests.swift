import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import Soups
import SyncTesting
import Testing

/// `SyncManager(pagesPerCommit:)`: fetched pages committed several to a transaction, each still
/// its own entry, fold and report exactly as pages committed one by one.
@Suite struct GroupedPageCommitTests {
    static let soup = "accounts"

    /// The manager a target stops, set once the manager exists.
    final class ManagerBox: Sendable {
        let manager = Recorder<SyncManager>()
    }

    /// Serves fixed pages and notes, at each fetch, how many page entries the journal holds; it
    /// fails the fetch numbered `failingFetch` (counting from 1), and stops the manager during
    /// the fetch numbered `stoppingFetch`, if any.
    struct WatchingTarget: SyncDownTarget {
        var idFieldName: String { "Id" }
        var modificationDateFieldName: String { "LastModifiedDate" }
        var isSortedByModificationDate: Bool { true }
        var totalSize: Int64 { Int64(allPages.joined().count) }
        let allPages: [[JSONValue]]
        let journal: Journal
        let committedAtFetch: Recorder<UInt64>
        let failingFetch: Int?
        let stoppingFetch: Int?
        let box: ManagerBox
        private var next = 0

        init(
            pages: [[JSONValue]], journal: Journal, committedAtFetch: Recorder<UInt64>, failingFetch: Int?,
            stoppingFetch: Int?, box: ManagerBox
        ) {
            allPages = pages
            self.journal = journal
            self.committedAtFetch = committedAtFetch
            self.failingFetch = failingFetch
            self.stoppingFetch = stoppingFetch
            self.box = box
        }

        mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
            try await continueFetch(context) ?? []
        }

        mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
            let committed = try journal.count(of: .syncDownPageFetched)
            committedAtFetch.append(committed)
            next += 1
            if next == failingFetch { throw URLError(.networkConnectionLost) }
            if next == stoppingFetch { box.manager.all.first?.stop() }
            return next <= allPages.count ? allPages[next - 1] : nil
        }

        func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
            Set(allPages.joined().compactMap { $0["Id"]?.string })
        }
    }

    struct Outcome {
        var reports: [String]
        var records: [JSONValue]
        var committedAtFetch: [UInt64]
        var final: SyncState
    }

    /// Syncs down 7 pages of 2 records with `pagesPerCommit`, failing the fetch `failingFetch`.
    static func run(pagesPerCommit: Int, failingFetch: Int? = nil, stoppingFetch: Int? = nil) async throws -> Outcome {
        let directory = try TemporaryDirectory("grouped-commits")
        defer { directory.remove() }
        let clock = ManualWallClock(WallTime(millisecondsSinceEpoch: 1_800_000_000_000), tick: .milliseconds(1))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: clock, idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        try store.soups.registerSoup(soup, indexSpecs: [IndexSpec(path: "Id", type: .string)])
        let committedAtFetch = Recorder<UInt64>()
        let box = ManagerBox()
        var registry = SyncDownTargetRegistry()
        let pages = PagedTestTarget.pages(count: 14, pageSize: 2)
        registry.register("watching") { _ in
            WatchingTarget(
                pages: pages, journal: store.journal, committedAtFetch: committedAtFetch, failingFetch: failingFetch,
                stoppingFetch: stoppingFetch, box: box)
        }
        let manager = try SyncManager(
            store: store, client: nil, targets: registry, clock: clock, logger: .discarding,
            pagesPerCommit: pagesPerCommit)
        box.manager.append(manager)
        let reports = Recorder<String>()
        let final = try await manager.syncDown(
            target: try SyncDownTargetDescriptor(.custom(registryKey: "watching")), soupName: soup,
            onUpdate: { state in reports.append(state.progressSummary) })
        let report = try store.journal.verify()
        #expect(report.isConsistent, "verify: \(report.divergences)")
        return Outcome(
            reports: reports.all,
            records: try store.soups.query(QuerySpec.all(soup, orderPath: "_soupEntryId", pageSize: 100)),
            committedAtFetch: committedAtFetch.all, final: final)
    }

    @Test func pagesCommittedThreeAtATimeFoldAndReportLikePagesCommittedAlone() async throws {
        let alone = try await Self.run(pagesPerCommit: 1)
        let grouped = try await Self.run(pagesPerCommit: 3)
        #expect(alone.committedAtFetch == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(grouped.committedAtFetch == [0, 0, 0, 3, 3, 3, 6, 6])
        #expect(grouped.reports == alone.reports)
        #expect(grouped.reports.last == "DONE(100,14)")
        #expect(grouped.records == alone.records)
        #expect(grouped.records.count == 14)
        #expect(grouped.final.maxTimeStamp == alone.final.maxTimeStamp)
    }

    @Test func aFailedFetchKeepsThePagesFetchedBeforeIt() async throws {
        let alone = try await Self.run(pagesPerCommit: 1, failingFetch: 5)
        let grouped = try await Self.run(pagesPerCommit: 3, failingFetch: 5)
        #expect(grouped.final.status == .failed)
        #expect(grouped.final.error == alone.final.error)
        #expect(grouped.records.count == 8)
        #expect(grouped.records == alone.records)
        #expect(grouped.final.maxTimeStamp == alone.final.maxTimeStamp)
    }

    /// A stop keeps the pages fetched before it, and drops the page whose fetch saw it, grouped or not.
    @Test func aStopKeepsThePagesFetchedBeforeIt() async throws {
        let alone = try await Self.run(pagesPerCommit: 1, stoppingFetch: 5)
        let grouped = try await Self.run(pagesPerCommit: 3, stoppingFetch: 5)
        #expect(alone.final.status == .stopped)
        #expect(grouped.final.status == .stopped)
        #expect(grouped.records.count == 8)
        #expect(grouped.records == alone.records)
        #expect(grouped.final.maxTimeStamp == alone.final.maxTimeStamp)
    }

    @Test func aGroupOfNoPagesIsRefused() throws {
        let directory = try TemporaryDirectory("grouped-commits")
        defer { directory.remove() }
        let store = try SyncStore(
            directory: directory.appending("store"), clock: ManualWallClock(), idGenerator: IncrementingIDGenerator(),
            logger: .discarding)
        let error = try #require(throws: SyncError.self) {
            _ = try SyncManager(
                store: store, client: nil, clock: ManualWallClock(), logger: .discarding, pagesPerCommit: 0)
        }
        #expect(error.code == .malformedOptions)
        #expect(error.message == "pagesPerCommit must be at least 1, not 0.")
    }
}
