import LosslessJSON
import MobileSync
import SalesforceSimulator
import Soups

// A MERGE_FIELDS run of the simulation (docs/conflicts.md, decision 0326): the app and the
// server edit an account's Name or its Phone, so edits of different fields merge and edits of
// one field conflict; the app resolves conflicts, and every listed conflict is checked against
// what the record and the server really held.
extension SyncSimulation {
    /// The fields the app and the server edit, which the sync up sends.
    static func editedFields(mergeFields: Bool) -> [String] {
        mergeFields ? ["Name", "Phone"] : ["Name"]
    }

    /// The field an edit changes, and its new value: the Name, or in a MERGE_FIELDS run the
    /// Phone when bit 7 of `pick` is set.
    func editedField(_ pick: UInt64, prefix: String) -> (field: String, value: String) {
        guard mergeFields, pick >> 7 & 1 == 1 else { return ("Name", prefix) }
        return ("Phone", "\(prefix) phone")
    }

    /// What the end of a run compares between a soup record and its server record.
    func compared(_ record: JSONValue) -> String {
        Self.editedFields(mergeFields: mergeFields).map { record[$0]?.string ?? "" }.joined(separator: " | ")
    }

    /// Notes every value the server's records hold now.
    func noteServerValues() {
        for record in simulator.liveRecords(type: "Account") {
            guard let id = record["Id"]?.string else { continue }
            for field in Set(record.keys).union(Self.editedFields(mergeFields: true)) {
                serverValuesSeen[id, default: [:]][field, default: []].insert(Self.seen(record[field]))
            }
        }
    }

    /// Every open conflict lists values both sides really had: the record's own values as
    /// local, and as base and server values the server's record held after some step.
    func checkConflicts(_ store: SyncStore) throws {
        noteServerValues()
        let live = Set(simulator.liveRecords(type: "Account").compactMap { $0["Id"]?.string })
        for conflict in try store.conflicts(soup: Self.soup) {
            let label = "the \(conflict.kind) conflict of record \(conflict.entryId)"
            guard let record = try store.soups.retrieve(Self.soup, ids: [conflict.entryId]).first,
                LocalFlags.isDirty(record)
            else {
                throw InvariantFailure("\(label) is listed, but the record is gone or clean")
            }
            let id = conflict.id ?? ""
            switch conflict.kind {
            case .fields where conflict.fields.isEmpty:
                throw InvariantFailure("\(label) lists no field")
            case .deletedOnServer where live.contains(id):
                throw InvariantFailure("\(label) says the server deleted \(id), which it still has")
            case .deletedLocally where !Self.flag(record, LocalFlags.locallyDeleted):
                throw InvariantFailure("\(label) says the app deleted it, but it is not deleted")
            default:
                break
            }
            for field in conflict.fields {
                if conflict.kind == .fields, field.local != record[field.path] || field.local == field.server {
                    throw InvariantFailure(
                        "\(label) lists \(field.path) local \(Self.seen(field.local)), server "
                            + "\(Self.seen(field.server)); the record holds \(Self.seen(record[field.path]))")
                }
                var serverSides = [("base", field.base)]
                if conflict.kind != .deletedOnServer { serverSides.append(("server", field.server)) }
                for (side, value) in serverSides
                where serverValuesSeen[id]?[field.path]?.contains(Self.seen(value)) != true {
                    throw InvariantFailure(
                        "\(label) lists \(field.path) \(side) \(Self.seen(value)), which the server's \(id) never "
                            + "held: \(serverValuesSeen[id]?[field.path]?.sorted() ?? []); the conflict: "
                            + "\(conflict.json.serializedString); the record: \(record.serializedString)")
                }
            }
        }
    }

    /// Resolves the open conflicts (every one when `all`, else those found by an entry of even
    /// sequence), taking the local side for even entry ids and the server's for odd ones. A
    /// local edit a resolution replaced with the server's value is no longer expected.
    func resolveConflicts(_ store: SyncStore, all: Bool) throws {
        for conflict in try store.conflicts(soup: Self.soup) where all || conflict.entrySequence % 2 == 0 {
            let side: ConflictResolution.Side = conflict.entryId % 2 == 0 ? .local : .server
            try store.resolveConflict(soup: Self.soup, entryId: conflict.entryId, .take(side))
            outcome.conflictsResolved += 1
            guard side == .server else { continue }
            if conflict.kind == .fields {
                for field in conflict.fields { pending[conflict.entryId]?[field.path] = nil }
            } else {
                pending[conflict.entryId] = nil
            }
        }
    }

    /// Resolves every conflict, syncs up and down, and again while records are held for a
    /// merge or a sync found new conflicts (a record the server deleted, a field both sides
    /// changed): at most four rounds, after which the caller finds what is still dirty.
    func convergeMerging(_ manager: SyncManager, _ store: SyncStore) async throws {
        for _ in 0..<4 {
            try resolveConflicts(store, all: true)
            try await syncUp(manager, store)
            count(try await manager.reSync(name: "down"))
            try checkConflicts(store)
            let settled =
                try store.conflicts(soup: Self.soup).isEmpty && allRecords().allSatisfy { !LocalFlags.isDirty($0) }
            if settled { return }
        }
    }

    /// A value as `serverValuesSeen` keeps it; absent and null alike.
    private static func seen(_ value: JSONValue?) -> String {
        (value ?? .null).serializedString
    }
}
