import EventJournal
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import Synchronization
import Testing

/// Sync up through `SyncManager`, against the simulator over loopback.
@Suite struct SyncUpEndToEndTests {
    @Test func syncUpReportsMobileSDKsProgressAndASummaryOfEveryRecord() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            try await harness.manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: "SELECT Id, Name, LastModifiedDate FROM Account")),
                soupName: SyncHarness.soup)
            let first = try harness.entryId(of: SyncHarness.accountId(0))
            let second = try harness.entryId(of: SyncHarness.accountId(1))
            _ = try harness.store.soups.updateLocally(SyncHarness.soup, entryId: first, changes: ["Name": "Renamed"])
            _ = try harness.store.soups.updateLocally(
                SyncHarness.soup, entryId: second, changes: ["Name": .string(String(repeating: "x", count: 300))])
            _ = try harness.store.soups.createLocally(
                SyncHarness.soup, ["Name": "Created", "attributes": ["type": "Account"]])
            let states = Mutex<[SyncState]>([])

            let final = try await harness.manager.syncUp(
                target: SyncUpTargetDescriptor(.singleRecord), options: SyncOptions(fieldlist: ["Name"]),
                soupName: SyncHarness.soup, name: "push"
            ) { state in states.withLock { $0.append(state) } }

            let progress = states.withLock { $0 }.map { "\($0.status.rawValue) \($0.progress) \($0.totalSize)" }
            #expect(progress == ["RUNNING 0 -1", "RUNNING 0 3", "RUNNING 33 3", "RUNNING 66 3", "DONE 100 3"])
            #expect(final.status == .done, "\(final.error)")
            let summary = try #require(final.syncUpSummary)
            #expect(summary.sent == 3)
            #expect(summary.succeeded == 2)
            #expect(summary.failed.map(\.entryId) == [second])
            #expect(final.failures.count == 1)
            let persisted = try #require(try await harness.manager.getSyncStatus(name: "push"))
            #expect(persisted.syncUpSummary == summary)
            let server = try await harness.client.query("SELECT Id, Name FROM Account WHERE Name = 'Renamed'")
            #expect(server.records.count == 1)
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).count == 1)
        }
    }

    @Test func reSyncByNameSendsWhatChangedSinceAndAStoppedManagerRefuses() async throws {
        try await SyncHarness.with(accounts: 1) { harness in
            try await harness.manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: "SELECT Id, Name, LastModifiedDate FROM Account")),
                soupName: SyncHarness.soup)
            try await harness.manager.syncUp(
                options: SyncOptions(fieldlist: ["Name"]), soupName: SyncHarness.soup, name: "up")
            let entryId = try harness.entryId(of: SyncHarness.accountId(0))
            _ = try harness.store.soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: ["Name": "Again"])

            let again = try await harness.manager.reSync(name: "up")
            #expect(again.status == .done)
            #expect(again.syncUpSummary?.sent == 1)
            let server = try await harness.client.query("SELECT Id FROM Account WHERE Name = 'Again'")
            #expect(server.records.count == 1)

            harness.manager.stop()
            await #expect(throws: SyncError.self) { try await harness.manager.reSync(name: "up") }
            try await harness.manager.restart(restartStoppedSyncs: false)
            #expect(try await harness.manager.reSync(name: "up").status == .done)
        }
    }

    @Test func aSyncUpWhoseRequestFailsEndsFailedAndKeepsTheChange() async throws {
        try await SyncHarness.with(accounts: 0, retryPolicy: .none) { harness in
            _ = try harness.store.soups.createLocally(
                SyncHarness.soup, ["Name": "Created", "attributes": ["type": "Account"]])
            harness.simulator.setFaultPlan(
                FaultPlan(rules: [
                    FaultRule(method: "POST", path: "/services/data/v66.0/composite/sobjects", drop: .afterCommit)
                ]))
            let final = try await harness.manager.syncUp(
                options: SyncOptions(fieldlist: ["Name"]), soupName: SyncHarness.soup)
            #expect(final.status == .failed)
            #expect(!final.error.isEmpty)
            #expect(final.totalSize == 1, "Mobile SDK's total: the dirty records, listed before sending")
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).count == 1)
            #expect(try harness.store.pendingUploads(syncId: final.id).count == 1)
            let persisted = try #require(try harness.store.syncState(id: final.id))
            #expect(persisted.totalSize == 1)
        }
    }

    /// A create whose upsert reached the server but whose answer was lost, then deleted
    /// locally: the next run finds the server's record by its external id and deletes it,
    /// where dropping the local record alone would leave the server's for good.
    @Test func aCreateWhoseUpsertAnswerWasLostThenDeletedLocallyIsDeletedOnTheServer() async throws {
        try await SyncHarness.with(accounts: 0, retryPolicy: .none) { harness in
            let created = try harness.store.soups.createLocally(
                SyncHarness.soup, ["Name": "Created", "ExternalId__c": "EXT-1", "attributes": ["type": "Account"]])
            let entryId = try #require(created["_soupEntryId"]?.number?.int64Value)
            harness.simulator.setFaultPlan(
                FaultPlan(rules: [FaultRule(method: "PATCH", path: "/services/data/v66.0/", drop: .afterCommit)]))
            var target = SyncUpTargetDescriptor()
            target.externalIdFieldName = "ExternalId__c"
            let first = try await harness.manager.syncUp(
                target: target, options: SyncOptions(fieldlist: ["Name", "ExternalId__c"]),
                soupName: SyncHarness.soup, name: "up")
            #expect(first.status == .failed)
            #expect(harness.simulator.liveRecords(type: "Account").count == 1, "the upsert reached the server")
            harness.simulator.setFaultPlan(.none)
            _ = try harness.store.soups.deleteLocally(SyncHarness.soup, entryId: entryId)
            let second = try await harness.manager.reSync(name: "up")
            #expect(second.status == .done)
            #expect(second.syncUpSummary?.recovered == [entryId])
            #expect(harness.simulator.liveRecords(type: "Account").isEmpty)
            #expect(try harness.store.soups.retrieve(SyncHarness.soup, ids: [entryId]).isEmpty)
        }
    }

    @Test func aSavedSyncUpTargetHoldsItsCappedBatchSize() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            let asked = try SyncUpTargetDescriptor(json: ["maxBatchSize": 201])
            let created = try await harness.manager.createSyncUp(
                target: asked, options: SyncOptions(fieldlist: ["Name"]), soupName: SyncHarness.soup, name: "up")
            let saved = try #require(try harness.store.syncState(id: created.id))
            #expect(saved.json["target"]?["maxBatchSize"] == 200)
        }
    }

    @Test func aSyncUpWithNoFieldListFailsWithTheTotalOfItsDirtyRecords() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            for name in ["One", "Two"] {
                _ = try harness.store.soups.createLocally(
                    SyncHarness.soup, ["Name": .string(name), "attributes": ["type": "Account"]])
            }
            let final = try await harness.manager.syncUp(options: SyncOptions(), soupName: SyncHarness.soup)
            #expect(final.status == .failed)
            #expect(final.error == "No fields specified")
            #expect(final.totalSize == 2)
            #expect(try harness.store.syncState(id: final.id)?.totalSize == 2)
        }
    }

    @Test func aLeaveIfChangedCheckThatFailsEndsFailedWithTheTotalOfItsDirtyRecords() async throws {
        try await SyncHarness.with(accounts: 3, retryPolicy: .none) { harness in
            try await harness.manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: "SELECT Id, Name, LastModifiedDate FROM Account")),
                soupName: SyncHarness.soup)
            for number in 0..<3 {
                let entryId = try harness.entryId(of: SyncHarness.accountId(number))
                _ = try harness.store.soups.updateLocally(
                    SyncHarness.soup, entryId: entryId, changes: ["Name": .string("Edited \(number)")])
            }
            // The bulk retrieve of modification dates (POST /composite/sobjects/Account) fails.
            harness.simulator.setFaultPlan(
                FaultPlan(rules: [
                    FaultRule(method: "POST", path: "/services/data/v66.0/composite/sobjects/Account", status: 500)
                ]))
            let final = try await harness.manager.syncUp(
                options: SyncOptions(mergeMode: .leaveIfChanged, fieldlist: ["Name"]), soupName: SyncHarness.soup)
            #expect(final.status == .failed)
            #expect(final.totalSize == 3)
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).count == 3)
        }
    }

    @Test func aCustomSyncUpTargetNobodyRegisteredFailsTheSyncWithAClearError() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            _ = try harness.store.soups.createLocally(
                SyncHarness.soup, ["Name": "X", "attributes": ["type": "Account"]])
            let final = try await harness.manager.syncUp(
                target: SyncUpTargetDescriptor(.custom(registryKey: "Nope")), options: SyncOptions(fieldlist: ["Name"]),
                soupName: SyncHarness.soup)
            #expect(final.status == .failed)
            #expect(final.error.contains("Nope"))
            #expect(final.totalSize == 1, "failing before the runner listed them, the dirty records are counted")
        }
    }
}
