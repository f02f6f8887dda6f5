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

/// `cleanResyncGhosts` against the simulator, with two syncs sharing one soup.
@Suite struct GhostCleaningEndToEndTests {
    static let withSyncIdIndex = [IndexSpec(path: "Id", type: .string), IndexSpec(path: "__sync_id__", type: .integer)]
    static let withoutSyncIdIndex = [IndexSpec(path: "Id", type: .string)]

    static func target(_ names: [String]) throws -> SyncDownTargetDescriptor {
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        return try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account WHERE Name IN (\(list))"))
    }

    @Test(arguments: [withSyncIdIndex, withoutSyncIdIndex])
    func ghostCleaningDeletesOnlyTheCleanRecordsOfItsOwnSync(indexes: [IndexSpec]) async throws {
        try await SyncHarness.with(accounts: 5, indexes: indexes) { harness in
            let manager = harness.manager
            try await manager.syncDown(
                target: Self.target(["Account 000", "Account 001", "Account 002"]), soupName: SyncHarness.soup,
                name: "first")
            try await manager.syncDown(
                target: Self.target(["Account 003", "Account 004"]), soupName: SyncHarness.soup, name: "second")
            #expect(try harness.records().count == 5)
            for number in [0, 1, 3] { try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(number)) }
            // A dirty record is never a ghost, even when the server deleted it.
            try harness.store.soups.updateLocally(
                SyncHarness.soup, entryId: harness.entryId(of: SyncHarness.accountId(0)), changes: ["Name": "Mine"])
            #expect(try await manager.cleanResyncGhosts(name: "first") == 1)
            var ids = Set(try harness.recordsById().keys)
            #expect(!ids.contains(SyncHarness.accountId(1)))
            #expect(ids.contains(SyncHarness.accountId(0)))
            #expect(ids.contains(SyncHarness.accountId(3)), "the other sync's record is not this sync's ghost")
            #expect(try await manager.cleanResyncGhosts(name: "second") == 1)
            ids = Set(try harness.recordsById().keys)
            #expect(ids == [SyncHarness.accountId(0), SyncHarness.accountId(2), SyncHarness.accountId(4)])
            let sent = harness.soqlSent().last
            #expect(sent == "select Id from Account where Name IN ('Account 003', 'Account 004')")
            #expect(try await manager.getSyncStatus(name: "second")?.status == .done, "cleaning leaves the state alone")
        }
    }

    /// Decision 0319: uploaded creates that the server deleted before any sync down owned them.
    @Test func ghostCleaningAlsoRemovesCleanRecordsNoSyncOwnsThatTheServerNoLongerHas() async throws {
        try await SyncHarness.with(accounts: 2) { harness in
            let manager = harness.manager
            let soups = harness.store.soups
            // Every Account: the cleaning's remote ids then include the uploaded creates still on
            // the server, which are therefore not asked for again.
            try await manager.syncDown(
                target: SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account")), soupName: SyncHarness.soup,
                name: "down")
            var created: [String: Int64] = [:]
            for name in ["Deleted", "Kept", "Edited"] {
                let record = try soups.createLocally(
                    SyncHarness.soup, ["Name": .string(name), "attributes": ["type": "Account"]])
                created[name] = try #require(record["_soupEntryId"]?.number?.int64Value)
            }
            let up = try await manager.syncUp(options: SyncOptions(fieldlist: ["Name"]), soupName: SyncHarness.soup)
            #expect(up.syncUpSummary?.succeeded == 3)
            func serverId(_ name: String) throws -> String {
                try #require(try soups.retrieve(SyncHarness.soup, ids: [created[name] ?? 0]).first?["Id"]?.string)
            }
            let (deleted, kept, edited) = (try serverId("Deleted"), try serverId("Kept"), try serverId("Edited"))
            _ = try soups.updateLocally(SyncHarness.soup, entryId: created["Edited"] ?? 0, changes: ["Name": "Mine"])
            for id in [deleted, edited] { try harness.simulator.delete(type: "Account", id: id) }
            // Clean, owned by no sync, but without an sObject type: it cannot be checked, so it stays.
            try soups.create(
                SyncHarness.soup, ["Id": "001000000000999AAA", "Name": "Untyped", "__local__": false])
            // Another sync's record that the server lacks stays too (decision 0313).
            try soups.create(
                SyncHarness.soup,
                [
                    "Id": "001000000000998AAA", "Name": "Other", "__local__": false, "__sync_id__": 99,
                    "attributes": ["type": "Account"],
                ])
            let queriesBefore = harness.soqlSent().count

            #expect(try await manager.cleanResyncGhosts(name: "down") == 1)
            let ids = Set(try harness.recordsById().keys)
            #expect(!ids.contains(deleted))
            #expect(ids.isSuperset(of: [kept, edited, "001000000000999AAA", "001000000000998AAA"]))
            #expect(ids.isSuperset(of: [SyncHarness.accountId(0), SyncHarness.accountId(1)]))
            let queries = harness.soqlSent().dropFirst(queriesBefore)
            #expect(queries.last == "SELECT Id FROM Account WHERE Id IN ('\(deleted)')", "only ids the target lacks")
            let cleanings = try harness.store.journal.read { reader in
                var payloads: [JSONValue] = []
                try reader.forEachEntry(in: 1...(try reader.lastSequence)) { entry in
                    if entry.kind.rawValue == "sync.ghosts.cleaned" { payloads.append(try entry.jsonPayload()) }
                    return true
                }
                return payloads
            }
            #expect(cleanings.last?["unownedGhostIds"] == [.string(deleted)])
            #expect(cleanings.last?["ghostIds"] == [])
            let history = try RecordHistory(journal: harness.store.journal, soup: SyncHarness.soup, id: deleted)
            #expect(history.events.last?.action.contains("no sync owned it and the server no longer has it") == true)
        }
    }

    @Test func withoutAConnectionUnownedRecordsAreKept() async throws {
        let (registry, _, proceed) = PagedTestTarget.held(count: 2)
        await proceed.open()
        try await SyncHarness.with(accounts: 0, targets: registry) { harness in
            let manager = try SyncManager(
                store: harness.store, client: nil, targets: registry, clock: ManualWallClock(), logger: .discarding)
            try await manager.syncDown(target: PagedTestTarget.descriptor, soupName: SyncHarness.soup, name: "down")
            try harness.store.soups.create(
                SyncHarness.soup,
                ["Id": "001000000000997AAA", "__local__": false, "attributes": ["type": "Account"]])
            #expect(try await manager.cleanResyncGhosts(name: "down") == 0)
            #expect(try harness.recordsById()["001000000000997AAA"] != nil)
        }
    }

    @Test func ghostCleaningIsRefusedForUnknownAndSyncUpSyncs() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            await #expect {
                try await harness.manager.cleanResyncGhosts(name: "missing")
            } throws: { ($0 as? SyncError)?.message == "Sync missing does not exist" }
            let config = #"""
                {"syncs": [{"syncName": "up", "syncType": "syncUp", "soupName": "accounts", "target": {},
                            "options": {"mergeMode": "OVERWRITE"}}]}
                """#
            let up = try #require(
                try await harness.manager.setupSyncs(from: SyncsConfig(bytes: Array(config.utf8))).first)
            await #expect {
                try await harness.manager.cleanResyncGhosts(id: up.id)
            } throws: { ($0 as? SyncError)?.message == "Cannot run cleanResyncGhosts:\(up.id): wrong type:syncUp" }
        }
    }

    /// Decision 0308 (quirk §2.19.8): a cleaning stopped before it starts still leaves the active
    /// set, so after a restart the same sync can be re-synced and cleaned.
    @Test func aGhostCleaningStoppedWhileQueuedLeavesTheSyncUsable() async throws {
        let (registry, started, proceed) = PagedTestTarget.held(count: 2)
        try await SyncHarness.with(accounts: 2, targets: registry) { harness in
            let manager = harness.manager
            let cleaned = try await manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup, name: "cleaned")
            let slow = try await manager.createSyncDown(
                target: PagedTestTarget.descriptor, soupName: SyncHarness.soup, name: "slow")
            let running = Task { try await manager.reSync(id: slow.id) }
            await started.wait()
            let cleaning = Task { try await manager.cleanResyncGhosts(id: cleaned.id) }
            while !manager.isActive(syncId: cleaned.id) { await Task.yield() }
            await #expect {
                try await manager.reSync(id: cleaned.id)
            } throws: { ($0 as? SyncError)?.code == .syncRunning }
            manager.stop()
            #expect(manager.isStopping)
            await proceed.open()
            #expect(try await running.value.status == .stopped)
            await #expect {
                try await cleaning.value
            } throws: { ($0 as? SyncError)?.message == "sync manager has state:STOP_REQUESTED" }
            #expect(manager.isStopped)
            try await manager.restart(restartStoppedSyncs: false)
            #expect(try await manager.reSync(id: cleaned.id).status == .done)
            #expect(try await manager.cleanResyncGhosts(id: cleaned.id) == 0)
        }
    }
}
