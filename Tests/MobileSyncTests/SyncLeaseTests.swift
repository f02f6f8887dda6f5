import Determinism
import EventJournal
import Foundation
import MobileSync
import Soups
import SyncTesting
import Testing

/// Sync ownership in one process: leases are exclusive between open files (so between two
/// managers of one store), tested without being taken, and given back when a run ends. The
/// same rules across processes are pinned by `MSyncSyncOwnershipToolTests`.
@Suite struct SyncLeaseTests {
    @Test func aLeaseIsExclusiveUntilItsLastReferenceGoesAndTestingItCreatesNothing() throws {
        let directory = try TemporaryDirectory("sync-leases")
        defer { directory.remove() }
        let leases = SyncLeases(storeDirectory: directory.url)
        #expect(try !leases.isHeld(syncId: 1))
        #expect(!FileManager.default.fileExists(atPath: leases.directory.path), "a test creates no folder")

        var first = try leases.acquire(syncId: 1)
        #expect(first != nil)
        #expect(try leases.acquire(syncId: 1) == nil, "a second open file of the same process is refused")
        #expect(try leases.isHeld(syncId: 1))
        #expect(try !leases.isHeld(syncId: 2))
        #expect(try leases.acquire(syncId: 2) != nil, "leases are per sync")
        first = nil
        #expect(try !leases.isHeld(syncId: 1))
        #expect(try leases.acquire(syncId: 1) != nil)
    }

    /// A process being spawned holds copies of every descriptor from its fork to its exec. A
    /// lease given back meanwhile must be free at once, to a test and to a taker alike, or a
    /// sync just finished would look owned by another process (decision 0023). The copies are
    /// held here for as long as the checks take, where a real child's would go at its exec.
    @Test func aLeaseGivenBackIsFreeAtOnceThoughASpawnedChildHoldsCopiesOfItsFile() throws {
        let directory = try TemporaryDirectory("sync-leases-spawn")
        defer { directory.remove() }
        let leases = SyncLeases(storeDirectory: directory.url)
        var lease = try leases.acquire(syncId: 1)
        #expect(lease != nil)
        let copies = try SpawnedChildCopies(of: leases.directory.appendingPathComponent("sync-1.lock"))
        #expect(copies.descriptors.count == 1, "the lease's file is open once")

        lease = nil
        try withExtendedLifetime(copies) { () throws in
            #expect(try !leases.isHeld(syncId: 1))
            #expect(try leases.acquire(syncId: 1) != nil)
        }
    }

    @Test func aSecondManagerOfTheStoreNeitherStopsNorRunsASyncTheFirstIsRunning() async throws {
        let (registry, started, proceed) = PagedTestTarget.held(count: 4)
        try await SyncHarness.with(accounts: 0, targets: registry) { harness in
            let slow = try await harness.manager.createSyncDown(
                target: PagedTestTarget.descriptor, soupName: SyncHarness.soup, name: "slow")
            let running = Task { try await harness.manager.reSync(id: slow.id) }
            await started.wait()
            #expect(try harness.store.isSyncOwned(id: slow.id))

            let second = try SyncManager(
                store: harness.store, client: harness.client, targets: registry, clock: ManualWallClock(),
                logger: .discarding)
            #expect(try harness.store.syncState(id: slow.id)?.status == .running, "opening stops nothing owned")
            let journaled = try #require(try harness.store.syncState(id: slow.id))
            #expect(try harness.store.currentState(of: journaled).status == .running)
            await #expect {
                try await second.reSync(id: slow.id)
            } throws: {
                ($0 as? SyncError)?.message
                    == "Cannot run runSync \(slow.id) - sync is still running in another process"
            }
            await #expect(throws: SyncError.self) { try await second.cleanResyncGhosts(id: slow.id) }
            await #expect(throws: SyncError.self) { try await second.deleteSync(id: slow.id) }

            await proceed.open()
            #expect(try await running.value.status == .done)
            #expect(try !harness.store.isSyncOwned(id: slow.id), "the lease goes with the run")
            #expect(try await second.reSync(id: slow.id).status == .done)
        }
    }

    @Test func aRunningSyncNobodyOwnsReadsStoppedWithoutAWriteAndIsStoppedByTheNextManager() async throws {
        try await SyncHarness.with(accounts: 1) { harness in
            var crashed = try await harness.manager.createSyncDown(
                target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup, name: "crashed")
            crashed.start(at: 1)
            try harness.store.journal.append(crashed.changedEntryDraft)
            let before = try harness.store.journal.read { try $0.lastSequence }

            #expect(try harness.store.currentState(of: crashed).status == .stopped)
            #expect(try harness.store.journal.read { try $0.lastSequence } == before, "reading writes nothing")

            _ = try SyncManager(
                store: harness.store, client: harness.client, clock: ManualWallClock(), logger: .discarding)
            #expect(try harness.store.syncState(id: crashed.id)?.status == .stopped)
            #expect(try harness.store.journal.read { try $0.lastSequence } == before + 1)
        }
    }

    @Test func aLeaseFolderThatCannotBeMadeIsAStoreErrorNotARunningSync() async throws {
        try await SyncHarness.with(accounts: 1) { harness in
            let sync = try await harness.manager.createSyncDown(
                target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup, name: "blocked")
            // A file where the folder should be: creating the folder fails.
            try Data().write(to: harness.store.directory.appendingPathComponent("leases"))
            await #expect {
                try await harness.manager.reSync(id: sync.id)
            } throws: { ($0 as? SyncError)?.code == .leaseUnavailable }
            #expect(try harness.store.syncState(id: sync.id)?.status == .new, "a refused run journals nothing")
        }
    }
}
