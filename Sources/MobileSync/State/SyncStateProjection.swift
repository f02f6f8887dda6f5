package import EventJournal
import LMDBStore
package import LosslessJSON
import Soups

/// The projection that folds sync entries into the states of a store's syncs.
///
/// | database | key | value |
/// |---|---|---|
/// | `syncs.states` | sync id (8 bytes, big-endian) | the ``SyncState`` JSON |
/// | `syncs.names` | sync name (UTF-8) | sync id (8 bytes, big-endian) |
/// | `syncs.ghosts` | sync id (8 bytes, big-endian) | the last ghost cleaning: `{remoteIdCount, ghostIds, sequence}`, and `unownedGhostIds` when it found any |
/// | `syncs.meta` | `next-sync-id` | UInt64 big-endian |
///
/// `sync.created` and `sync.state.changed` carry whole states, so the last one wins.
/// `sync.down.page` is applied to the running state by the page's own fold (``ServerPageRule``,
/// in the soup projection, through ``applyPage(_:leftAlone:in:)``), which alone knows how many
/// records it left alone: `totalSize` on page 0, `fetchedCount`, `changedCount` and progress on
/// every page, and, when `advancesWatermark`, `maxTimeStamp` to `max(current, page)`, so the
/// records, the watermark and the progress commit together and every process reads them.
/// `sync.deleted` removes a sync and its name; `sync.ghosts.cleaned` records the cleaning.
/// The fold reads nothing but the entry and these databases.
package struct SyncStateProjection: Projection {
    /// The projection's name, `syncs`.
    package let name = "syncs"
    /// The fold's version; bump it when the fold changes. 2: a batch or collection sync-up
    /// target's state holds its capped `maxBatchSize`, and a cleaning's summary its
    /// `unownedGhostIds` (issue 14), so stores folded by version 1 are rebuilt on open. Pages
    /// fold progress, `fetchedCount` and `changedCount` since decision 0325 without a new
    /// version: pages journaled before it carry no `recordCount` and fold exactly as version 2
    /// did, so no store (a compacted one cannot be rebuilt) needs rebuilding for it.
    package let version = 2
    /// `syncs.states`, `syncs.names`, `syncs.ghosts`, `syncs.meta`.
    package var databaseNames: [String] {
        SyncStateDatabases.names
    }

    /// Creates the projection.
    package init() {}

    /// Folds `sync.created`, `sync.state.changed`, `sync.down.page`, `sync.deleted`,
    /// `sync.ghosts.cleaned` and `smartstore.imported`'s `nextSyncId`; ignores other kinds.
    package func apply(_ entry: JournalEntry, in context: ProjectionContext) throws {
        let databases = SyncStateDatabases(context.transaction, context.database)
        switch entry.kind {
        case .syncCreated:
            let state = try SyncState(journalEntry: entry)
            guard try databases.state(id: state.id) == nil else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): sync \(state.id) already exists.")
            }
            if let name = state.name, try databases.syncId(named: name) != nil {
                throw SyncError.duplicateName(name, type: state.type)
            }
            try databases.put(state)
            try databases.putNextSyncId(max(try databases.nextSyncId(), state.id + 1))
        case .syncStateChanged:
            let state = try SyncState(journalEntry: entry)
            guard let old = try databases.state(id: state.id) else { throw SyncError.syncNotFound(String(state.id)) }
            // A sync keeps its name for life; an entry renaming it is malformed, not a bug.
            guard old.name == state.name else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): sync \(state.id) cannot change its name.")
            }
            try databases.put(state)
        case .syncDownPageFetched:
            break  // applied by the page's fold, in the soup projection: ServerPageRule
        case .syncDeleted:
            let id = try EntryHeader(entry).integer(SyncHeader.syncId)
            try databases.delete(id: id)
        case .syncGhostsCleaned:
            let id = try EntryHeader(entry).integer(SyncHeader.syncId)
            try databases.putGhostCleaning(id: id, summary: GhostCleaning.summary(of: entry))
        case .smartStoreImported:
            try applyImport(entry, databases)  // SyncStateProjection+Import.swift
        default:
            return
        }
        try checkInvariants(after: entry, databases)
    }

    /// Every sync's state JSON by id, and the last ghost cleaning of each, for
    /// `journal-replay state`; `filter["soup"]` keeps the syncs of one soup, `filter["sync"]`
    /// one sync by id or name.
    package func describeState(in context: ProjectionContext, filter: [String: String]) throws -> JSONValue {
        let databases = SyncStateDatabases(context.transaction, context.database)
        var syncs: [String: JSONValue] = [:]
        for state in try databases.allStates() {
            if let soup = filter["soup"], soup != state.soupName { continue }
            if let sync = filter["sync"], sync != String(state.id), sync != state.name { continue }
            var described = state.json
            if let cleaning = try databases.ghostCleaning(id: state.id), case .object(var members) = described {
                members["lastGhostCleaning"] = cleaning
                described = .object(members)
            }
            syncs[String(state.id)] = described
        }
        return ["syncs": .object(syncs), "nextSyncId": .number(JSONNumber(try databases.nextSyncId()))]
    }

    /// Applies a fetched page to its sync's state (``SyncState/applyPage(_:leftAlone:)``), in the
    /// fold of the page's entry.
    /// - Parameters:
    ///   - page: the page, as journaled.
    ///   - leftAlone: how many of its records the page fold left alone (decision 0325).
    ///   - context: the append's projection context, which holds this projection's databases.
    static func applyPage(_ page: SyncDownPage, leftAlone: Int, in context: ProjectionContext) throws {
        let databases = SyncStateDatabases(context.transaction, context.database)
        // A page of a sync deleted while it ran changes no state: the sync is gone.
        guard var state = try databases.state(id: page.syncId) else { return }
        state.applyPage(page, leftAlone: Int64(leftAlone))
        try databases.put(state)
    }

    /// Checks, after each applied entry, that the sync it names and the name index agree.
    ///
    /// Compiled in with `SYNC_INTERNAL_CHECKS` (STYLE rule 8); O(1) per entry, since it looks
    /// only at the entry's sync. A full rebuild is compared by `journal-replay verify`.
    func checkInvariants(after entry: JournalEntry, _ databases: SyncStateDatabases) throws {
        #if SYNC_INTERNAL_CHECKS
            guard let id = entry.header[SyncHeader.syncId]?.integer else { return }
            guard let state = try databases.state(id: id) else {
                if let name = entry.header[SyncHeader.syncName]?.string {
                    let owner = try databases.syncId(named: name)
                    precondition(owner != id, "a deleted sync leaves no name behind")
                }
                return
            }
            let nextId = try databases.nextSyncId()
            precondition(state.id == id, "a state is stored under its own id")
            precondition(nextId > id, "sync ids are never handed out twice")
            if let name = state.name {
                let owner = try databases.syncId(named: name)
                precondition(owner == id, "a named sync is found by its name")
            }
        #endif
    }
}
