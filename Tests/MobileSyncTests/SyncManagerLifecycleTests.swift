import Determinism
import EventJournal
import Foundation
import MobileSync
import SalesforceAPI
import Soups
import SyncTesting
import Testing

/// The manager's states, refusals and restart order.
@Suite struct SyncManagerLifecycleTests {
    @Test func syncDownOnAStoppedManagerCreatesTheSyncButDoesNotRunIt() async throws {
        try await SyncHarness.with(accounts: 1) { harness in
            harness.manager.stop()
            #expect(harness.manager.isStopped, "nothing was active, so the manager stops at once")
            await #expect {
                try await harness.manager.syncDown(
                    target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup, name: "late")
            } throws: { ($0 as? SyncError)?.message == "sync manager has state:STOPPED" }
            let late = try await harness.manager.getSyncStatus(name: "late")
            #expect(late?.status == .new)
            #expect(harness.soqlSent().isEmpty)
        }
    }

    @Test func aSyncIntoAnUnknownSoupIsRefusedAtCreation() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            await #expect {
                try await harness.manager.createSyncDown(
                    target: SyncDownEndToEndTests.soqlTarget(), soupName: "contacts")
            } throws: { ($0 as? SoupError)?.code == .unknownSoup }
            let states = try harness.store.syncStates()
            #expect(states.isEmpty)
        }
    }

    @Test func anActiveSyncCannotBeDeleted() async throws {
        let (registry, started, proceed) = PagedTestTarget.held(count: 2)
        try await SyncHarness.with(accounts: 0, targets: registry) { harness in
            let manager = harness.manager
            let running = Task {
                try await manager.syncDown(target: PagedTestTarget.descriptor, soupName: SyncHarness.soup, name: "busy")
            }
            await started.wait()
            await #expect {
                try await manager.deleteSync(name: "busy")
            } throws: { ($0 as? SyncError)?.code == .syncRunning }
            await proceed.open()
            #expect(try await running.value.status == .done)
            try await manager.deleteSync(name: "busy")
            #expect(try harness.store.syncStates().isEmpty)
            #expect(try harness.records().count == 2, "a deleted sync's records stay")
        }
    }

    @Test func restartReSyncsEveryStoppedSyncInOrderWithTheLaterOnesAlreadyRunning() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            var ids: [Int64] = []
            for name in ["a", "b"] {
                var state = try await harness.manager.createSyncDown(
                    target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup, name: name)
                state.start(at: 1)
                try harness.store.journal.append(state.changedEntryDraft)
                ids.append(state.id)
            }
            let manager = try SyncManager(
                store: harness.store, client: harness.client, clock: ManualWallClock(), logger: .discarding)
            #expect(try harness.store.syncStates().map(\.status) == [.stopped, .stopped])
            manager.stop()
            let updates = Recorder<String>()
            let finals = try await manager.restart(
                restartStoppedSyncs: true, onUpdate: { updates.append("\($0.id):\($0.progressSummary)") })
            #expect(finals.map(\.id) == ids)
            #expect(finals.allSatisfy { $0.status == .done })
            #expect(
                updates.all == [
                    "\(ids[0]):RUNNING(0,-1)", "\(ids[1]):RUNNING(0,-1)", "\(ids[0]):RUNNING(0,3)",
                    "\(ids[0]):DONE(100,3)", "\(ids[1]):RUNNING(0,3)", "\(ids[1]):DONE(100,3)",
                ])
            #expect(manager.state == .acceptingSyncs)
        }
    }

    // The limit catches a stream that never ends; the whole suite running beside it on two
    // cores can delay this test's start well past one minute.
    @Test(.timeLimit(.minutes(5)))
    func updateStreamsEndWhenTheirManagerIsReleased() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            var manager: SyncManager? = try SyncManager(
                store: harness.store, client: nil, clock: ManualWallClock(), logger: .discarding)
            let stream = try #require(await manager?.updates())
            manager = nil
            var received = 0
            for await _ in stream { received += 1 }
            #expect(received == 0)
        }
    }
}
