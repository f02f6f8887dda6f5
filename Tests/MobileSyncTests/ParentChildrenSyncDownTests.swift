import Determinism
import EventJournal
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import Testing

/// Parent/children sync down against the simulator: parents and children in their own soups,
/// reSync, both merge modes and ghost cleaning.
@Suite struct ParentChildrenSyncDownTests {
    typealias Harness = RelatedRecordsHarness

    @Test func aFirstSyncStoresParentsAndChildrenInTheirSoupsWithTheParentId() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 2) { harness in
            let reports = Recorder<SyncState>()
            let final = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "tree",
                onUpdate: { reports.append($0) })
            #expect(reports.all.map(\.progressSummary) == ["RUNNING(0,-1)", "RUNNING(0,3)", "DONE(100,3)"])
            let accounts = try harness.byId(Harness.accounts)
            let contacts = try harness.records(Harness.contacts)
            #expect(accounts.count == 3)
            #expect(
                accounts.values.allSatisfy {
                    $0["Contacts"] == nil && $0["__sync_id__"] == .number(JSONNumber(final.id))
                })
            #expect(contacts.count == 6)
            for contact in contacts {
                let account = try #require(contact["AccountId"]?.string)
                #expect(accounts[account] != nil)
                #expect(contact["__local__"] == false)
                #expect(contact["__sync_id__"] == .number(JSONNumber(final.id)))
            }
            // The watermark is the latest of parents and children: the last Contact's date.
            let lastContact = try #require(
                WallTime(iso8601: contacts.compactMap { $0["LastModifiedDate"]?.string }.max() ?? ""))
            #expect(final.maxTimeStamp == lastContact.millisecondsSinceEpoch)
            let pages = try harness.store.journal.entries(of: .syncDownPageFetched)
            #expect(pages.count == 1)
            #expect(pages.first?.header["childrenSoup"] == .string(Harness.contacts))
            #expect(pages.first?.header["advancesWatermark"] == .bool(false))
        }
    }

    @Test func aParentWithoutChildrenIsStoredAloneAndChildrenOfOtherParentsAreUntouched() async throws {
        try await Harness.with(accounts: 2, contactsPerAccount: 0) { harness in
            try harness.simulator.write(
                type: "Contact", fields: ["LastName": "Only child", "AccountId": .string(Harness.accountId(1))])
            let final = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts)
            #expect(final.status == .done, "\(final.error)")
            #expect(try harness.records(Harness.accounts).count == 2)
            let contacts = try harness.records(Harness.contacts)
            #expect(contacts.map { $0["AccountId"] } == [.string(Harness.accountId(1))])
        }
    }

    @Test func reSyncFetchesChangedParentsAndChildrenChangedUnderUnchangedParents() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 2) { harness in
            let first = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "tree")
            // Account 0 is unchanged but one of its Contacts changes; Account 2 changes alone.
            try harness.simulator.write(
                type: "Contact", id: Harness.contactId(1), fields: ["LastName": "Renamed child"])
            try harness.simulator.write(type: "Account", id: Harness.accountId(2), fields: ["Name": "Renamed parent"])
            try harness.simulator.write(
                type: "Contact", fields: ["LastName": "New child", "AccountId": .string(Harness.accountId(1))])
            let before = harness.soqlSent().count
            let again = try await harness.manager.reSync(name: "tree")
            #expect(again.status == .done)
            #expect(again.maxTimeStamp > first.maxTimeStamp)
            #expect(harness.soqlSent().count - before == 2)
            let contacts = try harness.byId(Harness.contacts)
            #expect(contacts[Harness.contactId(1)]?["LastName"] == "Renamed child")
            #expect(contacts.count == 7)
            #expect(try harness.byId(Harness.accounts)[Harness.accountId(2)]?["Name"] == "Renamed parent")
            // Nothing changed since: a second reSync fetches the watermark's tree again (the
            // server's count, as in Mobile SDK) and stores nothing new.
            let third = try await harness.manager.reSync(name: "tree")
            #expect(third.progressSummary == "DONE(100,1)")
            #expect(third.changedCount == 0)
        }
    }

    /// As for SOQL (decision 0325): once the server's clock is past the watermark's second,
    /// both queries of the next reSync ask after the settled second and fetch nothing again.
    @Test func aReSyncAfterASettledSecondAsksAfterItAndFetchesNothingAgain() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 2) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "tree")
            harness.simulator.advanceClock(seconds: 5)
            try harness.simulator.write(type: "Contact", id: Harness.contactId(1), fields: ["LastName": "Renamed"])
            let changed = try await harness.manager.reSync(name: "tree")
            #expect(changed.changedCount >= 1)
            // Right after, the edit's second is not settled: it comes again. Seconds later it is.
            harness.simulator.advanceClock(seconds: 5)
            let later = try await harness.manager.reSync(name: "tree")
            #expect(later.changedCount == 0)
            #expect(later.settledThrough > later.maxTimeStamp)
            let before = harness.soqlSent().count
            let settled = try await harness.manager.reSync(name: "tree")
            #expect(settled.progressSummary == "DONE(100,0)")
            #expect(settled.fetchedCount == 0)
            let queries = harness.soqlSent().dropFirst(before)
            #expect(queries.count == 2)
            let settledFrom = WallTime(millisecondsSinceEpoch: later.settledThrough + 1).salesforceFormat
            #expect(queries.allSatisfy { $0.contains(">= \(settledFrom)") }, "\(queries)")
        }
    }

    @Test func aTreeFetchedAgainUnchangedKeepsALocalChildEditAndCountsNothing() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 2) { harness in
            // Contact 1 changes on the server just before the sync, so its second is not settled.
            try harness.simulator.write(type: "Contact", id: Harness.contactId(1), fields: [:])
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "tree")
            // Contact 1 is the newest record: the reSync's window opens in its second (decision
            // 0321), so it is fetched again, under its parent, as the server still has it.
            let child = try harness.entryId(Harness.contacts, Harness.contactId(1))
            _ = try harness.store.soups.updateLocally(Harness.contacts, entryId: child, changes: ["LastName": "Mine"])
            let again = try await harness.manager.reSync(name: "tree")
            #expect(again.progressSummary == "DONE(100,1)")
            #expect(again.changedCount == 0)
            let page = try #require(try harness.store.journal.entries(of: .syncDownPageFetched).last)
            #expect(try page.jsonPayload().array?.count == 1)
            let contact = try #require(try harness.byId(Harness.contacts)[Harness.contactId(1)])
            #expect(contact["LastName"] == "Mine")
            #expect(contact["__local__"] == true)
            #expect(try harness.byId(Harness.contacts)[Harness.contactId(0)]?["__local__"] == false)
        }
    }

    @Test func leaveIfChangedKeepsADirtyChildAndStillRefreshesItsParentAndSiblings() async throws {
        try await Harness.with(accounts: 2, contactsPerAccount: 2) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), options: SyncOptions(mergeMode: .leaveIfChanged),
                soupName: Harness.accounts, name: "tree")
            let child = try harness.entryId(Harness.contacts, Harness.contactId(0))
            _ = try harness.store.soups.updateLocally(Harness.contacts, entryId: child, changes: ["LastName": "Mine"])
            try harness.simulator.write(type: "Account", id: Harness.accountId(0), fields: ["Name": "Theirs"])
            try harness.simulator.write(type: "Contact", id: Harness.contactId(0), fields: ["LastName": "Theirs"])
            try harness.simulator.write(type: "Contact", id: Harness.contactId(1), fields: ["LastName": "Theirs too"])
            let again = try await harness.manager.reSync(name: "tree")
            #expect(again.status == .done)
            let accounts = try harness.byId(Harness.accounts)
            let contacts = try harness.byId(Harness.contacts)
            // Only the dirty child is left alone: a sibling skipped with it would never be
            // fetched again once the watermark passed its change (decision 0322).
            #expect(contacts[Harness.contactId(0)]?["LastName"] == "Mine")
            #expect(contacts[Harness.contactId(0)]?["__local__"] == true)
            #expect(contacts[Harness.contactId(1)]?["LastName"] == "Theirs too")
            #expect(accounts[Harness.accountId(0)]?["Name"] == "Theirs")
            // And a dirty parent is left alone while its clean children are refreshed.
            let parent = try harness.entryId(Harness.accounts, Harness.accountId(1))
            _ = try harness.store.soups.updateLocally(Harness.accounts, entryId: parent, changes: ["Name": "Mine"])
            try harness.simulator.write(type: "Account", id: Harness.accountId(1), fields: ["Name": "Theirs"])
            try harness.simulator.write(type: "Contact", id: Harness.contactId(2), fields: ["LastName": "Fresh"])
            _ = try await harness.manager.reSync(name: "tree")
            #expect(try harness.byId(Harness.accounts)[Harness.accountId(1)]?["Name"] == "Mine")
            #expect(try harness.byId(Harness.contacts)[Harness.contactId(2)]?["LastName"] == "Fresh")
        }
    }

    @Test func overwriteWritesTheServerTreeOverLocalChanges() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 1) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "tree")
            let parent = try harness.entryId(Harness.accounts, Harness.accountId(0))
            _ = try harness.store.soups.updateLocally(Harness.accounts, entryId: parent, changes: ["Name": "Mine"])
            try harness.simulator.write(type: "Contact", id: Harness.contactId(0), fields: ["LastName": "Theirs"])
            try harness.simulator.write(type: "Account", id: Harness.accountId(0), fields: ["Name": "Theirs"])
            _ = try await harness.manager.reSync(name: "tree")
            let account = try #require(try harness.byId(Harness.accounts)[Harness.accountId(0)])
            #expect(account["Name"] == "Theirs")
            #expect(account["__local__"] == false)
            #expect(try harness.byId(Harness.contacts)[Harness.contactId(0)]?["LastName"] == "Theirs")
        }
    }

    @Test func ghostCleaningRemovesParentsAndChildrenGoneFromTheServerButKeepsAParentWithADirtyChild() async throws {
        try await Harness.with(accounts: 3, contactsPerAccount: 2) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "tree")
            // Account 2 goes with its Contacts; one Contact of Account 0 goes alone; Account 1
            // goes too, but one of its Contacts is edited locally.
            for contact in [4, 5, 1, 2, 3] {
                try harness.simulator.delete(type: "Contact", id: Harness.contactId(contact))
            }
            try harness.simulator.delete(type: "Account", id: Harness.accountId(2))
            try harness.simulator.delete(type: "Account", id: Harness.accountId(1))
            let dirty = try harness.entryId(Harness.contacts, Harness.contactId(2))
            _ = try harness.store.soups.updateLocally(Harness.contacts, entryId: dirty, changes: ["LastName": "Mine"])
            let deleted = try await harness.manager.cleanResyncGhosts(name: "tree")
            #expect(Set(try harness.byId(Harness.accounts).keys) == [Harness.accountId(0), Harness.accountId(1)])
            #expect(Set(try harness.byId(Harness.contacts).keys) == [Harness.contactId(0), Harness.contactId(2)])
            // Account 2, and Contacts 1, 3, 4 and 5; Contact 2 is dirty and keeps Account 1.
            #expect(deleted == 5)
            let cleaning = try #require(try harness.store.journal.entries(of: .syncGhostsCleaned).first)
            let payload = try cleaning.jsonPayload()
            #expect(payload["ghostIds"] == [.string(Harness.accountId(2))])
            #expect(payload["related"]?.array?.first?["soup"] == .string(Harness.contacts))
        }
    }

    @Test func blameFollowsAChildThroughItsParentsPagesAndItsGhostCleaning() async throws {
        try await Harness.with(accounts: 2, contactsPerAccount: 1) { harness in
            let sync = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "tree")
            try harness.simulator.write(type: "Contact", id: Harness.contactId(1), fields: ["LastName": "Renamed"])
            _ = try await harness.manager.reSync(name: "tree")
            try harness.simulator.delete(type: "Contact", id: Harness.contactId(1))
            _ = try await harness.manager.cleanResyncGhosts(name: "tree")
            let history = try RecordHistory(
                journal: harness.store.journal, soup: Harness.contacts, id: Harness.contactId(1))
            #expect(
                history.events.map(\.action) == [
                    "fetched by sync \(sync.id)", "fetched by sync \(sync.id)", "removed as a ghost of sync \(sync.id)",
                ])
            #expect(history.events[1].record?["LastName"] == "Renamed")
            #expect(history.events[1].record?["AccountId"] == .string(Harness.accountId(1)))
            // The parent came again with its changed child; the fold left it as it was (the
            // reSync's window brought it unchanged), and it is not a ghost.
            let parent = try RecordHistory(
                journal: harness.store.journal, soup: Harness.accounts, id: Harness.accountId(1))
            #expect(
                parent.events.map(\.action) == [
                    "fetched by sync \(sync.id)", "fetched again unchanged by sync \(sync.id), left as it was",
                ])
            #expect(
                parent.events.last?.record
                    == (try harness.store.soups.retrieve(
                        Harness.accounts,
                        ids: [
                            try harness.entryId(Harness.accounts, Harness.accountId(1))
                        ]
                    ).first))
        }
    }

    @Test func creatingTheSyncNeedsBothSoupsButNotItsOwnSoupName() async throws {
        try await Harness.with(accounts: 0) { harness in
            let target = try SyncDownTargetDescriptor(
                .parentChildren(
                    ParentChildrenRelationship(
                        parent: .init(sobjectType: "Account", soupName: Harness.accounts),
                        children: .init(
                            sobjectType: "Contact", sobjectTypePlural: "Contacts", soupName: "missing",
                            parentIdFieldName: "AccountId"), relationshipType: .lookup),
                    parentFieldlist: ["Name"], childrenFieldlist: ["LastName"], parentSoqlFilter: ""))
            await #expect(throws: SoupError.self) {
                try await harness.manager.createSyncDown(target: target, soupName: Harness.accounts)
            }
            let created = try await harness.manager.createSyncDown(
                target: try Harness.parentChildrenTarget(), soupName: "does-not-matter")
            #expect(created.status == .new)
        }
    }
}
