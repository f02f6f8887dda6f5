public import EventJournal

// The journal's sync entries, declared once: MobileSync's engine appends them and the soup fold
// here reads them (docs/mobilesync.md documents their payloads). A change of a name is one edit.

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
}

/// The header fields of the sync entries and the values they take, shared by the engine that
/// writes them, the soup fold that reads them and `journal-replay log --sync/--soup`.
package enum SyncHeader {
    package static let syncId = "syncId"
    package static let syncName = "syncName"
    package static let soup = "soup"
    package static let status = "status"
    package static let page = "page"
    package static let totalSize = "totalSize"
    package static let maxTimeStamp = "maxTimeStamp"
    package static let advancesWatermark = "advancesWatermark"
    package static let idFieldName = "idFieldName"
    package static let externalIdFieldName = "externalIdFieldName"
    package static let mergeMode = "mergeMode"
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

    /// `mergeMode`'s values, Mobile SDK's names.
    package static let leaveIfChanged = "LEAVE_IF_CHANGED"
    package static let overwrite = "OVERWRITE"
    /// The `relationshipType` whose children the server deletes with their parent.
    package static let masterDetail = "MASTER_DETAIL"
}
