public import EventJournal

extension SyncManager {
    /// The state of the sync with `id`, now and after every change, whichever manager or
    /// process makes it; see ``SyncStore/observeSyncState(id:)``.
    ///
    /// Unlike ``updates()``, which streams the states of this manager's own runs from now on,
    /// this yields the sync's current state first and follows it wherever it is run.
    public nonisolated func observeSync(id: Int64) -> JournalValueObservation<SyncState?> {
        store.observeSyncState(id: id)
    }

    /// The state of the sync named `name`, now and after every change, whichever manager or
    /// process makes it; see ``SyncStore/observeSyncState(named:)``.
    public nonisolated func observeSync(named name: String) -> JournalValueObservation<SyncState?> {
        store.observeSyncState(named: name)
    }
}
