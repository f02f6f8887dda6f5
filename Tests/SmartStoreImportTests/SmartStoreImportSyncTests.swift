import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SmartStoreImport
import Soups
import SyncTesting
import Testing

/// After an import, syncs carry on where Mobile SDK left them: sync up sends exactly the dirty
/// records, and a reSync asks from the imported watermark.
@Suite struct SmartStoreImportSyncTests {
    /// Imports the sample into a new store and runs `body` with a manager on the simulated org.
    static func withImportedManager<T>(_ body: (SyncStore, SyncManager, SimulatedOrg) async throws -> T)
        async throws -> T
    {
        let directory = try TemporaryDirectory("smartstore-import-sync")
        defer { directory.remove() }
        let sample = try SmartStoreSample(url: directory.appending("smartstore.db"))
        let store = try SyncStore(
            directory: directory.appending("store"), clock: SmartStoreImportTests.clock,
            idGenerator: IncrementingIDGenerator(), logger: .discarding)
        try store.importSmartStore(try SmartStoreDatabase(contentsOf: sample.url))
        return try await SimulatedOrg.with { org in
            let manager = try SyncManager(
                store: store, client: org.client, clock: SmartStoreImportTests.clock, logger: .discarding)
            let result = try await body(store, manager, org)
            let report = try store.journal.verify()
            #expect(report.isConsistent, "verify: \(report.divergences)")
            return result
        }
    }

    @Test func theImportedSyncUpSendsExactlyTheDirtyRecords() async throws {
        try await Self.withImportedManager { store, manager, org in
            let final = try await manager.reSync(name: "accountsUp")

            #expect(final.status == .done, "\(final.error)")
            #expect(final.syncUpSummary?.sent == 3)
            let requests = org.requests()
            #expect(!requests.contains { $0.contains(SmartStoreSample.clean) }, "\(requests)")
            let updated = try await org.client.query(
                "SELECT Id, Name FROM Account WHERE Id = '\(SmartStoreSample.updated)'")
            #expect(updated.records.first?["Name"] == "Renamed locally")
            let deleted = try await org.client.query(
                "SELECT Id FROM Account WHERE Id = '\(SmartStoreSample.deleted)'")
            #expect(deleted.records.isEmpty)
            let created = try await org.client.query("SELECT Id FROM Account WHERE Name = 'Created offline'")
            #expect(created.records.count == 1)
            let clean = try await org.client.query("SELECT Name FROM Account WHERE Id = '\(SmartStoreSample.clean)'")
            #expect(clean.records.first?["Name"] == "Café Crème")
            #expect(try store.soups.dirtyRecords("accounts").isEmpty)
        }
    }

    @Test func aReSyncOfTheStoppedSyncDownAsksFromTheImportedWatermark() async throws {
        try await Self.withImportedManager { store, manager, org in
            let final = try await manager.reSync(name: "accountsDown")

            #expect(final.status == .done, "\(final.error)")
            let soql = try #require(org.soqlSent().first?.removingPercentEncoding)
            // STOPPED: the target is handed the watermark minus 1 ms, whose second starts at 00:00:59.
            #expect(soql.contains("LastModifiedDate >= 2023-01-01T00:00:59"), "\(soql)")
            #expect(final.maxTimeStamp >= SmartStoreSample.watermark)
            // LEAVE_IF_CHANGED: the dirty records fetched again are left as they were.
            let dirty = try store.soups.dirtyRecords("accounts").compactMap { $0["Id"]?.string }
            #expect(dirty == [SmartStoreSample.updated, SmartStoreSample.deleted, "local_17"])
        }
    }
}
