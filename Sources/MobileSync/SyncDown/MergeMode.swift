/// What a sync does with a record that changed locally since the last sync.
///
/// The raw values are the strings Mobile SDK persists in `options.mergeMode`, and
/// `MERGE_FIELDS` for SyncJournal's own mode.
public enum MergeMode: String, Hashable, Sendable, CaseIterable {
    /// Fetched records are written over local ones, local edits included, and come out clean —
    /// except a record fetched again with the modification date its local copy already has: the
    /// server has not changed it, so a local edit is kept (decision 0321).
    case overwrite = "OVERWRITE"
    /// Fetched records whose local copy is dirty are not written at all.
    case leaveIfChanged = "LEAVE_IF_CHANGED"
    /// Not a Mobile SDK mode: a fetched record whose local copy is dirty is merged field by
    /// field from the server copy the local change started from (its base); a field both sides
    /// changed to different values keeps the local value and is listed as a ``RecordConflict``.
    /// A sync up sends only the fields changed since the base. Parent/children and briefcase
    /// targets refuse it (docs/conflicts.md, decision 0326).
    case mergeFields = "MERGE_FIELDS"
}
