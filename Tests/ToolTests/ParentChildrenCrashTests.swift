import Determinism
import EventJournal
import Foundation
import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups
import SyncTesting
import Testing

/// Ends `msync resync` with SIGKILL at seeded moments while it uploads parents created offline
/// with their children, restarts it, and checks DESIGN invariants 5 and 6 for related records: the server
/// ends with each parent and each child exactly once, every server child points at its
/// parent's server id, and every local record is clean with its server id and its parent's.
@Suite(.serialized) struct ParentChildrenCrashTests {
    static let parentCount = 30
    static let childrenPerParent = 3
    static let accounts = "accounts"
    static let contacts = "contacts"

    let msync: BuiltProduct
    let directory: TemporaryDirectory

    init() throws {
        msync = try BuiltProduct("msync")
        directory = try TemporaryDirectory("tree-crash")
    }

    @Test func treesCrashedAtTwelveMomentsEndWithEachParentAndChildOnceAndEveryChildOnItsParent() async throws {
        defer { directory.remove() }
        let org = try await CrashOrg.start()
        let template = try await makeStore()
        var killed = 0
        var leftOpen = 0
        // Ten composite requests, each journaling an intent and an outcome: at least twenty
        // commits of the journal in every run.
        let moments = CrashMoment.seeded(12, requests: 10, journalCommits: 20, seed: 20_261_124)
        for (round, moment) in moments.enumerated() {
            org.simulator.reset()
            let store = directory.appending("round-\(round)")
            try FileManager.default.copyItem(at: template, to: store)
            let landed = try await org.killAndResume(
                msync, store: store, at: moment,
                afterKill: { url in
                    // A request committed on the server whose outcome the killed run never journaled.
                    let open = try SyncStore(directory: url, clock: SystemWallClock(), logger: .discarding)
                    leftOpen += try open.pendingUploads(syncId: 1).isEmpty ? 0 : 1
                },
                isUpload: { method, path in method == "POST" && path.hasSuffix("/composite") })
            killed += landed ? 1 : 0
            try check(store, org, "round \(round), \(moment)")
        }
        await org.stop()
        #expect(killed == 12, "only \(killed) of 12 rounds ended the child at their moment")
        // Kills exactly at a commit must leave intents to reconcile, or the test proves little.
        #expect(leftOpen >= 3, "only \(leftOpen) rounds left an upload open")
    }

    private func check(_ url: URL, _ org: CrashOrg, _ round: String) throws {
        let serverAccounts = org.simulator.liveRecords(type: "Account")
        let serverContacts = org.simulator.liveRecords(type: "Contact")
        #expect(serverAccounts.count == Self.parentCount, "\(round): \(serverAccounts.count) parents")
        #expect(serverContacts.count == Self.parentCount * Self.childrenPerParent, "\(round): \(serverContacts.count)")
        let accountByExternalId = Dictionary(
            serverAccounts.map { ($0["ExternalId__c"]?.string ?? "", $0["Id"]?.string ?? "") }
        ) { first, _ in first }
        #expect(accountByExternalId.count == Self.parentCount, "\(round): a parent is duplicated")
        for contact in serverContacts {
            let parentExternalId = String((contact["ExternalId__c"]?.string ?? "").split(separator: "/").first ?? "")
            #expect(contact["AccountId"]?.string == accountByExternalId[parentExternalId], "\(round): \(contact)")
        }
        let store = try SyncStore(directory: url, clock: SystemWallClock(), logger: .discarding)
        let parents = try store.soups.query(QuerySpec.all(Self.accounts, pageSize: 1_000))
        let children = try store.soups.query(QuerySpec.all(Self.contacts, pageSize: 1_000))
        #expect((parents + children).allSatisfy { $0["__local__"] == false }, "\(round): dirty records remain")
        #expect(Set(parents.compactMap { $0["Id"]?.string }) == Set(accountByExternalId.values), "\(round)")
        #expect(
            Set(children.compactMap { $0["Id"]?.string }) == Set(serverContacts.compactMap { $0["Id"]?.string }),
            "\(round)")
        let parentIds = Set(parents.compactMap { $0["Id"]?.string })
        #expect(children.allSatisfy { parentIds.contains($0["AccountId"]?.string ?? "") }, "\(round)")
        #expect(try store.journal.verify().isConsistent, "\(round)")
    }

    /// A store with the parents and children created locally, each with an external id (a
    /// child's is `<parent's>/<n>`), and a parent/children sync up named `up`.
    private func makeStore() async throws -> URL {
        let url = directory.appending("template")
        let store = try SyncStore(directory: url, clock: SystemWallClock(), logger: .discarding)
        try store.soups.registerSoup(
            Self.accounts,
            indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "ExternalId__c", type: .string)])
        try store.soups.registerSoup(
            Self.contacts,
            indexSpecs: [
                IndexSpec(path: "Id", type: .string), IndexSpec(path: "AccountId", type: .string),
                IndexSpec(path: "ExternalId__c", type: .string),
            ])
        for number in 1...Self.parentCount {
            let parent = try store.soups.createLocally(
                Self.accounts,
                [
                    "attributes": ["type": "Account"], "Name": .string("Tree \(number)"),
                    "ExternalId__c": .string("TREE-\(number)"),
                ])
            for child in 1...Self.childrenPerParent {
                try store.soups.createLocally(
                    Self.contacts,
                    [
                        "attributes": ["type": "Contact"], "LastName": .string("Leaf \(number)-\(child)"),
                        "ExternalId__c": .string("TREE-\(number)/\(child)"), "AccountId": parent["Id"] ?? .null,
                    ])
            }
        }
        let relationship = ParentChildrenRelationship(
            parent: .init(sobjectType: "Account", soupName: Self.accounts, externalIdFieldName: "ExternalId__c"),
            children: .init(
                sobjectType: "Contact", sobjectTypePlural: "Contacts", soupName: Self.contacts,
                parentIdFieldName: "AccountId", externalIdFieldName: "ExternalId__c"),
            relationshipType: .masterDetail)
        let target = SyncUpTargetDescriptor(
            parentChildren: relationship, createFieldlist: ["Name", "ExternalId__c"], updateFieldlist: ["Name"],
            childrenCreateFieldlist: ["LastName", "ExternalId__c"], childrenUpdateFieldlist: ["LastName"])
        _ = try await SyncManager(store: store, client: nil, clock: SystemWallClock(), logger: .discarding)
            .createSyncUp(
                target: target, options: SyncOptions(mergeMode: .overwrite), soupName: Self.accounts, name: "up")
        return url
    }
}
