import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// The getting-started article's steps (MobileSync.docc/GettingStarted.md), run against the
/// simulator, so the article's calls stay true.
@Suite struct GettingStartedTests {
    @Test func theArticlesStepsSyncDownChangeOfflineSyncUpAndObserveAQuery() async throws {
        try await RelatedRecordsHarness.with(accounts: 3, contactsPerAccount: 0) { harness in
            let (store, manager) = (harness.store, harness.manager)
            let target = try SyncDownTargetDescriptor(.soql(query: "SELECT Id, Name, LastModifiedDate FROM Account"))
            let down = try await manager.syncDown(
                target: target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts",
                name: "accounts")
            #expect(down.status == .done)
            #expect(try await manager.reSync(name: "accounts").status == .done)

            let query = QuerySpec.all("accounts", orderPath: "Name", pageSize: 50)
            var pages = store.soups.observeQuery(query).makeAsyncIterator()
            #expect(try await pages.next()?.count == 3)

            _ = try store.soups.createLocally("accounts", ["Name": "Acme", "attributes": ["type": "Account"]])
            #expect(try await pages.next()?.count == 4)
            let up = try await manager.syncUp(
                options: SyncOptions(mergeMode: .overwrite, fieldlist: ["Name"]), soupName: "accounts")
            #expect(up.status == .done)
            let uploaded = try await pages.next()
            #expect(uploaded?.first { $0["Name"]?.string == "Acme" }?["__local__"] == false)
            #expect(harness.simulator.liveRecords(type: "Account").contains { $0["Name"]?.string == "Acme" })
        }
    }
}
