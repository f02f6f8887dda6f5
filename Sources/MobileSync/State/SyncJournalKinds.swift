public import EventJournal

extension JournalEntry.Kind {
    /// A sync was created; the payload is its ``SyncState`` JSON.
    public static let syncCreated: Self = "sync.created"
    /// A sync's state changed (status, progress, watermark, error); the payload is the whole new
    /// ``SyncState`` JSON.
    public static let syncStateChanged: Self = "sync.state.changed"
    /// A sync was deleted; the header names it. Its records stay in the soup.
    public static let syncDeleted: Self = "sync.deleted"
}
