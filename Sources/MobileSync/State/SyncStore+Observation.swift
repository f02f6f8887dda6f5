public import EventJournal
import Soups
import Synchronization

// Observing one sync's state (decision 0004). Sync states are a projection, so every manager's
// runs, in this process or another, show through the journal.
extension SyncStore {
    /// The state of the sync with `id`: now, then after every commit that changes it.
    ///
    /// ```swift
    /// for try await state in store.observeSyncState(id: sync.id) {
    ///     progressBar.value = state?.progress ?? 0
    /// }
    /// ```
    ///
    /// The state is read again only after an entry of this sync (its creation, a state change,
    /// a fetched page, its deletion) and yielded only when it differs from the last one
    /// yielded; `nil` while there is no such sync. Every state a manager journals is committed
    /// in its own write, so a consumer that keeps up sees each; one that falls behind gets the
    /// newest. A RUNNING state whose process died stays RUNNING here until a manager journals
    /// STOPPED; ``currentState(of:)`` tells it at once.
    /// - Returns: an observation; nothing is read until it is iterated. Its iterator throws
    ///   `JournalError` for storage trouble and ``SyncError`` for a malformed stored state.
    public func observeSyncState(id: Int64) -> JournalValueObservation<SyncState?> {
        journal.observeValue(
            reevaluatingFor: { Self.entry($0, changesSync: id) },
            read: { try SyncStateDatabases($0.transaction, $0.database).state(id: id) })
    }

    /// The state of the sync named `name`: now, then after every commit that changes it.
    ///
    /// Follows the name: `nil` while no sync has it, then the state of the sync created with
    /// it, and of another one created with it after a deletion. Otherwise as
    /// ``observeSyncState(id:)``.
    public func observeSyncState(named name: String) -> JournalValueObservation<SyncState?> {
        // The id the name had at the last read: entries of fetched pages name only the id.
        let namedId = NamedSyncId()
        return journal.observeValue(
            reevaluatingFor: { entry in
                entry.header[SyncHeader.syncName] == .string(name)
                    || namedId.value.map { Self.entry(entry, changesSync: $0) } == true
            },
            read: { reader in
                let databases = SyncStateDatabases(reader.transaction, reader.database)
                let state = try databases.syncId(named: name).flatMap { try databases.state(id: $0) }
                namedId.value = state?.id
                return state
            })
    }

    /// Whether the sync-state projection may change sync `id` when it folds `entry`.
    static func entry(_ entry: JournalEntry, changesSync id: Int64) -> Bool {
        guard statefulKinds.contains(entry.kind) else { return false }
        return entry.header[SyncHeader.syncId] == .integer(id)
    }

    /// The kinds whose fold changes a sync's state (a ghost cleaning changes only its summary).
    private static let statefulKinds: Set<JournalEntry.Kind> = [
        .syncCreated, .syncStateChanged, .syncDownPageFetched, .syncDeleted,
    ]
}

/// The id a sync name resolved to at an observation's last read; read by its relevance test.
private final class NamedSyncId: Sendable {
    private let storage = Mutex<Int64?>(nil)

    var value: Int64? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
