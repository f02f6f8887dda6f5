public import EventJournal

// The journal's sync entries, declared once: MobileSync's engine appends them and MobileSync's
// fold rules read them, in the soup fold (docs/mobilesync.md documents their payloads). A change
// of a name is one edit.

extension JournalEntry.Kind {
    /// A sync down fetched a page: the records as the server sent them, folded into the soup
    /// (MobileSync's `SyncDownPage`).
    public static let syncDownPageFetched: Self = "sync.down.page"
    /// A ghost cleaning ran: the local records it found missing remotely (MobileSync's
    /// `GhostCleaning`).
    public static let syncGhostsCleaned: Self = "sync.ghosts.cleaned"
    /// A sync up is about to send one request (MobileSync's `SyncUpUpload.intentDraft`).
    public static let syncUpIntent: Self = "sync.up.intent"
    /// A sync up request was answered (MobileSync's `SyncUpUpload.outcomeDraft(_:)`); the soup
    /// projection applies it.
    public static let syncUpOutcome: Self = "sync.up.outcome"
    /// A MERGE_FIELDS conflict was resolved: the record as resolved and what stays in conflict
    /// (MobileSync's `ConflictResolutionRule`).
    public static let syncConflictResolved: Self = "sync.conflict.resolved"
}

/// The header fields of the sync entries and the values they take, shared by the engine that
/// writes them, the fold rules that read them and `journal-replay log --sync/--soup`.
package enum SyncHeader {
    package static let syncId = "syncId"
    package static let syncName = "syncName"
    package static let soup = "soup"
    package static let requestId = "requestId"
    package static let status = "status"
    package static let page = "page"
    package static let totalSize = "totalSize"
    package static let maxTimeStamp = "maxTimeStamp"
    package static let advancesWatermark = "advancesWatermark"
    package static let idFieldName = MobileSDKKey.idFieldName
    package static let externalIdFieldName = "externalIdFieldName"
    package static let mergeMode = MobileSDKKey.mergeMode
    package static let modificationDateFieldName = "modificationDateFieldName"
    package static let modifiedSince = "modifiedSince"
    package static let reSyncOverlapSeconds = "reSyncOverlapSeconds"
    package static let previousWatermark = "previousWatermark"
    package static let recordCount = "recordCount"
    package static let childrenSoup = "childrenSoup"
    package static let childrenRelationship = "childrenRelationship"
    package static let childIdFieldName = "childIdFieldName"
    package static let childModificationDateFieldName = "childModificationDateFieldName"
    package static let childParentIdFieldName = "childParentIdFieldName"
    package static let relationshipType = "relationshipType"
    package static let childExternalIdFieldName = "childExternalIdFieldName"

    // The values of `mergeMode` and `relationshipType` are `MergeMode`'s and
    // `ParentChildrenRelationship.RelationshipType`'s raw values, read typed.
}

/// The members of the sync entries' JSON payloads, shared by the types that write each entry and
/// read it back (``GhostCleaning``, ``SyncUpUpload``); docs/mobilesync.md documents them. A member
/// that also names a header field is that field's constant (``SyncHeader/soup``,
/// ``SyncHeader/idFieldName``).
package enum SyncPayload {
    // `sync.ghosts.cleaned`, and the summary the sync-state projection keeps of it.
    package static let remoteIds = "remoteIds"
    package static let ghostIds = "ghostIds"
    package static let unownedGhostIds = "unownedGhostIds"
    package static let deletedOnServerIds = "deletedOnServerIds"
    package static let related = "related"
    package static let parentIdFieldName = "parentIdFieldName"
    package static let remoteIdCount = "remoteIdCount"
    package static let sequence = "sequence"

    // `sync.up.intent` and `sync.up.outcome`.
    package static let records = "records"
    package static let outcomes = "outcomes"
    package static let entryId = "entryId"
    package static let action = "action"
    package static let version = "version"
    package static let id = "id"
    package static let externalId = "externalId"
    package static let outcome = "outcome"
    package static let serverId = "serverId"
    package static let serverFields = "serverFields"
    package static let error = "error"
}
