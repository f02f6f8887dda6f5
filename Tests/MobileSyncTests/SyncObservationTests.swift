import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import SyncTesting
import Testing

/// `SyncManager.observeSync(id:)` / `observeSync(named:)`: the sync's state first, then every
/// state committed while it runs — whichever manager runs it — until DONE, and nothing for other
/// syncs' entries.
@Suite(.timeLimit(.minutes(5))) struct SyncObservationTests {
    /// A target serving `pages`, each only once the test opens its gate, so the test decides
    /// when each page is committed.
    struct GatedPagesTarget: SyncDownTarget {
        static let registryKey = "GatedPages"

        var idFieldName: String { "Id" }
        var modificationDateFieldName: String { "LastModifiedDate" }
        var isSortedByModificationDate: Bool { true }
        private(set) var totalSize: Int64 = -1
        let pages: [[JSONValue]]
        let gates: [Latch]
        private var nextPage = 0

        init(pages: [[JSONValue]], gates: [Latch]) {
            self.pages = pages
            self.gates = gates
        }

        static func registry(pages: [[JSONValue]], gates: [Latch]) -> SyncDownTargetRegistry {
            var registry = SyncDownTargetRegistry()
            registry.register(registryKey) { _ in GatedPagesTarget(pages: pages, gates: gates) }
            return registry
        }

        mutating func startFetch(_ context: SyncDownContext, maxTimeStamp: Int64) async throws -> [JSONValue] {
            totalSize = Int64(pages.joined().count)
            return await next() ?? []
        }

        mutating func continueFetch(_ context: SyncDownContext) async throws -> [JSONValue]? {
            await next()
        }

        func remoteIds(_ context: SyncDownContext, localIds: [String]) async throws -> Set<String> {
            Set(pages.joined().compactMap { $0["Id"]?.string })
        }

        private mutating func next() async -> [JSONValue]? {
            guard nextPage < pages.count else { return nil }
            await gates[nextPage].wait()
            defer { nextPage += 1 }
            return pages[nextPage]
        }
    }

    /// Observed through one manager while a second manager of the store runs it: nil before the
    /// sync exists, NEW, RUNNING(0, -1), each committed page (the total from page 0, the
    /// watermark moving), then DONE(100).
    @Test func aSyncRunByAnotherManagerShowsEachCommittedStepUntilDone() async throws {
        let pages = PagedTestTarget.pages(count: 6, pageSize: 2)
        let gates = [Latch(), Latch(), Latch()]
        let registry = GatedPagesTarget.registry(pages: pages, gates: gates)
        try await SyncHarness.with(accounts: 0, targets: registry) { harness in
            var states = harness.manager.observeSync(named: "gated").makeAsyncIterator()
            #expect(try await states.next() == .some(nil))
            let other = try SyncManager(
                store: harness.store, client: harness.client, targets: registry, clock: ManualWallClock(),
                logger: .discarding)
            let created = try await other.createSyncDown(
                target: try SyncDownTargetDescriptor(.custom(registryKey: GatedPagesTarget.registryKey)),
                soupName: SyncHarness.soup, name: "gated")
            #expect(try await states.next() == created)
            #expect(created.status == .new)

            let run = Task { try await other.reSync(id: created.id) }
            let running = try #require(try await states.next() ?? nil)
            #expect(running.status == .running)
            #expect(running.progress == 0)
            #expect(running.totalSize == -1)
            var watermarks: [Int64] = []
            for (number, gate) in gates.enumerated().dropLast() {
                await gate.open()
                let page = try #require(try await states.next() ?? nil)
                #expect(page.status == .running, "page \(number)")
                #expect(page.totalSize == 6, "page 0 recorded the total")
                watermarks.append(page.maxTimeStamp)
            }
            #expect(watermarks == [pages[0][1], pages[1][1]].map(Self.modified))
            await gates[2].open()
            var last = try #require(try await states.next() ?? nil)
            while last.status == .running { last = try #require(try await states.next() ?? nil) }
            #expect(last.status == .done)
            #expect(last.progress == 100)
            #expect(last == (try await run.value))
            #expect(last == (try harness.store.syncState(id: created.id)))
        }
    }

    /// An observation by id reads the state again only for that sync's entries: another sync's
    /// whole run neither re-reads nor yields it.
    @Test func anotherSyncsRunNeitherRereadsNorYieldsTheObservedSync() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            let target = try SyncDownTargetDescriptor(.soql(query: "SELECT Id, Name, LastModifiedDate FROM Account"))
            let watched = try await harness.manager.syncDown(
                target: target, soupName: SyncHarness.soup, name: "watched")
            var states = harness.manager.observeSync(id: watched.id).makeAsyncIterator()
            #expect(try await states.next() == watched)
            let evaluations = harness.store.journal.observerStatistics.evaluationCount
            let next = Task { [states] in
                var states = states
                return try await states.next()
            }
            let otherRun = try await harness.manager.syncDown(
                target: target, soupName: SyncHarness.soup, name: "other")
            #expect(otherRun.status == .done)
            try await harness.manager.deleteSync(id: watched.id)
            #expect(try await next.value == .some(nil), "the deletion is the next value")
            #expect(harness.store.journal.observerStatistics.evaluationCount == evaluations + 1)
        }
    }

    static func modified(_ record: JSONValue) -> Int64 {
        record["LastModifiedDate"]?.string.flatMap(WallTime.init(iso8601:))?.millisecondsSinceEpoch ?? -1
    }
}
