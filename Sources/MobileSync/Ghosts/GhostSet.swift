package import LosslessJSON
import Soups

/// Which local records a ghost cleaning may delete: the one home of the rule, used by the engine
/// when it lists a cleaning's ghosts and by the fold when it re-checks each one before deleting.
///
/// A ghost is a clean local record written by **this** sync (`__sync_id__` equals the sync id)
/// whose id is missing from the target's remote ids. The sync id always scopes the set, whether
/// or not the soup indexes `__sync_id__`, so cleaning one sync never deletes another sync's
/// records (Mobile SDK does when the field is not indexed). Dirty records are never ghosts.
/// An *unowned* ghost (decision 0319) is a clean record no sync down wrote (no `__sync_id__`)
/// holding a server id the server no longer has.
package enum GhostSet {
    /// Whether `record` is one of sync `syncId`'s records that cleaning may delete: written by
    /// that sync and not dirty.
    package static func isOwnedCandidate(_ record: JSONValue, syncId: Int64) -> Bool {
        record[LocalFlags.syncId]?.number?.int64Value == syncId && !LocalFlags.isDirty(record)
    }

    /// Whether `record` is one of sync `syncId`'s records changed here that a MERGE_FIELDS
    /// cleaning turns into a `deletedOnServer` conflict when the server no longer has it:
    /// updated here, neither created nor deleted here (a record deleted on both sides agrees,
    /// and one created here is not on the server yet).
    package static func isChangedCandidate(_ record: JSONValue, syncId: Int64) -> Bool {
        record[LocalFlags.syncId]?.number?.int64Value == syncId && record[LocalFlags.locallyUpdated] == .bool(true)
            && record[LocalFlags.locallyCreated] != .bool(true) && record[LocalFlags.locallyDeleted] != .bool(true)
    }

    /// Whether `record` is a clean record that no sync down owns, holding a server id in
    /// `idFieldName`: cleaning deletes it when the server no longer has that id.
    package static func isUnownedCandidate(_ record: JSONValue, idFieldName: String) -> Bool {
        guard (record[LocalFlags.syncId] ?? .null).isNull, record[LocalFlags.local] == .bool(false),
            let id = record[idFieldName]?.string
        else { return false }
        return !LocalFlags.isLocalId(id)
    }

    /// The parent ids a cleaning keeps because a child naming them in `parentIdFieldName` is
    /// dirty: a child's change keeps its parent (decision 0322). The engine leaves them out of
    /// the ghosts it lists and the fold re-checks them before deleting.
    ///
    /// - Parameters:
    ///   - children: records of the children's soup (at least the dirty ones); clean ones keep
    ///     nothing.
    ///   - parentIdFieldName: the child field holding its parent's id.
    package static func parentIdsKept(byChildren children: some Sequence<JSONValue>, parentIdFieldName: String)
        -> Set<String>
    {
        var kept = Set<String>()
        for child in children where LocalFlags.isDirty(child) {
            if let parentId = SoupPath.project(child, parentIdFieldName)?.string { kept.insert(parentId) }
        }
        return kept
    }

    /// The ids to delete, sorted.
    ///
    /// - Parameters:
    ///   - localRecords: the soup's records (at least those of this sync).
    ///   - idFieldName: the target's id field.
    ///   - syncId: the sync being cleaned.
    ///   - remoteIds: every id the target returns now.
    /// - Complexity: O(*n* log *n*) in the number of local records.
    package static func ghostIds(
        localRecords: some Sequence<JSONValue>, idFieldName: String, syncId: Int64, remoteIds: Set<String>
    ) -> [String] {
        var ghosts: [String] = []
        for record in localRecords {
            guard isOwnedCandidate(record, syncId: syncId), let id = record[idFieldName]?.string,
                !remoteIds.contains(id)
            else { continue }
            ghosts.append(id)
        }
        return ghosts.sorted()
    }
}
