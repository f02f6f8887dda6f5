public import EventJournal

extension JournalEntry.Kind {
    /// A sync was created; the payload is its ``SyncState`` JSON.
    public static let syncCreated: Self = "sync.created"
    /// A sync's state changed (status, progress, watermark, error); the payload is the whole new
    /// ``SyncState`` JSON.
    public static let syncStateChanged: Self = "sync.state.changed"
    /// A sync down fetched a page; see ``SyncDownPage``.
    public static let syncDownPageFetched: Self = "sync.down.page"
    /// A sync was deleted; the header names it. Its records stay in the soup.
    public static let syncDeleted: Self = "sync.deleted"
    /// A ghost cleaning ran; see ``GhostCleaning``.
    public static let syncGhostsCleaned: Self = "sync.ghosts.cleaned"
}

/// Header field names of Mobile Sync entries, shared with `journal-replay log --sync/--soup`.
enum SyncHeader {
    static let syncId = "syncId"
    static let syncName = "syncName"
    static let soup = "soup"
    static let status = "status"
    static let page = "page"
    static let totalSize = "totalSize"
    static let maxTimeStamp = "maxTimeStamp"
    static let advancesWatermark = "advancesWatermark"
    static let idFieldName = "idFieldName"
    static let mergeMode = "mergeMode"
    static let modificationDateFieldName = "modificationDateFieldName"
    static let modifiedSince = "modifiedSince"
    static let reSyncOverlapSeconds = "reSyncOverlapSeconds"
    static let previousWatermark = "previousWatermark"
    static let recordCount = "recordCount"
    static let childrenSoup = "childrenSoup"
    static let childrenRelationship = "childrenRelationship"
    static let childIdFieldName = "childIdFieldName"
    static let childModificationDateFieldName = "childModificationDateFieldName"
    static let childParentIdFieldName = "childParentIdFieldName"
    static let relationshipType = "relationshipType"
    static let childExternalIdFieldName = "childExternalIdFieldName"
}
