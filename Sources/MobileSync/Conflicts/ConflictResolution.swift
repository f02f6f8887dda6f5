public import LosslessJSON

/// How ``SyncStore/resolveConflict(soup:entryId:_:)`` resolves a ``RecordConflict``.
///
/// A resolution is a local edit: the next sync up sends what it changed relative to the
/// server's copy, and a field resolved to the server's value is not sent at all.
public enum ConflictResolution: Hashable, Sendable {
    /// Every field (or the whole record, for a record-level conflict) takes one side.
    case take(Side)
    /// Each named field takes a side or a given value; a field not named stays in conflict.
    case fields([String: FieldChoice])

    /// One side of a conflict.
    public enum Side: String, Hashable, Sendable, CaseIterable {
        /// The local value, or the local record: a local delete stays to sync up; a record the
        /// server deleted is created again.
        case local
        /// The server's value, or the server's record: a local delete is undone with the
        /// server's copy; a record the server deleted is removed.
        case server
    }

    /// What one field takes.
    public enum FieldChoice: Hashable, Sendable {
        /// The field's local value.
        case local
        /// The field's server value.
        case server
        /// A value of the app's choosing, such as the two sides combined.
        case value(JSONValue)
    }
}
