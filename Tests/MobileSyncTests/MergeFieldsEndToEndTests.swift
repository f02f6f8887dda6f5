import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import Testing

/// MERGE_FIELDS through `SyncManager` against the simulator: merges, conflicts and their
/// resolution, record-level conflicts, and bases that survive compaction (docs/conflicts.md).
@Suite struct MergeFieldsEndToEndTests {
    private static let query = "SELECT Id, Name, Phone, LastModifiedDate FROM Account"
    private static let merge = SyncOptions(mergeMode: .mergeFields)
    private static let push = SyncOptions(mergeMode: .mergeFields, fieldlist: ["Name", "Phone"])
    /// Each test runs on a plaintext store and on an encrypted one, whose bases are sealed.
    private static let keys: [StoreKey?] = [
        nil, try! StoreKey(bytes: [UInt8](repeating: 0x3C, count: StoreKey.byteCount)),
    ]

    /// Syncs one account down under MERGE_FIELDS and returns its `_soupEntryId`.
    private static func fetchedAccount(_ harness: SyncHarness) async throws -> Int64 {
        try harness.simulator.write(type: "Account", id: SyncHarness.accountId(0), fields: ["Phone": "100"])
        try await harness.manager.syncDown(
            target: try SyncDownTargetDescriptor(.soql(query: query)), options: merge, soupName: SyncHarness.soup,
            name: "down")
        return try harness.entryId(of: SyncHarness.accountId(0))
    }

    /// The app changes `local` of the account while another user changes `server`, then the
    /// MERGE_FIELDS sync runs again.
    private static func editBothSidesAndReSync(
        _ harness: SyncHarness, _ entryId: Int64, local: [String: JSONValue], server: [String: JSONValue]
    ) async throws {
        try harness.store.soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: local)
        harness.simulator.advanceClock(seconds: 5)
        try harness.simulator.write(type: "Account", id: SyncHarness.accountId(0), fields: server)
        #expect(try await harness.manager.reSync(name: "down").status == .done)
    }

    private static func record(_ harness: SyncHarness, _ entryId: Int64) throws -> JSONValue {
        try #require(try harness.store.soups.retrieve(SyncHarness.soup, ids: [entryId]).first)
    }

    /// The fields of each record the sync ups' PATCH requests sent, oldest first, without the
    /// id and `attributes`.
    private static func patchBodies(_ harness: SyncHarness) throws -> [JSONValue] {
        try harness.simulator.requestLog().flatMap { entry -> [JSONValue] in
            guard entry["method"]?.string == "PATCH", let body = entry["body"]?.string else { return [] }
            let parsed = try JSONValue(parsing: Array(body.utf8))
            return (parsed["records"]?.array ?? [parsed]).compactMap { record in
                record.object.map { .object($0.filter { $0.key != "Id" && $0.key != "attributes" }) }
            }
        }
    }

    @Test(arguments: keys) func aLocalEditAndAServerEditOfAnotherFieldBothSurviveAndOnlyTheLocalFieldIsSent(
        key: StoreKey?
    ) async throws {
        try await SyncHarness.with(accounts: 1, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try await Self.editBothSidesAndReSync(harness, entryId, local: ["Name": "Mine"], server: ["Phone": "200"])
            let merged = try Self.record(harness, entryId)
            #expect(merged["Name"] == "Mine")
            #expect(merged["Phone"] == "200")
            #expect(merged["__local__"] == true)
            #expect(try harness.store.conflicts(soup: SyncHarness.soup).isEmpty)

            let up = try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup)
            #expect(up.status == .done, "\(up.error)")
            #expect(try Self.patchBodies(harness) == [["Name": "Mine"]])
            let server = try #require(try await harness.client.query("SELECT Name, Phone FROM Account").records.first)
            #expect(server["Name"] == "Mine")
            #expect(server["Phone"] == "200")
            #expect(try harness.store.soups.dirtyRecords(SyncHarness.soup).isEmpty)
        }
    }

    @Test(arguments: keys) func bothSidesChangingOneFieldIsListedAndTakingTheServerClearsItAndSendsNothing(
        key: StoreKey?
    ) async throws {
        try await SyncHarness.with(accounts: 1, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try await Self.editBothSidesAndReSync(harness, entryId, local: ["Name": "Mine"], server: ["Name": "Theirs"])

            let conflicts = try harness.store.conflicts(soup: SyncHarness.soup)
            #expect(conflicts.count == 1)
            let conflict = try #require(conflicts.first)
            #expect(conflict.kind == .fields)
            #expect(conflict.id == SyncHarness.accountId(0))
            #expect(
                conflict.fields == [
                    RecordConflict.Field(path: "Name", base: "Account 000", local: "Mine", server: "Theirs")
                ])
            #expect(try Self.record(harness, entryId)["Name"] == "Mine")

            // The conflict holds the sync up back: nothing is sent while it is open.
            let held = try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup)
            #expect(held.syncUpSummary?.skippedForMerge == [entryId])
            #expect(try Self.patchBodies(harness).isEmpty)

            #expect(try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: entryId, .take(.server)) == nil)
            #expect(try harness.store.conflicts(soup: SyncHarness.soup).isEmpty)
            let resolved = try Self.record(harness, entryId)
            #expect(resolved["Name"] == "Theirs")
            #expect(resolved["__local__"] == false)
            let up = try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup)
            #expect(up.syncUpSummary?.sent == 0)
            #expect(try Self.patchBodies(harness).isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(2))) func anObserverSeesAConflictOpenAndThenResolved() async throws {
        try await SyncHarness.with(accounts: 1) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            var conflicts = harness.store.observeConflicts(soup: SyncHarness.soup).makeAsyncIterator()
            #expect(try await conflicts.next() == [])

            try await Self.editBothSidesAndReSync(harness, entryId, local: ["Name": "Mine"], server: ["Name": "Theirs"])
            let opened = try #require(try await conflicts.next())
            #expect(opened.map(\.entryId) == [entryId])
            #expect(opened.first?.fields.map(\.path) == ["Name"])

            try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: entryId, .take(.local))
            #expect(try await conflicts.next() == [])
        }
    }

    @Test(arguments: keys) func takingTheLocalValueSendsItAndAGivenValueIsALocalEdit(key: StoreKey?) async throws {
        try await SyncHarness.with(accounts: 1, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try await Self.editBothSidesAndReSync(
                harness, entryId, local: ["Name": "Mine", "Phone": "111"], server: ["Name": "Theirs", "Phone": "222"])
            #expect(try harness.store.conflicts(soup: SyncHarness.soup).first?.fields.map(\.path) == ["Name", "Phone"])

            let remaining = try harness.store.resolveConflict(
                soup: SyncHarness.soup, entryId: entryId, .fields(["Name": .value("Both")]))
            #expect(remaining?.fields.map(\.path) == ["Phone"])
            #expect(try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: entryId, .take(.local)) == nil)
            #expect(throws: SyncError.self) {
                try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: entryId, .take(.local))
            }

            #expect(try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup).status == .done)
            #expect(try Self.patchBodies(harness) == [["Name": "Both", "Phone": "111"]])
        }
    }

    @Test(arguments: keys) func bothSidesChangingAFieldAlikeLeavesTheRecordClean(key: StoreKey?) async throws {
        try await SyncHarness.with(accounts: 1, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try await Self.editBothSidesAndReSync(harness, entryId, local: ["Name": "Same"], server: ["Name": "Same"])
            #expect(try harness.store.conflicts(soup: SyncHarness.soup).isEmpty)
            #expect(try Self.record(harness, entryId)["__local__"] == false)
        }
    }

    @Test(arguments: keys) func aLocalDeleteOfARecordTheServerChangedIsARecordConflictThatTheServerCanUndo(
        key: StoreKey?
    ) async throws {
        try await SyncHarness.with(accounts: 1, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try harness.store.soups.deleteLocally(SyncHarness.soup, entryId: entryId)
            harness.simulator.advanceClock(seconds: 5)
            try harness.simulator.write(type: "Account", id: SyncHarness.accountId(0), fields: ["Phone": "300"])
            #expect(try await harness.manager.reSync(name: "down").status == .done)

            let conflict = try #require(try harness.store.conflicts(soup: SyncHarness.soup).first)
            #expect(conflict.kind == .deletedLocally)
            // The audit fields the edit moved are the server's own, never a conflict.
            #expect(conflict.fields.map(\.path) == ["Phone"])
            #expect(throws: SyncError.self) {
                try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: entryId, .fields(["Phone": .local]))
            }
            try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: entryId, .take(.server))
            let restored = try Self.record(harness, entryId)
            #expect(restored["Phone"] == "300")
            #expect(restored["__locally_deleted__"] == false)
            #expect(restored["__local__"] == false)
        }
    }

    /// Found by the seeded simulation: the app's own upload moves the server's
    /// `LastModifiedDate`, which the local copy (the base of the next change) does not hold.
    @Test(arguments: keys) func aLocalDeleteAfterTheAppsOwnUploadIsNoConflictAndIsSent(key: StoreKey?) async throws {
        try await SyncHarness.with(accounts: 1, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try harness.store.soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: ["Name": "Mine"])
            harness.simulator.advanceClock(seconds: 5)
            #expect(try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup).status == .done)
            try harness.store.soups.deleteLocally(SyncHarness.soup, entryId: entryId)
            harness.simulator.advanceClock(seconds: 5)
            #expect(try await harness.manager.reSync(name: "down").status == .done)

            #expect(try harness.store.conflicts(soup: SyncHarness.soup).isEmpty)
            #expect(try Self.record(harness, entryId)["__locally_deleted__"] == true)
            #expect(try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup).status == .done)
            #expect(harness.simulator.liveRecords(type: "Account").isEmpty)
        }
    }

    @Test(arguments: keys) func anEditOfARecordTheServerDeletedIsARecordConflictNotARecreate(key: StoreKey?)
        async throws
    {
        try await SyncHarness.with(accounts: 1, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try harness.store.soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: ["Name": "Mine"])
            try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(0))

            _ = try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup)
            let conflict = try #require(try harness.store.conflicts(soup: SyncHarness.soup).first)
            #expect(conflict.kind == .deletedOnServer)
            #expect(
                conflict.fields == [RecordConflict.Field(path: "Name", base: "Account 000", local: "Mine", server: nil)]
            )
            #expect(try Self.record(harness, entryId)["__locally_created__"] == false)

            try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: entryId, .take(.server))
            #expect(try harness.store.soups.retrieve(SyncHarness.soup, ids: [entryId]).isEmpty)
        }
    }

    /// Ghost cleaning learns of server deletes too: under MERGE_FIELDS an edited record the
    /// server deleted is a conflict, not a deletion, while a clean one is a ghost as before and
    /// one deleted on both sides is no conflict.
    @Test(arguments: keys) func aGhostCleaningListsAnEditOfARecordTheServerDeletedAsAConflict(key: StoreKey?)
        async throws
    {
        try await SyncHarness.with(accounts: 3, encryption: key) { harness in
            let edited = try await Self.fetchedAccount(harness)
            let clean = try harness.entryId(of: SyncHarness.accountId(1))
            let deletedHere = try harness.entryId(of: SyncHarness.accountId(2))
            try harness.store.soups.updateLocally(SyncHarness.soup, entryId: edited, changes: ["Name": "Mine"])
            _ = try harness.store.soups.deleteLocally(SyncHarness.soup, entryId: deletedHere)
            for index in 0..<3 { try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(index)) }

            #expect(try await harness.manager.cleanResyncGhosts(name: "down") == 1)

            let conflicts = try harness.store.conflicts(soup: SyncHarness.soup)
            #expect(conflicts.map(\.entryId) == [edited])
            #expect(conflicts.first?.kind == .deletedOnServer)
            #expect(
                conflicts.first?.fields == [
                    RecordConflict.Field(path: "Name", base: "Account 000", local: "Mine", server: nil)
                ])
            #expect(try Self.record(harness, edited)["Name"] == "Mine")
            #expect(try harness.store.soups.retrieve(SyncHarness.soup, ids: [clean]).isEmpty)
            #expect(try Self.record(harness, deletedHere)["__locally_deleted__"] == true)

            try harness.store.resolveConflict(soup: SyncHarness.soup, entryId: edited, .take(.local))
            #expect(try await harness.manager.syncUp(options: Self.push, soupName: SyncHarness.soup).status == .done)
            #expect(harness.simulator.liveRecords(type: "Account").map { $0["Name"] } == ["Mine"])
        }
    }

    /// Under LEAVE_IF_CHANGED a dirty record is never a ghost and nothing is listed, as in
    /// Mobile SDK.
    @Test func aGhostCleaningUnderLeaveIfChangedKeepsAnEditedRecordWithoutAConflict() async throws {
        try await SyncHarness.with(accounts: 1) { harness in
            try await harness.manager.syncDown(
                target: try SyncDownTargetDescriptor(.soql(query: Self.query)),
                options: SyncOptions(mergeMode: .leaveIfChanged), soupName: SyncHarness.soup, name: "down")
            let edited = try harness.entryId(of: SyncHarness.accountId(0))
            try harness.store.soups.updateLocally(SyncHarness.soup, entryId: edited, changes: ["Name": "Mine"])
            try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(0))

            #expect(try await harness.manager.cleanResyncGhosts(name: "down") == 0)
            #expect(try harness.store.conflicts(soup: SyncHarness.soup).isEmpty)
            #expect(try Self.record(harness, edited)["Name"] == "Mine")
        }
    }

    @Test(arguments: keys) func aCompactedStoreKeepsTheBaseOfEveryDirtyRecord(key: StoreKey?) async throws {
        try await SyncHarness.with(accounts: 3, encryption: key) { harness in
            let entryId = try await Self.fetchedAccount(harness)
            try harness.store.soups.updateLocally(SyncHarness.soup, entryId: entryId, changes: ["Name": "Mine"])
            for number in 0..<30 {
                try harness.store.soups.updateLocally(
                    SyncHarness.soup, entryId: try harness.entryId(of: SyncHarness.accountId(1)),
                    changes: ["Phone": .string("\(number)")])
            }
            let report = try harness.store.journal.compact(retention: RetentionPolicy(entryCount: 5))
            #expect(report.removedEntries > 0)
            harness.simulator.advanceClock(seconds: 5)
            try harness.simulator.write(type: "Account", id: SyncHarness.accountId(0), fields: ["Phone": "900"])
            #expect(try await harness.manager.reSync(name: "down").status == .done)

            let merged = try Self.record(harness, entryId)
            #expect(merged["Name"] == "Mine")
            #expect(merged["Phone"] == "900")
            #expect(try harness.store.conflicts(soup: SyncHarness.soup).isEmpty)
        }
    }

    @Test func parentChildrenAndBriefcaseTargetsRefuseMergeFields() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            let briefcase = try SyncDownTargetDescriptor(
                .briefcase(
                    infos: [
                        BriefcaseObjectInfo(sobjectType: "Account", fieldlist: ["Name"], soupName: SyncHarness.soup)
                    ]
                ))
            let error = await #expect(throws: SyncError.self) {
                try await harness.manager.createSyncDown(
                    target: briefcase, options: Self.merge, soupName: SyncHarness.soup)
            }
            #expect(error?.code == .unsupportedMergeMode)
        }
    }
}
