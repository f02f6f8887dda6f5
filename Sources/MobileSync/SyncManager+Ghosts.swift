import EventJournal
import Logging
import Soups
import SyncCore
import Synchronization

extension SyncManager {
    /// The most records read from the soup per query while listing a sync's local records.
    static let ghostScanPageSize = 10_000

    /// Deletes the sync's ghosts: its clean local records that the target no longer returns.
    ///
    /// Local records are those with `__sync_id__` equal to the sync's id, whether or not the soup
    /// indexes that field (Mobile SDK takes every clean record of the soup when it is not indexed
    /// and so deletes other syncs' records; docs/decisions/0313). Dirty records are never ghosts.
    /// The remote ids and the ghosts are one journal entry; the sync's state is not changed.
    ///
    /// - Returns: how many records were deleted.
    /// - Throws: ``SyncError/Code/syncNotFound``, ``SyncError/Code/syncRunning``,
    ///   ``SyncError/Code/managerStopped`` (also when a stop is requested during the cleaning),
    ///   ``SyncError/Code/wrongType`` ("Cannot run cleanResyncGhosts:<id>: wrong type:syncUp"),
    ///   or the target's fetch error.
    @discardableResult
    public func cleanResyncGhosts(id: Int64) async throws -> Int {
        guard let sync = try store.syncState(id: id) else { throw SyncError.syncNotFound(String(id)) }
        guard let descriptor = sync.syncDownTarget else {
            throw SyncError.ghostCleaningNeedsSyncDown(id: id, type: sync.type)
        }
        try enterActive(id)
        defer { leaveActive(id) }
        await takeTurn()
        defer { turns.release() }
        // A stop requested while the cleaning waited for its turn ends it before any request.
        try checkAccepting()
        let localRecords = try cleanRecords(of: sync, idFieldName: descriptor.idFieldName)
        let localIds = localRecords.compactMap { $0[descriptor.idFieldName]?.string }
        let context = SyncDownContext(
            syncId: id, soupName: sync.soupName, soups: store.soups, client: client, logger: logger)
        let remoteIds = try await targets.makeTarget(for: descriptor).remoteIds(context, localIds: localIds)
        try checkAccepting()
        let ghosts = GhostSet.ghostIds(
            localRecords: localRecords, idFieldName: descriptor.idFieldName, syncId: id, remoteIds: remoteIds)
        let cleaning = GhostCleaning(
            syncId: id, soupName: sync.soupName, idFieldName: descriptor.idFieldName, remoteIds: Array(remoteIds),
            ghostIds: ghosts)
        try store.journal.append(cleaning.journalDraft)
        logger.info("Ghosts cleaned", metadata: ["sync.id": "\(id)", "sync.ghosts": "\(ghosts.count)"])
        return ghosts.count
    }

    /// Deletes the ghosts of the sync named `name`; see ``cleanResyncGhosts(id:)``.
    @discardableResult
    public func cleanResyncGhosts(name: String) async throws -> Int {
        guard let sync = try store.syncState(named: name) else { throw SyncError.syncNotFound(name) }
        return try await cleanResyncGhosts(id: sync.id)
    }

    /// The clean records of the sync's soup written by this sync: through the soup's index on
    /// `__sync_id__` when it has one, else by reading the soup page by page.
    private func cleanRecords(of sync: SyncState, idFieldName: String) throws -> [JSONValue] {
        let indexed = try store.soups.indexSpecs(of: sync.soupName).contains { $0.path == "__sync_id__" }
        var records: [JSONValue] = []
        var pageIndex = 0
        while true {
            let spec =
                indexed
                ? QuerySpec.exact(
                    sync.soupName, path: "__sync_id__", value: .number(JSONNumber(sync.id)),
                    pageSize: Self.ghostScanPageSize)
                : QuerySpec.all(sync.soupName, pageSize: Self.ghostScanPageSize)
            let page = try store.soups.query(spec, pageIndex: pageIndex)
            records += page.filter { $0["__sync_id__"]?.number?.int64Value == sync.id && $0["__local__"]?.bool != true }
            guard page.count == Self.ghostScanPageSize else { return records }
            pageIndex += 1
        }
    }
}
