public import LosslessJSON

/// How a fetched page meets the soup: which records are written, and what they look like.
public enum SyncDownMerge {
    /// The records of a fetched page that are written to the soup.
    ///
    /// Under OVERWRITE every record is written. Under LEAVE_IF_CHANGED a record whose id is in
    /// `dirtyIds` is dropped, so a dirty local record is never touched; records without an id
    /// are kept (they cannot match a local record). Order is preserved.
    ///
    /// This is Mobile SDK's rule. The soup fold also leaves alone, under either mode, a record
    /// fetched again with the modification date its local copy already has (decision 0321); that
    /// needs the stored records, which only the fold reads.
    ///
    /// - Parameters:
    ///   - records: the page's records, as fetched.
    ///   - idFieldName: the target's id field.
    ///   - mergeMode: the sync's merge mode.
    ///   - dirtyIds: ids of the soup's dirty records when the page is applied.
    /// - Complexity: O(*n*) in the page size.
    public static func recordsToApply(
        _ records: [JSONValue], idFieldName: String, mergeMode: MergeMode, dirtyIds: Set<String>
    ) -> [JSONValue] {
        guard mergeMode == .leaveIfChanged, !dirtyIds.isEmpty else { return records }
        return records.filter { record in
            guard let id = record[idFieldName]?.string else { return true }
            return !dirtyIds.contains(id)
        }
    }

    /// `record` as a sync down stores it: tagged with `__sync_id__` (when `syncId` ≥ 0) and
    /// clean (`__local__`, `__locally_created__`, `__locally_updated__`, `__locally_deleted__`
    /// false, `__last_error__` null). Other fields are the server's, unchanged.
    public static func cleanedForSave(_ record: JSONValue, syncId: Int64) -> JSONValue {
        guard var members = record.object else { return record }
        if syncId >= 0 { members[LocalFlags.syncId] = .number(JSONNumber(syncId)) }
        for flag in LocalFlags.dirtyFlags { members[flag] = false }
        members[LocalFlags.lastError] = .null
        return .object(members)
    }

    /// Whether `record` is dirty: its `__local__` flag is `true`.
    ///
    /// The flag alone decides, as in Mobile SDK, whose dirty queries read only `__local__`.
    public static func isDirty(_ record: JSONValue) -> Bool {
        record[LocalFlags.local]?.bool == true
    }
}

/// The names of the local flag fields Mobile SDK keeps on records.
enum LocalFlags {
    static let local = "__local__"
    static let syncId = "__sync_id__"
    static let lastError = "__last_error__"
    static let locallyCreated = "__locally_created__"
    static let locallyUpdated = "__locally_updated__"
    static let locallyDeleted = "__locally_deleted__"
    static let dirtyFlags = [local, locallyCreated, locallyUpdated, locallyDeleted]
}
