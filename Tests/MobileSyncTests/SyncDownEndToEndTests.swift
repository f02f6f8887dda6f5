import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// Sync down against the simulator over loopback: progress, merge modes, reSync, stop/restart.
@Suite struct SyncDownEndToEndTests {
    static let soql = "SELECT Name FROM Account"
    static let normalized = "select Id,LastModifiedDate,Name from Account order by LastModifiedDate"

    static func soqlTarget(_ query: String = soql, maxBatchSize: Int = 2000) throws -> SyncDownTargetDescriptor {
        try SyncDownTargetDescriptor(.soql(query: query, maxBatchSize: maxBatchSize))
    }

    @Test func fullSyncDownReportsMobileSDKsProgressSequenceAndSavesCleanRecords() async throws {
        try await SyncHarness.with(accounts: 450) { harness in
            let updates = await harness.manager.updates()
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.syncDown(
                target: Self.soqlTarget(maxBatchSize: 200), soupName: SyncHarness.soup, name: "all",
                onUpdate: { reports.append($0) })
            let expected = ["RUNNING(0,-1)", "RUNNING(0,450)", "RUNNING(44,450)", "RUNNING(88,450)", "DONE(100,450)"]
            #expect(reports.all.map(\.progressSummary) == expected)
            var streamed: [String] = []
            for await state in updates {
                streamed.append(state.progressSummary)
                if state.status.isTerminal { break }
            }
            #expect(streamed == expected)
            #expect(final.maxTimeStamp == SyncHarness.modified(449))
            #expect(try await harness.manager.getSyncStatus(name: "all") == final)
            let records = try harness.records()
            #expect(records.count == 450)
            #expect(
                records.allSatisfy { $0["__local__"] == false && $0["__sync_id__"]?.number?.int64Value == final.id })
            #expect(harness.queryOptionsSent().first == "batchSize=200")
            #expect(harness.soqlSent() == [Self.normalized])
            #expect(try harness.store.journal.count(of: .syncDownPageFetched) == 3)
        }
    }

    @Test func leaveIfChangedSkipsDirtyRecordsAndKeepsTheirEdits() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            let options = SyncOptions(mergeMode: .leaveIfChanged)
            try await harness.manager.syncDown(
                target: Self.soqlTarget(), options: options, soupName: SyncHarness.soup, name: "lic")
            let first = SyncHarness.accountId(0)
            let second = SyncHarness.accountId(1)
            try harness.store.soups.updateLocally(
                SyncHarness.soup, entryId: harness.entryId(of: first), changes: ["Name": "Local edit"])
            try harness.simulator.write(type: "Account", id: first, fields: ["Name": "Server edit"])
            try harness.simulator.write(type: "Account", id: second, fields: ["Name": "Server edit"])
            let final = try await harness.manager.reSync(name: "lic")
            #expect(final.status == .done, "\(final.error)")
            // The server's count of the window: the two edits and the record at the watermark.
            #expect(final.totalSize == 3)
            #expect(final.changedCount == 2)
            let byId = try harness.recordsById()
            #expect(byId[first]?["Name"] == "Local edit")
            #expect(byId[first]?["__local__"] == true)
            #expect(byId[second]?["Name"] == "Server edit")
            #expect(byId[second]?["__local__"] == false)
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).count == 1)
        }
    }

    @Test func overwriteReplacesDirtyRecordsAndCleansThem() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            try await harness.manager.syncDown(target: Self.soqlTarget(), soupName: SyncHarness.soup, name: "ow")
            let first = SyncHarness.accountId(0)
            let entryId = try harness.entryId(of: first)
            try harness.store.soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: ["Name": "Local edit"])
            try harness.simulator.write(type: "Account", id: first, fields: ["Name": "Server edit"])
            let final = try await harness.manager.reSync(name: "ow")
            #expect(final.status == .done, "\(final.error)")
            let record = try #require(try harness.recordsById()[first])
            #expect(record["Name"] == "Server edit")
            #expect(record["__local__"] == false)
            #expect(record["__locally_updated__"] == false)
            #expect(record["_soupEntryId"]?.number?.int64Value == entryId)
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).isEmpty)
            #expect(try harness.records().count == 3)
        }
    }

    @Test func reSyncFetchesOnlyRecordsChangedSinceTheWatermark() async throws {
        try await SyncHarness.with(accounts: 5) { harness in
            let first = try await harness.manager.syncDown(
                target: Self.soqlTarget(), soupName: SyncHarness.soup, name: "inc")
            #expect(first.maxTimeStamp == SyncHarness.modified(4))
            try harness.simulator.write(type: "Account", id: SyncHarness.accountId(2), fields: ["Name": "Renamed"])
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.reSync(id: first.id, onUpdate: { reports.append($0) })
            // Inclusive: the record at the watermark comes again; it counts in totalSize, the server's
            // count, but is neither written nor counted as changed.
            let watermark = WallTime(millisecondsSinceEpoch: first.maxTimeStamp).salesforceFormat
            #expect(
                harness.soqlSent().last
                    == "select Id,LastModifiedDate,Name from Account where LastModifiedDate >= \(watermark)"
                    + " order by LastModifiedDate")
            #expect(reports.all.map(\.progressSummary) == ["RUNNING(0,-1)", "RUNNING(0,2)", "DONE(100,2)"])
            #expect(final.changedCount == 1)
            #expect(final.maxTimeStamp > first.maxTimeStamp)
            #expect(try harness.recordsById()[SyncHarness.accountId(2)]?["Name"] == "Renamed")
            #expect(try harness.records().count == 5)
        }
    }

    @Test func reSyncByNameRunsTheNamedSyncAndUnknownNamesAreRefused() async throws {
        try await SyncHarness.with(accounts: 2) { harness in
            let created = try await harness.manager.createSyncDown(
                target: Self.soqlTarget(), soupName: SyncHarness.soup, name: "never-run")
            #expect(created.status == .new)
            #expect(try await harness.manager.hasSync(named: "never-run"))
            // A sync that never ran does a full sync.
            let final = try await harness.manager.reSync(name: "never-run")
            #expect(final.status == .done, "\(final.error)")
            #expect(final.totalSize == 2)
            #expect(harness.soqlSent() == [Self.normalized])
            await #expect {
                try await harness.manager.reSync(name: "nope")
            } throws: { error in
                (error as? SyncError)?.message == "Sync nope does not exist"
            }
            await #expect {
                try await harness.manager.createSyncDown(
                    target: Self.soqlTarget(), soupName: SyncHarness.soup, name: "never-run")
            } throws: { error in
                (error as? SyncError)?.message
                    == "Failed to create sync down: there is already a sync with name:never-run"
            }
            try await harness.manager.deleteSync(name: "never-run")
            #expect(try await harness.manager.hasSync(named: "never-run") == false)
        }
    }

    @Test func reSyncOfARunningSyncIsRejectedAndAQueuedSyncAlreadyShowsRunning() async throws {
        let (registry, started, proceed) = PagedTestTarget.held(count: 4)
        try await SyncHarness.with(accounts: 2, targets: registry) { harness in
            let manager = harness.manager
            let slow = try await manager.createSyncDown(
                target: PagedTestTarget.descriptor, soupName: SyncHarness.soup, name: "slow")
            let queued = try await manager.createSyncDown(
                target: Self.soqlTarget(), soupName: SyncHarness.soup, name: "queued")
            let running = Task { try await manager.reSync(id: slow.id) }
            await started.wait()
            await #expect {
                try await manager.reSync(id: slow.id)
            } throws: { error in
                (error as? SyncError)?.message == "Cannot run runSync \(slow.id) - sync is still running"
            }
            let waiting = Task { try await manager.reSync(id: queued.id) }
            while try await manager.getSyncStatus(id: queued.id)?.status != .running { await Task.yield() }
            #expect(harness.soqlSent().isEmpty, "the queued sync waits for its turn")
            await proceed.open()
            #expect(try await running.value.status == .done)
            #expect(try await waiting.value.status == .done)
            #expect(try harness.records().count == 6)
        }
    }

    @Test func stopMidwayThenRestartCompletesAndFetchesTheRecordAtTheWatermarkAgain() async throws {
        try await SyncHarness.with(accounts: 450) { harness in
            let manager = harness.manager
            let stopped = try await manager.syncDown(
                target: Self.soqlTarget(maxBatchSize: 200), soupName: SyncHarness.soup, name: "big",
                onUpdate: { state in
                    if state.status == .running, state.progress > 0 { manager.stop() }
                })
            #expect(stopped.status == .stopped)
            #expect(stopped.progressSummary == "STOPPED(44,450)")
            #expect(stopped.maxTimeStamp == SyncHarness.modified(199))
            #expect(manager.isStopped)
            #expect(try harness.records().count == 200)
            await #expect(throws: SyncError.self) { try await manager.reSync(name: "big") }
            let finals = try await manager.restart(restartStoppedSyncs: true)
            // The target resumes from the watermark − 1 ms (Mobile SDK's contract), whose second
            // starts one second earlier: records 198 and 199 come again, in the server's count of
            // the window (totalSize, as in Mobile SDK). Record 198 came only because of the window
            // and is left alone; Mobile SDK's resume query (`> watermark − 1 ms`) fetches 199 again,
            // and so does this one: it counts as changed.
            #expect(finals.map(\.progressSummary) == ["DONE(100,252)"])
            #expect(finals.first?.changedCount == 251)
            let resumeFrom = WallTime(millisecondsSinceEpoch: SyncHarness.modified(198)).salesforceFormat
            #expect(harness.soqlSent().last?.contains("where LastModifiedDate >= \(resumeFrom)") == true)
            #expect(try harness.records().count == 450)
            #expect(finals.first?.maxTimeStamp == SyncHarness.modified(449))
        }
    }

    @Test func aRecordEditedLocallyWhileALongSyncRunsSurvivesUnderLeaveIfChanged() async throws {
        try await SyncHarness.with(accounts: 450) { harness in
            try await harness.manager.syncDown(
                target: Self.soqlTarget(maxBatchSize: 200), soupName: SyncHarness.soup, name: "first")
            let edited = SyncHarness.accountId(300)
            let entryId = try harness.entryId(of: edited)
            let soups = harness.store.soups
            let final = try await harness.manager.syncDown(
                target: Self.soqlTarget(maxBatchSize: 200), options: SyncOptions(mergeMode: .leaveIfChanged),
                soupName: SyncHarness.soup, name: "second",
                onUpdate: { state in
                    // After page 0 is applied and before page 1 (which holds the record) is.
                    if state.status == .running, state.progress == 44 {
                        _ = try? soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: ["Name": "Mine"])
                    }
                })
            #expect(final.status == .done, "\(final.error)")
            let record = try #require(try harness.recordsById()[edited])
            #expect(record["Name"] == "Mine")
            #expect(record["__local__"] == true)
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).count == 1)
            #expect(try harness.records().count == 450)
        }
    }

    @Test func syncsFoundRunningWhenTheStoreOpensBecomeStopped() async throws {
        try await SyncHarness.with(accounts: 1) { harness in
            let created = try await harness.manager.createSyncDown(
                target: Self.soqlTarget(), soupName: SyncHarness.soup, name: "crashed")
            var running = created
            running.start(at: 1)
            try harness.store.journal.append(running.changedEntryDraft)
            let reopened = try SyncManager(
                store: harness.store, client: harness.client, clock: ManualWallClock(), logger: .discarding)
            #expect(try await reopened.getSyncStatus(id: created.id)?.status == .stopped)
            let finals = try await reopened.restart(restartStoppedSyncs: true)
            #expect(finals.isEmpty, "an accepting manager does not restart")
            #expect(try await reopened.reSync(name: "crashed").status == .done)
        }
    }
}
