import EventJournal
import Soups
import Synchronization

extension SyncManager {
    /// Creates a sync down without running it: status NEW.
    ///
    /// - Parameters:
    ///   - target: where records come from.
    ///   - options: the merge mode.
    ///   - soupName: the soup records go to; it must exist.
    ///   - name: an optional unique name.
    /// - Returns: the new sync's state.
    /// - Throws: ``SyncError/Code/duplicateName`` ("Failed to create sync down: there is already a
    ///   sync with name:<name>"), ``SyncError/Code/invalidName``, `SoupError` for an unknown soup,
    ///   `JournalError` for storage trouble.
    @discardableResult
    public func createSyncDown(
        target: SyncDownTargetDescriptor, options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil
    ) throws -> SyncState {
        try createSync(target: .syncDown(target), options: options, soupName: soupName, name: name)
    }

    /// What a new sync is made of, before it has an id.
    struct NewSync {
        var target: SyncState.Target
        var options: SyncOptions
        var soupName: String
        var name: String?
    }

    /// Creates a sync of either type without running it; sync-up syncs are kept for the sync-up
    /// engine (config files may declare them).
    func createSync(target: SyncState.Target, options: SyncOptions, soupName: String, name: String?) throws
        -> SyncState
    {
        try createSyncs([NewSync(target: target, options: options, soupName: soupName, name: name)])[0]
    }

    /// Creates syncs in one write transaction: all of them, or none when one is refused.
    func createSyncs(_ syncs: [NewSync]) throws -> [SyncState] {
        for sync in syncs { try Self.checkMergeMode(of: sync) }
        for soupName in Set(syncs.flatMap(Self.soupsWritten)).sorted() where !(try store.soups.hasSoup(soupName)) {
            throw SoupError(.unknownSoup, "no soup named '\(soupName)': a sync needs its soup registered first")
        }
        return try store.journal.write { writer in
            let databases = SyncStateDatabases(writer.transaction, writer.database)
            return try syncs.map { sync in
                try SyncNames.checkAvailable(sync.name, for: sync.target.syncType) {
                    (try? databases.syncId(named: $0)) != nil
                }
                // The projection folds each `sync.created` in this transaction, so the next id
                // read here already counts the syncs created before it.
                let state = SyncState(
                    id: try databases.nextSyncId(), name: sync.name, target: sync.target, options: sync.options,
                    soupName: sync.soupName)
                try writer.append(state.createdEntryDraft)
                return state
            }
        }
    }

    /// Refuses MERGE_FIELDS on the targets that do not merge field by field: parent/children
    /// (a record and its children are one upload) and briefcase (several soups per sync), as
    /// docs/conflicts.md says.
    static func checkMergeMode(of sync: NewSync) throws(SyncError) {
        guard sync.options.mergeMode == .mergeFields else { return }
        let refused: String? =
            switch sync.target {
            case .syncDown(let target):
                switch target.kind {
                case .parentChildren: "parent/children"
                case .briefcase: "briefcase"
                default: nil
                }
            case .syncUp(let target):
                if case .parentChildren = target.kind { "parent/children" } else { nil }
            }
        if let refused {
            throw SyncError(
                .unsupportedMergeMode,
                "MERGE_FIELDS is not supported by \(refused) targets: use OVERWRITE or LEAVE_IF_CHANGED")
        }
    }

    /// The soups a sync reads and writes, which must exist before it is created: its own soup,
    /// or the soups its target names instead: parent/children and briefcase targets write only
    /// those, so their own soup name is free (Mobile SDK's sample config says `does-not-matter`).
    static func soupsWritten(by sync: NewSync) -> [String] {
        switch sync.target {
        case .syncDown(let target):
            switch target.kind {
            case .parentChildren(let relationship, _, _, _):
                return [relationship.parent.soupName, relationship.children.soupName]
            case .briefcase(let infos, _):
                return infos.map(\.soupName)
            default:
                return [sync.soupName]
            }
        case .syncUp(let target):
            guard case .parentChildren(let relationship, _, _) = target.kind else { return [sync.soupName] }
            return [relationship.parent.soupName, relationship.children.soupName]
        }
    }

    /// The state of the sync with `id`, or `nil`.
    public func getSyncStatus(id: Int64) throws -> SyncState? {
        try store.syncState(id: id)
    }

    /// The state of the sync named `name`, or `nil`.
    public func getSyncStatus(name: String) throws -> SyncState? {
        try store.syncState(named: name)
    }

    /// Whether a sync is named `name`.
    public func hasSync(named name: String) throws -> Bool {
        try store.syncState(named: name) != nil
    }

    /// Deletes the sync with `id`; its records stay in the soup. Unknown ids are ignored.
    ///
    /// The sync's lease is held while the deletion is appended, so a run cannot start in another
    /// process between the check and the deletion.
    ///
    /// - Throws: ``SyncError/Code/syncRunning`` when the sync is active here or in another process.
    public func deleteSync(id: Int64) throws {
        guard try store.syncState(id: id) != nil else { return }
        try enterActive(id, requiresAccepting: false)
        defer { leaveActive(id) }
        guard let state = try store.syncState(id: id) else { return }
        var header: [String: JournalEntry.HeaderValue] = [
            SyncHeader.syncId: .integer(id), SyncHeader.soup: .string(state.soupName),
        ]
        if let name = state.name { header[SyncHeader.syncName] = .string(name) }
        try store.journal.append(JournalEntry.Draft(kind: .syncDeleted, header: header))
    }

    /// Deletes the sync named `name`; an unknown name is ignored, as in Mobile SDK.
    ///
    /// - Throws: ``SyncError/Code/syncRunning`` when the sync is active.
    public func deleteSync(name: String) throws {
        guard let state = try store.syncState(named: name) else { return }
        try deleteSync(id: state.id)
    }

    /// Creates the syncs a `usersyncs.json` / `globalsyncs.json` declares, skipping names that
    /// exist (their syncs are left untouched); none is run.
    ///
    /// The file is already checked whole by ``SyncsConfig``; the syncs are created in one
    /// transaction, so a refused entry (an unknown soup) creates none (decision 0312).
    ///
    /// - Returns: the syncs created, in file order.
    /// - Throws: `SoupError` for an entry whose soup does not exist, `JournalError` for storage
    ///   trouble.
    @discardableResult
    public func setupSyncs(from config: SyncsConfig) throws -> [SyncState] {
        let entries = config.entriesToCreate { (try? store.syncState(named: $0)) != nil }
        return try createSyncs(
            entries.map { NewSync(target: $0.target, options: $0.options, soupName: $0.soupName, name: $0.name) })
    }

    /// Whether the sync is active in this manager: running, queued for its turn, or having its
    /// ghosts cleaned.
    ///
    /// An active sync cannot be re-synced, cleaned or deleted. Safe to call from any thread.
    /// ``SyncStore/isSyncOwned(id:)`` also sees syncs active in other processes.
    public nonisolated func isActive(syncId id: Int64) -> Bool {
        scheduling.withLock { $0.active[id] != nil }
    }
}
