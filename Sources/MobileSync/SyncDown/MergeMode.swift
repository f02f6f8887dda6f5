/// What a sync does with a record that changed locally since the last sync.
///
/// The raw values are the strings Mobile SDK persists in `options.mergeMode`.
public enum MergeMode: String, Hashable, Sendable, CaseIterable {
    /// Fetched records are written over local ones, local edits included, and come out clean —
    /// except a record fetched again with the modification date its local copy already has: the
    /// server has not changed it, so a local edit is kept (decision 0321).
    case overwrite = "OVERWRITE"
    /// Fetched records whose local copy is dirty are not written at all.
    case leaveIfChanged = "LEAVE_IF_CHANGED"
}
