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

/// A sync-down session replays from its journal alone: no server, same projections.
@Suite struct SyncDownReplayTests {
    @Test func aSessionImportedIntoAFreshStoreHasTheSameSoupsAndSyncStates() async throws {
        let exportDirectory = try TemporaryDirectory("sync-replay")
        defer { exportDirectory.remove() }
        let file = exportDirectory.appending("session.jsonl")
        let original = try await SyncHarness.with(accounts: 6) { harness in
            let manager = harness.manager
            try await manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(), options: SyncOptions(mergeMode: .leaveIfChanged),
                soupName: SyncHarness.soup, name: "session")
            try harness.store.soups.updateLocally(
                SyncHarness.soup, entryId: harness.entryId(of: SyncHarness.accountId(0)), changes: ["Name": "Mine"])
            try harness.simulator.write(type: "Account", id: SyncHarness.accountId(0), fields: ["Name": "Theirs"])
            try harness.simulator.write(type: "Account", id: SyncHarness.accountId(1), fields: ["Name": "Theirs"])
            try harness.simulator.delete(type: "Account", id: SyncHarness.accountId(2))
            try await manager.reSync(name: "session")
            #expect(try await manager.cleanResyncGhosts(name: "session") == 1)
            var lines: [UInt8] = []
            try harness.store.journal.export { line in lines += line + [UInt8(ascii: "\n")] }
            try Data(lines).write(to: file)
            return (records: try harness.records(), states: try harness.store.syncStates())
        }
        let replayDirectory = try TemporaryDirectory("sync-replayed")
        defer { replayDirectory.remove() }
        let replayed = try SyncStore(
            directory: replayDirectory.appending("store"), clock: ManualWallClock(), logger: .discarding)
        try replayed.journal.importEntries(from: file)
        let records = try replayed.soups.query(
            QuerySpec.all(SyncHarness.soup, orderPath: "_soupEntryId", pageSize: 100))
        #expect(records == original.records)
        #expect(try replayed.syncStates() == original.states)
        #expect(records.first?["Name"] == "Mine")
        #expect(try replayed.journal.verify().isConsistent)
    }
}
