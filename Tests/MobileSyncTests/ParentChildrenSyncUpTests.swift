import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups
import Testing

/// Parent/children sync up against the simulator: creates with references, updates, deletes
/// of masters and lookups, both merge modes, the bounded recreate loop and large trees.
@Suite struct ParentChildrenSyncUpTests {
    typealias Harness = RelatedRecordsHarness

    static let overwrite = SyncOptions(mergeMode: .overwrite)

    /// Gives Account 0 the external id `ACC-0` on the server, then syncs the trees down (sync
    /// `down`) with external ids.
    static func syncDownAccount0WithExternalId(_ harness: Harness) async throws {
        try harness.simulator.write(type: "Account", id: Harness.accountId(0), fields: ["ExternalId__c": "ACC-0"])
        let down = try SyncDownTargetDescriptor(
            .parentChildren(
                Harness.relationship(.masterDetail, externalIds: true),
                parentFieldlist: ["Id", "Name", "ExternalId__c", "LastModifiedDate"],
                childrenFieldlist: ["Id", "LastName", "AccountId", "LastModifiedDate"], parentSoqlFilter: ""))
        _ = try await harness.manager.syncDown(target: down, soupName: Harness.accounts, name: "down")
    }

    /// Creates a child under Account 0's local parent and runs an OVERWRITE parent/children
    /// sync up with external ids, which must end DONE; returns the child as created.
    static func sendANewChildOfAccount0(_ harness: Harness) async throws -> JSONValue {
        let child = try harness.store.soups.createLocally(
            Harness.contacts,
            ["attributes": ["type": "Contact"], "LastName": "New child", "AccountId": .string(Harness.accountId(0))])
        let final = try await harness.manager.syncUp(
            target: Harness.parentChildrenUpTarget(.masterDetail, externalIds: true), options: overwrite,
            soupName: Harness.accounts)
        #expect(final.status == .done, "\(final.error)")
        return child
    }

    @Test func aNewParentAndItsChildrenGoInOneRequestAndTheChildrenPointAtItsServerId() async throws {
        try await Harness.with(accounts: 0) { harness in
            let tree = try harness.createTreeLocally("Offline", children: 2)
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail), options: Self.overwrite,
                soupName: Harness.accounts, name: "up")
            #expect(final.status == .done, "\(final.error)")
            #expect(final.syncUpSummary?.succeeded == 3)
            let requests = try harness.compositeRequests()
            #expect(requests.count == 1)
            let parentReference = try #require(requests.first?.first?["referenceId"]?.string)
            #expect(
                requests.first?.dropFirst().allSatisfy {
                    $0["body"]?["AccountId"] == .string("@{\(parentReference).id}")
                } == true)
            let serverAccounts = harness.simulator.liveRecords(type: "Account")
            let serverContacts = harness.simulator.liveRecords(type: "Contact")
            #expect(serverAccounts.count == 1)
            let serverId = try #require(serverAccounts.first?["Id"]?.string)
            #expect(serverContacts.count == 2)
            #expect(serverContacts.allSatisfy { $0["AccountId"]?.string == serverId })
            let parent = try #require(try harness.records(Harness.accounts).first)
            #expect(parent["Id"] == .string(serverId))
            #expect(parent["__local__"] == false)
            #expect(parent["_soupEntryId"] == tree.parent["_soupEntryId"])
            let children = try harness.records(Harness.contacts)
            #expect(children.allSatisfy { $0["AccountId"] == .string(serverId) && $0["__local__"] == false })
            #expect(
                Set(children.compactMap { $0["Id"]?.string }) == Set(serverContacts.compactMap { $0["Id"]?.string }))
        }
    }

    @Test func aChildCreatedLaterUnderAnUploadedParentNamesItsServerId() async throws {
        try await Harness.with(accounts: 0) { harness in
            try harness.createTreeLocally("Offline", children: 0)
            _ = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.lookup), options: Self.overwrite, soupName: Harness.accounts,
                name: "up")
            let parent = try #require(try harness.records(Harness.accounts).first)
            try harness.store.soups.createLocally(
                Harness.contacts,
                ["attributes": ["type": "Contact"], "LastName": "Late", "AccountId": parent["Id"] ?? .null])
            let final = try await harness.manager.reSync(name: "up")
            #expect(final.status == .done, "\(final.error)")
            let serverContact = try #require(harness.simulator.liveRecords(type: "Contact").first)
            #expect(serverContact["AccountId"] == parent["Id"])
        }
    }

    @Test func updatesAndDeletesOfChildrenUnderAnExistingParent() async throws {
        try await Harness.with(accounts: 2, contactsPerAccount: 2) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "down")
            let contact0 = try harness.entryId(Harness.contacts, Harness.contactId(0))
            let contact1 = try harness.entryId(Harness.contacts, Harness.contactId(1))
            let account1 = try harness.entryId(Harness.accounts, Harness.accountId(1))
            try harness.store.soups.updateLocally(Harness.contacts, entryId: contact0, changes: ["LastName": "Edited"])
            try harness.store.soups.deleteLocally(Harness.contacts, entryId: contact1)
            try harness.store.soups.updateLocally(Harness.accounts, entryId: account1, changes: ["Name": "Renamed"])
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.lookup), options: Self.overwrite, soupName: Harness.accounts)
            #expect(final.progressSummary == "DONE(100,2)")
            let contacts = harness.simulator.liveRecords(type: "Contact")
            #expect(contacts.first { $0["Id"]?.string == Harness.contactId(0) }?["LastName"] == "Edited")
            #expect(contacts.first { $0["Id"]?.string == Harness.contactId(1) } == nil)
            #expect(harness.simulator.liveRecords(type: "Account").first { $0["Name"] == "Renamed" } != nil)
            #expect(try harness.byId(Harness.contacts)[Harness.contactId(1)] == nil)
            #expect(try harness.store.soups.dirtyRecords(Harness.contacts).isEmpty)
            #expect(try harness.store.soups.dirtyRecords(Harness.accounts).isEmpty)
        }
    }

    @Test func deletingAMasterSendsNoChildrenAndDeletesThemHereAsTheServerDoes() async throws {
        try await Harness.with(accounts: 2, contactsPerAccount: 2, masterDetail: true) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "down")
            let account0 = try harness.entryId(Harness.accounts, Harness.accountId(0))
            try harness.store.soups.deleteLocally(Harness.accounts, entryId: account0)
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail), options: Self.overwrite,
                soupName: Harness.accounts)
            #expect(final.status == .done, "\(final.error)")
            #expect(try harness.compositeRequests().last?.map { $0["method"] } == ["DELETE"])
            #expect(harness.simulator.liveRecords(type: "Contact").count == 2)
            #expect(Set(try harness.byId(Harness.contacts).keys) == [Harness.contactId(2), Harness.contactId(3)])
            #expect(try harness.byId(Harness.accounts)[Harness.accountId(0)] == nil)
        }
    }

    @Test func deletingALookupParentKeepsItsChildren() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 2) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(type: .lookup), soupName: Harness.accounts, name: "down")
            try harness.store.soups.deleteLocally(
                Harness.accounts, entryId: try harness.entryId(Harness.accounts, Harness.accountId(0)))
            _ = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.lookup), options: Self.overwrite, soupName: Harness.accounts)
            #expect(harness.simulator.liveRecords(type: "Account").isEmpty)
            #expect(try harness.records(Harness.contacts).count == 2)
        }
    }

    @Test func aParentDeletedOnTheServerIsCreatedAgainWithItsChildren() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 2, masterDetail: true) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "down")
            try harness.store.soups.updateLocally(
                Harness.accounts, entryId: try harness.entryId(Harness.accounts, Harness.accountId(0)),
                changes: ["Name": "Mine"])
            try harness.simulator.delete(type: "Account", id: Harness.accountId(0))
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail), options: Self.overwrite,
                soupName: Harness.accounts)
            #expect(final.status == .done, "\(final.error)")
            let account = try #require(harness.simulator.liveRecords(type: "Account").first)
            #expect(account["Name"] == "Mine")
            let serverContacts = harness.simulator.liveRecords(type: "Contact")
            #expect(serverContacts.count == 2)
            #expect(serverContacts.allSatisfy { $0["AccountId"] == account["Id"] })
            let local = try #require(try harness.records(Harness.accounts).first)
            #expect(local["Id"] == account["Id"])
            #expect(
                try harness.records(Harness.contacts).allSatisfy {
                    $0["AccountId"] == account["Id"] && $0["__local__"] == false
                })
        }
    }

    /// A clean parent the server lost, sent only for a new child, adopts the record that now
    /// has its external id instead of writing its stale fields over it (decision 0323).
    @Test func aCleanParentTheServerLostAdoptsTheRecordNowHoldingItsExternalId() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 0, masterDetail: true) { harness in
            try await Self.syncDownAccount0WithExternalId(harness)
            // Another client replaces the Account: same external id, a new id and a newer name.
            try harness.simulator.delete(type: "Account", id: Harness.accountId(0))
            try harness.simulator.write(type: "Account", fields: ["Name": "Theirs", "ExternalId__c": "ACC-0"])
            let child = try await Self.sendANewChildOfAccount0(harness)
            let accounts = harness.simulator.liveRecords(type: "Account")
            #expect(accounts.count == 1)
            let account = try #require(accounts.first)
            #expect(account["Name"] == "Theirs", "the stale local name must not overwrite the server's")
            #expect(harness.simulator.liveRecords(type: "Contact").map { $0["AccountId"] } == [account["Id"]])
            let parent = try #require(try harness.records(Harness.accounts).first)
            #expect(parent["Id"] == account["Id"])
            #expect(parent["__local__"] == false)
            // Clean, so it must hold what the server holds: no later reSync would correct it.
            #expect(parent["Name"] == "Theirs")
            #expect(parent["LastModifiedDate"] == account["LastModifiedDate"])
            let childEntryId = try #require(child["_soupEntryId"]?.number?.int64Value)
            let uploaded = try #require(try harness.store.soups.retrieve(Harness.contacts, ids: [childEntryId]).first)
            #expect(uploaded["AccountId"] == account["Id"])
            #expect(uploaded["__local__"] == false)
        }
    }

    /// Where a sync down already fetched the record now holding the parent's external id, the
    /// adopted parent absorbs that copy and holds the server's newest values, so the soup keeps
    /// one clean record equal to the server's (the long campaign's seed 27: the stale parent
    /// absorbed the fresh copy and kept an older name for good).
    @Test func anAdoptedParentAbsorbsTheFetchedCopyAndHoldsTheServersNewestValues() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 0, masterDetail: true) { harness in
            try await Self.syncDownAccount0WithExternalId(harness)
            try harness.simulator.delete(type: "Account", id: Harness.accountId(0))
            let newId = try harness.simulator.write(
                type: "Account", fields: ["Name": "Theirs", "ExternalId__c": "ACC-0"])
            _ = try await harness.manager.reSync(name: "down")
            #expect(try harness.records(Harness.accounts).count == 2, "the stale parent and the fetched copy")
            try harness.simulator.write(type: "Account", id: newId, fields: ["Name": "Theirs, edited"])
            _ = try await Self.sendANewChildOfAccount0(harness)
            let account = try #require(harness.simulator.liveRecords(type: "Account").first)
            #expect(account["Name"] == "Theirs, edited")
            let parents = try harness.records(Harness.accounts)
            #expect(parents.count == 1)
            let parent = try #require(parents.first)
            #expect(parent["Id"] == .string(newId))
            #expect(parent["Name"] == "Theirs, edited")
            #expect(parent["LastModifiedDate"] == account["LastModifiedDate"])
            #expect(parent["__local__"] == false)
            #expect(parent["__sync_id__"] != nil && parent["__sync_id__"] != .null, "ghost cleaning still sees it")
            #expect(harness.simulator.liveRecords(type: "Contact").map { $0["AccountId"] } == [.string(newId)])
        }
    }

    /// Two local copies of one external id (the server deleted the first record, another client
    /// created it again, a sync down fetched that one), both changed and both lost by the
    /// server: each is created again by an upsert on that id, so the server holds one record
    /// with the change sent last, and the soup keeps one copy (decisions 0324 and 0353).
    @Test func twoChangedCopiesOfOneExternalIdTheServerLostAreCreatedAgainAsOneRecord() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 0, masterDetail: true) { harness in
            try await Self.syncDownAccount0WithExternalId(harness)
            let first = try harness.entryId(Harness.accounts, Harness.accountId(0))
            try harness.store.soups.updateLocally(Harness.accounts, entryId: first, changes: ["Name": "Older"])
            try harness.simulator.delete(type: "Account", id: Harness.accountId(0))
            let secondId = try harness.simulator.write(
                type: "Account", fields: ["Name": "Again", "ExternalId__c": "ACC-0"])
            _ = try await harness.manager.reSync(name: "down")
            let second = try harness.entryId(Harness.accounts, secondId)
            try harness.store.soups.updateLocally(Harness.accounts, entryId: second, changes: ["Name": "Newer"])
            try harness.simulator.delete(type: "Account", id: secondId)
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail, externalIds: true), options: Self.overwrite,
                soupName: Harness.accounts)
            #expect(final.status == .done, "\(final.error)")
            let account = try #require(harness.simulator.liveRecords(type: "Account").first)
            #expect(harness.simulator.liveRecords(type: "Account").count == 1)
            #expect(account["Name"] == "Newer")
            let copies = try harness.records(Harness.accounts)
            #expect(copies.map { $0["_soupEntryId"]?.number?.int64Value } == [second])
            #expect(copies.first?["Id"] == account["Id"])
            #expect(copies.first?["__local__"] == false)
        }
    }

    /// A child whose create reached the server but whose answer was lost, then deleted locally:
    /// the next run finds the server's copy by its external id and deletes it, where dropping
    /// the local child alone would leave the server's for good (seed 1009 of the long campaign).
    @Test func aChildWhoseCreateAnswerWasLostThenDeletedLocallyIsDeletedOnTheServer() async throws {
        try await Harness.with(accounts: 0, masterDetail: true) { harness in
            let parent = try harness.store.soups.createLocally(
                Harness.accounts, ["attributes": ["type": "Account"], "Name": "Offline", "ExternalId__c": "ACC-1"])
            let child = try harness.store.soups.createLocally(
                Harness.contacts,
                [
                    "attributes": ["type": "Contact"], "LastName": "Leaf", "ExternalId__c": "CON-1",
                    "AccountId": parent["Id"] ?? .null,
                ])
            let childEntryId = try #require(child["_soupEntryId"]?.number?.int64Value)
            harness.simulator.setFaultPlan(
                FaultPlan(rules: [FaultRule(method: "POST", path: "/services/data/v66.0/composite", drop: .afterCommit)]
                ))
            let first = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail, externalIds: true), options: Self.overwrite,
                soupName: Harness.accounts, name: "up")
            #expect(first.status == .failed)
            #expect(harness.simulator.liveRecords(type: "Contact").count == 1, "the create reached the server")
            harness.simulator.setFaultPlan(.none)
            _ = try harness.store.soups.deleteLocally(Harness.contacts, entryId: childEntryId)
            let second = try await harness.manager.reSync(name: "up")
            #expect(second.status == .done)
            #expect(second.syncUpSummary?.recovered == [childEntryId])
            #expect(harness.simulator.liveRecords(type: "Contact").isEmpty)
            let account = try #require(harness.simulator.liveRecords(type: "Account").first)
            #expect(try harness.records(Harness.accounts).map { $0["Id"] } == [account["Id"]])
            #expect(try harness.records(Harness.contacts).isEmpty)
        }
    }

    @Test func aRecordStillMissingAfterOneRecreateKeepsItsChangeWithAnErrorAndTheNextRunCreatesIt() async throws {
        try await Harness.with(accounts: 1, contactsPerAccount: 1) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(type: .lookup), soupName: Harness.accounts, name: "down")
            try harness.store.soups.updateLocally(
                Harness.accounts, entryId: try harness.entryId(Harness.accounts, Harness.accountId(0)),
                changes: ["Name": "Mine"])
            try harness.simulator.delete(type: "Contact", id: Harness.contactId(0))
            try harness.simulator.delete(type: "Account", id: Harness.accountId(0))
            // Pass 1: the parent's update finds nothing; it is marked created, its lookup child
            // marked updated. Pass 2: the parent is created, the child's update finds nothing.
            _ = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.lookup), options: Self.overwrite, soupName: Harness.accounts,
                name: "up")
            let account = try #require(harness.simulator.liveRecords(type: "Account").first)
            let child = try #require(try harness.records(Harness.contacts).first)
            #expect(child["__local__"] == true)
            #expect(child["AccountId"] == account["Id"])
            #expect(child["__last_error__"]?.string?.contains("RECREATE_LIMIT_EXCEEDED") == true)
            // The next run finds it missing again, marks it created, and creates it.
            let again = try await harness.manager.reSync(name: "up")
            #expect(again.status == .done)
            let serverChild = try #require(harness.simulator.liveRecords(type: "Contact").first)
            #expect(serverChild["AccountId"] == account["Id"])
            #expect(try harness.records(Harness.contacts).first?["Id"] == serverChild["Id"])
        }
    }

    @Test func leaveIfChangedSkipsATreeWhoseChildChangedOnTheServer() async throws {
        try await Harness.with(accounts: 2, contactsPerAccount: 1) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "down")
            let account0 = try harness.entryId(Harness.accounts, Harness.accountId(0))
            let account1 = try harness.entryId(Harness.accounts, Harness.accountId(1))
            try harness.store.soups.updateLocally(Harness.accounts, entryId: account0, changes: ["Name": "Mine 0"])
            try harness.store.soups.updateLocally(Harness.accounts, entryId: account1, changes: ["Name": "Mine 1"])
            try harness.simulator.write(type: "Contact", id: Harness.contactId(0), fields: ["LastName": "Theirs"])
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail), options: SyncOptions(mergeMode: .leaveIfChanged),
                soupName: Harness.accounts)
            #expect(final.syncUpSummary?.skippedByLeaveIfChanged == [account0])
            let server = harness.simulator.liveRecords(type: "Account")
            #expect(server.first { $0["Id"]?.string == Harness.accountId(0) }?["Name"] == "Account 0")
            #expect(server.first { $0["Id"]?.string == Harness.accountId(1) }?["Name"] == "Mine 1")
            #expect(
                try harness.store.soups.dirtyRecords(Harness.accounts).map { $0["_soupEntryId"] } == [
                    .number(JSONNumber(account0))
                ])
        }
    }

    @Test func treesAreFoundInSoupsWithoutIndexesOnTheirIdFields() async throws {
        try await Harness.with(accounts: 0) { harness in
            try harness.store.soups.registerSoup("bareAccounts", indexSpecs: [IndexSpec(path: "Name", type: .string)])
            try harness.store.soups.registerSoup(
                "bareContacts", indexSpecs: [IndexSpec(path: "LastName", type: .string)])
            let parent = try harness.store.soups.createLocally(
                "bareAccounts", ["attributes": ["type": "Account"], "Name": "Bare"])
            for name in ["One", "Two"] {
                try harness.store.soups.createLocally(
                    "bareContacts",
                    ["attributes": ["type": "Contact"], "LastName": .string(name), "AccountId": parent["Id"] ?? .null])
            }
            var relationship = Harness.relationship(.masterDetail)
            relationship.parent.soupName = "bareAccounts"
            relationship.children.soupName = "bareContacts"
            let target = SyncUpTargetDescriptor(
                parentChildren: relationship, createFieldlist: ["Name"], updateFieldlist: ["Name"],
                childrenCreateFieldlist: ["LastName"], childrenUpdateFieldlist: ["LastName"])
            let final = try await harness.manager.syncUp(
                target: target, options: Self.overwrite, soupName: "bareAccounts")
            #expect(final.syncUpSummary?.succeeded == 3)
            let serverId = try #require(harness.simulator.liveRecords(type: "Account").first?["Id"])
            #expect(try harness.records("bareContacts").allSatisfy { $0["AccountId"] == serverId })
        }
    }

    @Test func aTreeLargerThanOneCompositeRequestGoesInSeveral() async throws {
        try await Harness.with(accounts: 0) { harness in
            try harness.createTreeLocally("Big", children: 30)
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail), options: Self.overwrite,
                soupName: Harness.accounts)
            #expect(final.status == .done, "\(final.error)")
            let requests = try harness.compositeRequests()
            #expect(requests.map(\.count) == [25, 6])
            let serverId = try #require(harness.simulator.liveRecords(type: "Account").first?["Id"])
            // The second request names the parent by the id the first one got.
            #expect(requests[1].allSatisfy { $0["body"]?["AccountId"] == serverId })
            #expect(harness.simulator.liveRecords(type: "Contact").count == 30)
            #expect(
                try harness.records(Harness.contacts).allSatisfy {
                    $0["AccountId"] == serverId && $0["__local__"] == false
                })
        }
    }

    @Test func aParentCreateRefusedByTheServerKeepsTheTreeDirtyWithItsError() async throws {
        try await Harness.with(accounts: 0) { harness in
            try harness.createTreeLocally(String(repeating: "x", count: 300), children: 2)
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.masterDetail), options: Self.overwrite,
                soupName: Harness.accounts)
            #expect(final.status == .done, "\(final.error)")
            #expect(final.syncUpSummary?.failed.count == 3)
            #expect(harness.simulator.liveRecords(type: "Contact").isEmpty)
            let parent = try #require(try harness.records(Harness.accounts).first)
            #expect(parent["__local__"] == true)
            #expect(parent["__last_error__"]?.string?.contains("STRING_TOO_LONG") == true)
            #expect(
                try harness.records(Harness.contacts).allSatisfy {
                    $0["__local__"] == true && $0["__last_error__"] != .null
                })
        }
    }

    @Test func aServerThatKeepsSayingTheParentIsGoneEndsTheLoopWithAnErrorOnTheParent() async throws {
        let transport: (any HTTPTransport) -> any HTTPTransport = { ParentIsAlwaysGone(base: $0) }
        try await Harness.with(accounts: 1, contactsPerAccount: 1, transport: transport) { harness in
            _ = try await harness.manager.syncDown(
                target: try Harness.parentChildrenTarget(), soupName: Harness.accounts, name: "down")
            try harness.store.soups.updateLocally(
                Harness.contacts, entryId: try harness.entryId(Harness.contacts, Harness.contactId(0)),
                changes: ["LastName": "Mine"])
            let final = try await harness.manager.syncUp(
                target: Harness.parentChildrenUpTarget(.lookup), options: Self.overwrite, soupName: Harness.accounts)
            #expect(final.status == .done, "\(final.error)")
            // Pass 1: the child's update is refused (parent gone) and the parent is marked created;
            // pass 2: the parent is created, and the child is refused again: no third pass.
            #expect(try harness.compositeRequests().count == 2)
            let child = try #require(try harness.records(Harness.contacts).first)
            #expect(child["__local__"] == true)
            #expect(child["__last_error__"]?.string?.contains("ENTITY_IS_DELETED") == true)
        }
    }
}

/// Answers every child sub-request of a composite request with 400 `ENTITY_IS_DELETED`, as a
/// server whose parent records keep disappearing would.
private struct ParentIsAlwaysGone: HTTPTransport {
    let base: any HTTPTransport

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var response = try await base.send(request)
        guard request.url.path.hasSuffix("/composite"), var json = try? JSONValue(parsing: Array(response.body)),
            let answers = json["compositeResponse"]?.array
        else { return response }
        let rewritten = answers.map { answer -> JSONValue in
            guard answer["referenceId"]?.string?.hasPrefix("c") == true, case .object(var fields) = answer else {
                return answer
            }
            fields["httpStatusCode"] = 400
            fields["body"] = [
                ["errorCode": "ENTITY_IS_DELETED", "message": "entity is deleted", "fields": ["AccountId"]]
            ]
            return .object(fields)
        }
        json = ["compositeResponse": .array(rewritten)]
        response.body = Data(json.serialized())
        return response
    }
}
