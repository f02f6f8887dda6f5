import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// The built-in SOSL, MRU and Refresh targets, a custom paged target, and config files.
@Suite struct SyncDownTargetsEndToEndTests {
    @Test func aCustomPagedTargetIsFoundByNameAndReportsEveryPage() async throws {
        let registry = PagedTestTarget.registry(pages: PagedTestTarget.pages(count: 6, pageSize: 2))
        try await SyncHarness.with(accounts: 0, targets: registry) { harness in
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.syncDown(
                target: PagedTestTarget.descriptor, soupName: SyncHarness.soup, name: "custom",
                onUpdate: { reports.append($0) })
            #expect(
                reports.all.map(\.progressSummary) == [
                    "RUNNING(0,-1)", "RUNNING(0,6)", "RUNNING(33,6)", "RUNNING(66,6)", "DONE(100,6)",
                ])
            #expect(
                try harness.records().compactMap { $0["Id"]?.string } == [
                    "C000", "C001", "C002", "C003", "C004", "C005",
                ])
            #expect(try harness.store.journal.count(of: .syncDownPageFetched) == 3)
            // Sorted by modification date: a resync asks only for what is newer than the watermark.
            let again = try await harness.manager.reSync(id: final.id)
            #expect(again.progressSummary == "DONE(100,0)")
        }
    }

    @Test func anUnregisteredCustomTargetFailsTheSyncWithAClearError() async throws {
        try await SyncHarness.with(accounts: 0) { harness in
            let final = try await harness.manager.syncDown(
                target: PagedTestTarget.descriptor, soupName: SyncHarness.soup)
            #expect(final.status == .failed)
            #expect(final.error == "No custom sync down target is registered under \"PagedTarget\".")
        }
    }

    @Test func aPageAboveTheRecordLimitFailsTheSyncAndSavesNothing() async throws {
        let registry = PagedTestTarget.registry(
            pages: PagedTestTarget.pages(
                count: SyncManager.pageRecordCountMax + 1, pageSize: SyncManager.pageRecordCountMax + 1))
        try await SyncHarness.with(accounts: 0, targets: registry) { harness in
            let final = try await harness.manager.syncDown(
                target: PagedTestTarget.descriptor, soupName: SyncHarness.soup)
            #expect(final.status == .failed)
            #expect(final.error == "A page of 100001 records exceeds the limit of 100000.")
            #expect(try harness.records().isEmpty)
        }
    }

    @Test func soslTargetSavesTheSearchResultsInOnePage() async throws {
        try await SyncHarness.with(accounts: 3) { harness in
            let target = try SyncDownTargetDescriptor(
                .sosl(query: "FIND {Account} IN NAME FIELDS RETURNING Account(Id, Name, LastModifiedDate)"))
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.syncDown(
                target: target, soupName: SyncHarness.soup, onUpdate: { reports.append($0) })
            #expect(reports.all.map(\.progressSummary) == ["RUNNING(0,-1)", "RUNNING(0,3)", "DONE(100,3)"])
            #expect(final.maxTimeStamp == SyncHarness.modified(2))
            #expect(try harness.records().count == 3)
            #expect(harness.simulator.requestLog().contains { $0["path"]?.string?.hasSuffix("/search") == true })
        }
    }

    @Test func mruTargetFetchesTheRecentItemsWithItsFieldList() async throws {
        try await SyncHarness.with(accounts: 4, recentAccounts: [3, 1]) { harness in
            let target = try SyncDownTargetDescriptor(
                .mru(sobjectType: "Account", fieldlist: ["Id", "Name", "LastModifiedDate"]))
            let final = try await harness.manager.syncDown(target: target, soupName: SyncHarness.soup)
            #expect(final.progressSummary == "DONE(100,2)")
            #expect(Set(try harness.recordsById().keys) == [SyncHarness.accountId(3), SyncHarness.accountId(1)])
            let ids = "'\(SyncHarness.accountId(3))', '\(SyncHarness.accountId(1))'"
            #expect(harness.soqlSent() == ["select Id, Name, LastModifiedDate from Account where Id IN (\(ids))"])
        }
    }

    @Test func refreshTargetRefetchesTheSoupsRecordsInSlices() async throws {
        try await SyncHarness.with(accounts: 5) { harness in
            try await harness.manager.syncDown(
                target: SyncDownEndToEndTests.soqlTarget(), soupName: SyncHarness.soup, name: "seed")
            try harness.simulator.write(type: "Account", id: SyncHarness.accountId(1), fields: ["Name": "Fresh"])
            let target = try SyncDownTargetDescriptor(
                .refresh(sobjectType: "Account", fieldlist: ["Name"], soupName: SyncHarness.soup, countIdsPerSoql: 2))
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.syncDown(
                target: target, soupName: SyncHarness.soup, name: "refresh", onUpdate: { reports.append($0) })
            #expect(
                reports.all.map(\.progressSummary) == [
                    "RUNNING(0,-1)", "RUNNING(0,5)", "RUNNING(40,5)", "RUNNING(80,5)", "DONE(100,5)",
                ])
            #expect(final.status == .done, "\(final.error)")
            let refreshQueries = harness.soqlSent().dropFirst()
            #expect(refreshQueries.count == 3)
            #expect(
                refreshQueries.allSatisfy {
                    $0.hasPrefix("select Name, Id, LastModifiedDate from Account where Id IN (")
                })
            #expect(try harness.recordsById()[SyncHarness.accountId(1)]?["Name"] == "Fresh")
        }
    }

    @Test func configFileSyncsAreCreatedOnceAndRunByName() async throws {
        let config = #"""
            {"syncs": [
              {"syncName": "accountsDown", "syncType": "syncDown", "soupName": "accounts",
               "target": {"type": "soql", "query": "SELECT Id, Name, LastModifiedDate FROM Account", "maxBatchSize": 500},
               "options": {"mergeMode": "LEAVE_IF_CHANGED"}},
              {"syncName": "pagedDown", "syncType": "syncDown", "soupName": "accounts",
               "target": {"androidImpl": "com.example.PagedTarget"}, "options": {"mergeMode": "OVERWRITE"}},
              {"syncName": "accountsUp", "syncType": "syncUp", "soupName": "accounts",
               "target": {}, "options": {"fieldlist": ["Name"], "mergeMode": "OVERWRITE"}}
            ]}
            """#
        let registry = PagedTestTarget.registry(pages: PagedTestTarget.pages(count: 2, pageSize: 2))
        try await SyncHarness.with(accounts: 2, targets: registry) { harness in
            let parsed = try SyncsConfig(bytes: Array(config.utf8))
            let created = try await harness.manager.setupSyncs(from: parsed)
            #expect(created.map(\.name) == ["accountsDown", "pagedDown", "accountsUp"])
            #expect(created.allSatisfy { $0.status == .new })
            #expect(try await harness.manager.setupSyncs(from: parsed).isEmpty)
            #expect(try await harness.manager.reSync(name: "accountsDown").progressSummary == "DONE(100,2)")
            #expect(harness.queryOptionsSent() == ["batchSize=500"])
            #expect(try await harness.manager.reSync(name: "pagedDown").progressSummary == "DONE(100,2)")
            #expect(try harness.records().count == 4)
            // The config's sync up runs by name too: nothing is dirty, so it sends nothing.
            let up = try await harness.manager.reSync(name: "accountsUp")
            #expect(up.progressSummary == "DONE(100,0)")
            #expect(up.syncUpSummary?.sent == 0)
            let unknownSoup = #"""
                {"syncs": [
                  {"syncName": "fine", "syncType": "syncDown", "soupName": "accounts",
                   "target": {"type": "sosl", "query": "FIND {a}"}, "options": {"mergeMode": "OVERWRITE"}},
                  {"syncName": "elsewhere", "syncType": "syncDown", "soupName": "contacts",
                   "target": {"type": "sosl", "query": "FIND {a}"}, "options": {"mergeMode": "OVERWRITE"}}
                ]}
                """#
            await #expect(throws: SoupError.self) {
                try await harness.manager.setupSyncs(from: SyncsConfig(bytes: Array(unknownSoup.utf8)))
            }
            #expect(try await harness.manager.hasSync(named: "fine") == false, "a refused file creates nothing")
        }
    }
}
