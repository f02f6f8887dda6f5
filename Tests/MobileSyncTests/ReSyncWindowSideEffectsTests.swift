import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import Testing

/// What a reSync's window must not change (issue 23, decision 0325): Mobile SDK's OVERWRITE,
/// `totalSize` and ownership rules hold; only records the window alone brought are invisible.
@Suite struct ReSyncWindowSideEffectsTests {
    static func soql(_ query: String = "SELECT Name FROM Account") throws -> SyncDownTargetDescriptor {
        try SyncDownTargetDescriptor(.soql(query: query))
    }

    /// Mobile SDK's `testSyncDownWithoutOverwrite`, then a new sync down with OVERWRITE.
    @Test func overwriteAfterLeaveIfChangedOverwritesTheLocalEditsAndCleansThem() async throws {
        try await SyncHarness.with(accounts: 10) { harness in
            try await harness.manager.syncDown(
                target: Self.soql(), options: SyncOptions(mergeMode: .leaveIfChanged), soupName: SyncHarness.soup,
                name: "keep")
            let edited = [2, 5, 8].map(SyncHarness.accountId)
            for id in edited {
                try harness.store.soups.updateLocally(
                    SyncHarness.soup, entryId: harness.entryId(of: id), changes: ["Name": "Mine"])
            }
            try await harness.manager.reSync(name: "keep")
            #expect(try edited.allSatisfy { try harness.recordsById()[$0]?["Name"] == "Mine" }, "kept")
            let overwrite = try await harness.manager.syncDown(
                target: Self.soql(), options: SyncOptions(mergeMode: .overwrite), soupName: SyncHarness.soup,
                name: "overwrite")
            #expect(overwrite.progressSummary == "DONE(100,10)")
            let byId = try harness.recordsById()
            for (number, id) in zip([2, 5, 8], edited) {
                #expect(byId[id]?["Name"] == .string("Account 00\(number)"))
                #expect(byId[id]?["__local__"] == false)
                #expect(byId[id]?["__sync_id__"] == .number(JSONNumber(overwrite.id)))
            }
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).isEmpty)
        }
    }

    /// Two syncs into one soup, all records dated in one second (a Data Loader load): a reSync
    /// of the first brings the second's records through its window and leaves them alone, so
    /// each sync's ghost cleaning still reaches exactly its own records.
    @Test func twoOverlappingSyncsKeepTheirRecordsThroughReSyncsAndCleanOnlyTheirOwnGhosts() async throws {
        try await SyncHarness.with(accounts: 30) { harness in
            let loadedAt = WallTime(millisecondsSinceEpoch: SyncHarness.modified(29))
            for number in 0..<30 {
                try harness.simulator.write(
                    type: "Account", id: SyncHarness.accountId(number), fields: [:], modifiedAt: loadedAt)
            }
            let all = try await harness.manager.syncDown(target: Self.soql(), soupName: SyncHarness.soup, name: "all")
            let some = try await harness.manager.syncDown(
                target: Self.soql("SELECT Name FROM Account WHERE Name LIKE 'Account 00%'"),
                soupName: SyncHarness.soup, name: "some")
            for number in 20..<25 {
                try harness.simulator.write(
                    type: "Account", id: SyncHarness.accountId(number), fields: ["Name": .string("Edited \(number)")])
            }
            let reSynced = try await harness.manager.reSync(name: "all")
            #expect(reSynced.progressSummary == "DONE(100,30)", "the server's count of the window")
            #expect(reSynced.fetchedCount == 30)
            #expect(reSynced.changedCount == 5)
            func owner(_ number: Int) throws -> JSONValue? {
                try harness.recordsById()[SyncHarness.accountId(number)]?["__sync_id__"]
            }
            #expect(try (0..<10).allSatisfy { try owner($0) == .number(JSONNumber(some.id)) })
            #expect(try (10..<30).allSatisfy { try owner($0) == .number(JSONNumber(all.id)) })
            try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(3))
            try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(15))
            #expect(try await harness.manager.cleanResyncGhosts(name: "all") == 1)
            var byId = try harness.recordsById()
            #expect(byId[SyncHarness.accountId(15)] == nil)
            #expect(byId[SyncHarness.accountId(3)] != nil, "another sync's record")
            #expect(try await harness.manager.cleanResyncGhosts(name: "some") == 1)
            byId = try harness.recordsById()
            #expect(byId[SyncHarness.accountId(3)] == nil)
            #expect(byId.count == 28)
        }
    }

    /// The demo org's shape: 1,000 Accounts saved in one second by a load. A sync down read
    /// the org a few seconds later, so that second is settled; after 4 server edits the
    /// reSync asks after it and fetches the 4 edits, not the whole second again.
    @Test func aReSyncAfterASettledSecondFetchesOnlyWhatChanged() async throws {
        try await SyncHarness.with(accounts: 1000) { harness in
            let loadedAt = WallTime(millisecondsSinceEpoch: SyncHarness.modified(999))
            for number in 0..<1000 {
                try harness.simulator.write(
                    type: "Account", id: SyncHarness.accountId(number), fields: [:], modifiedAt: loadedAt)
            }
            harness.simulator.advanceClock(seconds: 5)
            let first = try await harness.manager.syncDown(
                target: Self.soql(), soupName: SyncHarness.soup, name: "demo")
            #expect(first.progressSummary == "DONE(100,1000)")
            #expect(first.settledThrough > loadedAt.millisecondsSinceEpoch)
            for number in [10, 200, 500, 999] {
                try harness.simulator.write(
                    type: "Account", id: SyncHarness.accountId(number), fields: ["Name": .string("Edited \(number)")])
            }
            let before = try harness.store.journal.read { try $0.lastSequence }
            let reSynced = try await harness.manager.reSync(name: "demo")
            #expect(reSynced.progressSummary == "DONE(100,4)")
            #expect(reSynced.changedCount == 4)
            let fetched = try harness.store.journal.read { reader in
                try reader.entries(in: (before + 1)...(try reader.lastSequence))
                    .filter { $0.kind == .syncDownPageFetched }
                    .reduce(0) { $0 + (try $1.jsonPayload().array?.count ?? 0) }
            }
            #expect(fetched == 4, "the pages of the reSync hold the 4 edits only")
            let byId = try harness.recordsById()
            #expect(byId[SyncHarness.accountId(500)]?["Name"] == "Edited 500")
            // Right away, the edits' seconds are not settled yet (2 s for the clock's whole
            // seconds): they come again, unchanged. A few seconds later nothing comes.
            let soon = try await harness.manager.reSync(name: "demo")
            #expect(soon.changedCount == 0)
            harness.simulator.advanceClock(seconds: 5)
            _ = try await harness.manager.reSync(name: "demo")
            #expect(try await harness.manager.reSync(name: "demo").fetchedCount == 0)
        }
    }
}
