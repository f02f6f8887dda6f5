import Determinism
import Foundation
import LosslessJSON
import MobileSync
import SalesforceAPI
import SalesforceSimulator
import Soups

/// The parent/children part of a simulation: what the app changed and no outcome confirmed yet.
struct TreeState {
    /// The parent/children sync down's id.
    var downSyncId: Int64 = 0
    /// Parents changed locally: `_soupEntryId` → Name.
    var pendingParents: [Int64: String] = [:]
    /// Children changed locally: `_soupEntryId` → LastName.
    var pendingChildren: [Int64: String] = [:]
    /// The order of every change the app made (values are unique): which of two changes to one
    /// server record is newer.
    private(set) var changeOrder: [String: Int] = [:]

    /// Notes the app's change of a record of `pending` (parents or children) to `value`.
    mutating func change(_ pending: WritableKeyPath<TreeState, [Int64: String]>, _ entryId: Int64, to value: String) {
        self[keyPath: pending][entryId] = value
        changeOrder[value] = changeOrder.count
    }
}

// Accounts with their Contacts in a second pair of soups, synced by a parent/children sync down
// (`treeDown`, LEAVE_IF_CHANGED) and up (`treeUp`, OVERWRITE, upserts by external id) against
// the same server Accounts as the main soup. Contacts are master-detail children: the server
// deletes them with their Account.
extension SyncSimulation {
    static let treeParents = "treeAccounts"
    static let treeChildren = "treeContacts"

    static let treeRelationship = ParentChildrenRelationship(
        parent: .init(sobjectType: "Account", soupName: treeParents, externalIdFieldName: "ExternalId__c"),
        children: .init(
            sobjectType: "Contact", sobjectTypePlural: "Contacts", soupName: treeChildren,
            parentIdFieldName: "AccountId", externalIdFieldName: "ExternalId__c"),
        relationshipType: .masterDetail)

    func setUpTrees() async throws {
        guard let store, let manager else { return }
        let indexes = ["Id", "ExternalId__c", "__local__"].map { IndexSpec(path: $0, type: .string) }
        try store.soups.registerSoup(Self.treeParents, indexSpecs: indexes)
        try store.soups.registerSoup(
            Self.treeChildren, indexSpecs: indexes + [IndexSpec(path: "AccountId", type: .string)])
        let down = try await manager.createSyncDown(
            target: try SyncDownTargetDescriptor(
                .parentChildren(
                    Self.treeRelationship, parentFieldlist: ["Name", "ExternalId__c"],
                    childrenFieldlist: ["LastName", "AccountId", "ExternalId__c"], parentSoqlFilter: ""),
                // Late server edits reach these Accounts too.
                reSyncOverlapSeconds: Self.reSyncOverlapSeconds),
            options: SyncOptions(mergeMode: .leaveIfChanged), soupName: Self.treeParents, name: "treeDown")
        trees.downSyncId = down.id
        try await manager.createSyncUp(
            target: SyncUpTargetDescriptor(
                parentChildren: Self.treeRelationship, createFieldlist: ["Name", "ExternalId__c"],
                updateFieldlist: ["Name"], childrenCreateFieldlist: ["LastName", "ExternalId__c"],
                childrenUpdateFieldlist: ["LastName"]),
            options: SyncOptions(mergeMode: .overwrite), soupName: Self.treeParents, name: "treeUp")
    }

    // MARK: - Steps

    func performTree(_ step: SimulationStep, _ manager: SyncManager, _ store: SyncStore) async throws {
        switch step {
        case .treeCreate:
            createdCount += 1
            let name = "Tree \(seed)-\(createdCount)"
            let parent = try store.soups.createLocally(
                Self.treeParents,
                [
                    "attributes": ["type": "Account"], "Name": .string(name),
                    "ExternalId__c": .string("TREE-\(createdCount)"),
                ])
            trees.change(\.pendingParents, try Self.entryId(parent), to: name)
            try createChild(under: parent, store)
        case .childCreate(let pick):
            guard let parent = try self.pick(Self.treeParents, pick, where: { !Self.flag($0, "__locally_deleted__") })
            else {
                return
            }
            try createChild(under: parent, store)
        case .childUpdate(let pick):
            guard let child = try pickLiveChild(pick, store) else { return }
            let name = "Leaf edit \(clock.now().millisecondsSinceEpoch)"
            _ = try store.soups.updateLocally(
                Self.treeChildren, entryId: Self.entryId(child), changes: ["LastName": .string(name)])
            trees.change(\.pendingChildren, try Self.entryId(child), to: name)
        case .childDelete(let pick):
            guard let child = try pickLiveChild(pick, store) else { return }
            _ = try store.soups.deleteLocally(Self.treeChildren, entryId: Self.entryId(child))
            trees.pendingChildren[try Self.entryId(child)] = nil
        case .treeParentUpdate(let pick), .treeParentDelete(let pick):
            try changeParent(pick, deleting: step == .treeParentDelete(pick: pick), store)
        case .serverChildCreate, .serverChildUpdate, .serverChildDelete:
            try changeServerChild(step)
        case .treeDown:
            count(try await manager.reSync(name: "treeDown"))
        case .treeUp:
            try await treeUp(manager, store)
        case .cleanTreeGhosts:
            try await cleanTreeGhosts(manager, store)
        default:
            return
        }
    }

    private func createChild(under parent: JSONValue, _ store: SyncStore) throws {
        createdCount += 1
        let name = "Leaf \(seed)-\(createdCount)"
        let child = try store.soups.createLocally(
            Self.treeChildren,
            [
                "attributes": ["type": "Contact"], "LastName": .string(name),
                "ExternalId__c": .string("LEAF-\(createdCount)"), "AccountId": parent["Id"] ?? .null,
            ])
        trees.change(\.pendingChildren, try Self.entryId(child), to: name)
    }

    private func changeParent(_ pick: UInt64, deleting: Bool, _ store: SyncStore) throws {
        guard let parent = try self.pick(Self.treeParents, pick, where: { !Self.flag($0, "__locally_deleted__") })
        else { return }
        let entryId = try Self.entryId(parent)
        guard deleting else {
            let name = "Tree edit \(clock.now().millisecondsSinceEpoch)"
            _ = try store.soups.updateLocally(Self.treeParents, entryId: entryId, changes: ["Name": .string(name)])
            trees.change(\.pendingParents, entryId, to: name)
            return
        }
        _ = try store.soups.deleteLocally(Self.treeParents, entryId: entryId)
        trees.pendingParents[entryId] = nil
        // Deleting a master deletes its details: their local changes go with it.
        for child in try all(Self.treeChildren) where child["AccountId"] == parent["Id"] {
            trees.pendingChildren[try Self.entryId(child)] = nil
        }
    }

    private func changeServerChild(_ step: SimulationStep) throws {
        switch step {
        case .serverChildCreate(let pick):
            let accounts = simulator.liveRecords(type: "Account").compactMap { $0["Id"]?.string }.sorted()
            guard !accounts.isEmpty else { return }
            createdCount += 1
            try simulator.write(
                type: "Contact",
                fields: [
                    "LastName": .string("Remote leaf \(createdCount)"),
                    "ExternalId__c": .string("RLEAF-\(createdCount)"),
                    "AccountId": .string(accounts[Int(pick % UInt64(accounts.count))]),
                ])
        case .serverChildUpdate(let pick), .serverChildDelete(let pick):
            let contacts = simulator.liveRecords(type: "Contact").compactMap { $0["Id"]?.string }.sorted()
            guard !contacts.isEmpty else { return }
            let id = contacts[Int(pick % UInt64(contacts.count))]
            if case .serverChildDelete = step {
                try simulator.delete(type: "Contact", id: id)
            } else {
                try simulator.write(
                    type: "Contact", id: id, fields: ["LastName": .string("Remote leaf edit \(pick % 1000)")])
            }
        default:
            return
        }
    }

    /// A child that is not deleted and whose parent is not deleted locally (its deletion would
    /// take the child with it).
    private func pickLiveChild(_ pick: UInt64, _ store: SyncStore) throws -> JSONValue? {
        let deletedParents = Set(
            try all(Self.treeParents).filter { Self.flag($0, "__locally_deleted__") }.compactMap { $0["Id"] })
        return try self.pick(Self.treeChildren, pick) { child in
            !Self.flag(child, "__locally_deleted__") && !deletedParents.contains(child["AccountId"] ?? .null)
        }
    }

    private func treeUp(_ manager: SyncManager, _ store: SyncStore) async throws {
        let parents = trees.pendingParents
        let children = trees.pendingChildren
        let parentExternalIds = try externalIds(Self.treeParents, of: Array(parents.keys))
        let childExternalIds = try externalIds(Self.treeChildren, of: Array(children.keys))
        count(try await manager.reSync(name: "treeUp"))
        for entryId in try settled(parents, parentExternalIds, soup: Self.treeParents, type: "Account", field: "Name") {
            trees.pendingParents[entryId] = nil
        }
        let settledChildren = try settled(
            children, childExternalIds, soup: Self.treeChildren, type: "Contact", field: "LastName")
        for entryId in settledChildren {
            trees.pendingChildren[entryId] = nil
        }
    }

    /// The pending records of `soup` the upload settled, each checked: a record the upload
    /// cleaned must hold the app's value on the server now (a child under its parent's server
    /// id); a record it removed must have gone as a clean copy of a server record another local
    /// record now holds (decisions 0323 and 0353).
    ///
    /// Records holding one external id are one server record to an upsert by that id
    /// (mobilesync-behavior.md §2.10, §2.11). Two local copies of it can both be changed: the
    /// server deleted the one, the main soup created it again under a new id, and a sync down
    /// fetched that one. Both are sent, the server keeps the change sent last, and its `created`
    /// outcome removes the other, by then clean, copy. The app's newer change must be what the
    /// server keeps: an older change is settled by a newer one, never the reverse (decision 0324).
    private func settled(
        _ pending: [Int64: String], _ externalIds: [Int64: String], soup: String, type: String, field: String
    ) throws -> [Int64] {
        let server = simulator.liveRecords(type: type)
        let local = try all(soup)
        // Whether `held` is `value` or a newer change of the same server record.
        func supersedes(_ held: String?, _ entryId: Int64, _ value: String) -> Bool {
            if held == value { return true }
            guard let held, let externalId = externalIds[entryId],
                pending.contains(where: { externalIds[$0.key] == externalId && $0.value == held })
            else { return false }
            return (trees.changeOrder[held] ?? -1) > (trees.changeOrder[value] ?? -1)
        }
        var settled: [Int64] = []
        for (entryId, value) in pending {
            guard let record = try local.first(where: { try Self.entryId($0) == entryId }) else {
                let heldElsewhere = local.contains { other in
                    !LocalFlags.isDirty(other) && other["ExternalId__c"]?.string == externalIds[entryId]
                        && server.contains { $0["Id"] == other["Id"] && supersedes($0[field]?.string, entryId, value) }
                }
                if externalIds[entryId] != nil, heldElsewhere { settled.append(entryId) }
                continue
            }
            guard !LocalFlags.isDirty(record) else { continue }
            let copy = server.first { $0["Id"] == record["Id"] }
            guard supersedes(copy?[field]?.string, entryId, value),
                soup == Self.treeParents || copy?["AccountId"] == record["AccountId"]
            else {
                throw InvariantFailure(
                    "\(soup) record \(entryId) was cleaned as \(record.serializedString) but the server has "
                        + "\(copy.map { JSONValue.object($0).serializedString } ?? "nothing"), not \(value)")
            }
            settled.append(entryId)
        }
        return settled
    }

    /// Cleans the parent/children sync's ghosts; a removed record must have been clean and this
    /// sync's, or clean, owned by no sync and gone from the server — and never a parent with a
    /// dirty child.
    private func cleanTreeGhosts(_ manager: SyncManager, _ store: SyncStore) async throws {
        let dirtyChildren = try all(Self.treeChildren).filter(LocalFlags.isDirty)
        let before =
            try all(Self.treeParents).map { (Self.treeParents, "Account", $0) }
            + all(Self.treeChildren).map { (Self.treeChildren, "Contact", $0) }
        do {
            _ = try await manager.cleanResyncGhosts(name: "treeDown")
        } catch is SalesforceError, is TransportFailure {
            outcome.syncsFailed += 1
        }
        for (soup, type, record) in before where try store.soups.retrieve(soup, ids: [Self.entryId(record)]).isEmpty {
            let owner = record["__sync_id__"] ?? .null
            let isClean = record["__local__"] == false
            let onServer = simulator.liveRecords(type: type).contains { $0["Id"] == record["Id"] }
            let keepsAChild = soup == Self.treeParents && dirtyChildren.contains { $0["AccountId"] == record["Id"] }
            let wasGhost = isClean && (owner.number?.int64Value == trees.downSyncId || (owner.isNull && !onServer))
            guard wasGhost, !keepsAChild else {
                throw InvariantFailure(
                    "ghost cleaning removed \(soup) record \(try Self.entryId(record)), which it had to keep: "
                        + record.serializedString)
            }
        }
    }

    // MARK: - Invariants

    /// Checked after every step: the app's changes are still there, dirty; every clean child
    /// names a server id as its parent; the server never holds a created record twice.
    func checkTrees(_ store: SyncStore) throws {
        for (soup, pending, field) in [
            (Self.treeParents, trees.pendingParents, "Name"), (Self.treeChildren, trees.pendingChildren, "LastName"),
        ] {
            for (entryId, value) in pending {
                guard let record = try store.soups.retrieve(soup, ids: [entryId]).first else {
                    throw InvariantFailure("\(soup) record \(entryId), changed locally to \(value), was lost")
                }
                guard LocalFlags.isDirty(record), record[field]?.string == value else {
                    throw InvariantFailure(
                        "\(soup) record \(entryId) lost its change \(value): \(record.serializedString)")
                }
            }
        }
        for child in try all(Self.treeChildren) where !LocalFlags.isDirty(child) {
            guard let parentId = child["AccountId"]?.string, !parentId.hasPrefix("local_") else {
                throw InvariantFailure(
                    "clean child \(try Self.entryId(child)) names no server parent: \(child.serializedString)")
            }
        }
        for type in ["Account", "Contact"] {
            let externalIds = simulator.liveRecords(type: type).compactMap { $0["ExternalId__c"]?.string }
            guard Set(externalIds).count == externalIds.count else {
                throw InvariantFailure("the server holds a \(type) twice: \(externalIds.sorted())")
            }
        }
    }

    /// Faults off: parent/children sync up until nothing is dirty (a parent the server lost is
    /// created again within two runs: decision 0322's recreate bound).
    func sendTrees(_ manager: SyncManager, _ store: SyncStore) async throws {
        for _ in 0..<3 {
            try await treeUp(manager, store)
            guard try !(all(Self.treeParents) + all(Self.treeChildren)).contains(where: LocalFlags.isDirty) else {
                return
            }
        }
    }

    /// After the main soup converged: sync down, clean ghosts, and the parent/children soups
    /// must equal the server's Accounts and Contacts, every record of them (ghost cleaning also
    /// removes uploads the server deleted before any sync down fetched them: decision 0319).
    func convergeTrees(_ manager: SyncManager, _ store: SyncStore) async throws {
        try await sendTrees(manager, store)
        count(try await manager.reSync(name: "treeDown"))
        _ = try await manager.cleanResyncGhosts(name: "treeDown")
        try checkTrees(store)
        for (soup, type, fields) in [
            (Self.treeParents, "Account", ["Name"]), (Self.treeChildren, "Contact", ["LastName", "AccountId"]),
        ] {
            let local = try all(soup)
            if let dirty = local.first(where: LocalFlags.isDirty) {
                throw InvariantFailure(
                    "\(soup) record \(try Self.entryId(dirty)) is still dirty after fault-free syncs")
            }
            var serverValues: [String: [JSONValue]] = [:]
            for record in simulator.liveRecords(type: type) {
                serverValues[record["Id"]?.string ?? ""] = fields.map { record[$0] ?? .null }
            }
            var localValues: [String: [JSONValue]] = [:]
            for record in local {
                localValues[record["Id"]?.string ?? ""] = fields.map { record[$0] ?? .null }
            }
            guard localValues == serverValues else {
                let onlyLocal = Set(localValues.keys).subtracting(serverValues.keys).sorted()
                let onlyServer = Set(serverValues.keys).subtracting(localValues.keys).sorted()
                let differing = localValues.keys.filter {
                    serverValues[$0] != nil && serverValues[$0] != localValues[$0]
                }
                // The values, so a failing seed says what diverged without a rerun.
                let values = differing.sorted().prefix(3).map { id in
                    let show = { (values: [JSONValue]?) in JSONValue.array(values ?? []).serializedString }
                    return "\(id): local \(show(localValues[id])), server \(show(serverValues[id]))"
                }
                throw InvariantFailure(
                    "\(soup) and the server's \(type)s differ: only local \(onlyLocal), only on the server "
                        + "\(onlyServer), different \(differing.sorted()) (\(values.joined(separator: "; ")))")
            }
        }
    }

    // MARK: - Helpers

    private func all(_ soup: String) throws -> [JSONValue] {
        try store?.soups.query(QuerySpec.all(soup, orderPath: "_soupEntryId", pageSize: 100_000)) ?? []
    }

    private func pick(_ soup: String, _ pick: UInt64, where include: (JSONValue) -> Bool) throws -> JSONValue? {
        let records = try all(soup).filter(include)
        guard !records.isEmpty else { return nil }
        return records[Int(pick % UInt64(records.count))]
    }

    /// The external ids that the records `entryIds` of `soup` hold now.
    private func externalIds(_ soup: String, of entryIds: [Int64]) throws -> [Int64: String] {
        var ids: [Int64: String] = [:]
        for record in try store?.soups.retrieve(soup, ids: entryIds) ?? [] {
            ids[try Self.entryId(record)] = record["ExternalId__c"]?.string
        }
        return ids
    }
}
