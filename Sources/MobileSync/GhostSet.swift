public import LosslessJSON
import Soups

/// The local records of one sync that the server no longer has: what `cleanResyncGhosts` deletes.
///
/// A ghost is a clean local record written by **this** sync (`__sync_id__` equals the sync id)
/// whose id is missing from the target's remote ids. The sync id always scopes the set, whether
/// or not the soup indexes `__sync_id__`, so cleaning one sync never deletes another sync's
/// records (Mobile SDK does when the field is not indexed). Dirty records are never ghosts.
public enum GhostSet {
    /// The ids to delete, sorted.
    ///
    /// - Parameters:
    ///   - localRecords: the soup's records (at least those of this sync).
    ///   - idFieldName: the target's id field.
    ///   - syncId: the sync being cleaned.
    ///   - remoteIds: every id the target returns now.
    /// - Complexity: O(*n* log *n*) in the number of local records.
    public static func ghostIds(
        localRecords: some Sequence<JSONValue>, idFieldName: String, syncId: Int64, remoteIds: Set<String>
    ) -> [String] {
        var ghosts: [String] = []
        for record in localRecords {
            guard record[LocalFlags.syncId]?.number?.int64Value == syncId, !LocalFlags.isDirty(record),
                let id = record[idFieldName]?.string, !remoteIds.contains(id)
            else { continue }
            ghosts.append(id)
        }
        return ghosts.sorted()
    }
}
