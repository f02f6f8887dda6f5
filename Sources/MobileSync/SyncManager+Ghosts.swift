import EventJournal
import Logging
import Soups
import SyncCore
import Synchronization

extension SyncManager {
    /// The most records read from the soup per query while listing a sync's local records.
    static let ghostScanPageSize = 10_000

    /// Deletes the sync's ghosts: its clean local records that the target no longer returns; and
    /// the soup's clean records that no sync down owns and that the server no longer has.
    ///
    /// Local records are those with `__sync_id__` equal to the sync's id, whether or not the soup
    /// indexes that field (Mobile SDK takes every clean record of the soup when it is not indexed
    /// and so deletes other syncs' records; docs/decisions/0313). Dirty records are never ghosts.
    ///
    /// Records with no `__sync_id__` and `__local__` `false` — typically created here, uploaded by
    /// a sync up, then deleted on the server before any sync down fetched them — belong to no
    /// sync's query, so they are checked by id against the server instead: per sObject type
    /// (`attributes.type`), ``SyncDownTargetDescriptor/refreshIdsPerQueryMax`` ids per query,
    /// skipping ids the target just returned; those the server does not return are removed too
    /// (decision 0319). Without a Salesforce connection, or for a record without an sObject type,
    /// that check is skipped and the records are kept.
    ///
    /// The remote ids and both kinds of ghosts are one journal entry; the sync's state is not
    /// changed.
    ///
    /// - Returns: how many records were deleted.
    /// - Throws: ``SyncError/Code/syncNotFound``, ``SyncError/Code/syncRunning`` (also when
    ///   another process runs or cleans the sync), ``SyncError/Code/managerStopped`` (also when a
    ///   stop is requested during the cleaning), ``SyncError/Code/wrongType`` ("Cannot run
    ///   cleanResyncGhosts:<id>: wrong type:syncUp"), or the target's or the server's error.
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
        let idFieldName = descriptor.idFieldName
        let local = try cleanRecords(of: sync, idFieldName: idFieldName)
        let localIds = local.owned.compactMap { $0[idFieldName]?.string }
        let context = SyncDownContext(
            syncId: id, soupName: sync.soupName, soups: store.soups, client: client, logger: logger)
        let remoteIds = try await targets.makeTarget(for: descriptor).remoteIds(context, localIds: localIds)
        let unownedGhosts = try await missingOnServer(local.unowned, idFieldName: idFieldName, known: remoteIds)
        try checkAccepting()
        let ghosts = GhostSet.ghostIds(
            localRecords: local.owned, idFieldName: idFieldName, syncId: id, remoteIds: remoteIds)
        let cleaning = GhostCleaning(
            syncId: id, soupName: sync.soupName, idFieldName: idFieldName, remoteIds: Array(remoteIds),
            ghostIds: ghosts, unownedGhostIds: unownedGhosts)
        try store.journal.append(cleaning.journalDraft)
        logger.info(
            "Ghosts cleaned",
            metadata: [
                "sync.id": "\(id)", "sync.ghosts": "\(ghosts.count)", "sync.ghosts.unowned": "\(unownedGhosts.count)",
            ])
        return ghosts.count + unownedGhosts.count
    }

    /// Deletes the ghosts of the sync named `name`; see ``cleanResyncGhosts(id:)``.
    @discardableResult
    public func cleanResyncGhosts(name: String) async throws -> Int {
        guard let sync = try store.syncState(named: name) else { throw SyncError.syncNotFound(name) }
        return try await cleanResyncGhosts(id: sync.id)
    }

    /// The clean records of the sync's soup, read page by page: those this sync wrote
    /// (`__sync_id__` is its id), and those no sync down wrote (no `__sync_id__`, `__local__`
    /// `false`, a server id in the id field).
    private func cleanRecords(of sync: SyncState, idFieldName: String) throws -> (
        owned: [JSONValue], unowned: [JSONValue]
    ) {
        var owned: [JSONValue] = []
        var unowned: [JSONValue] = []
        var pageIndex = 0
        while true {
            let page = try store.soups.query(
                QuerySpec.all(sync.soupName, pageSize: Self.ghostScanPageSize), pageIndex: pageIndex)
            for record in page {
                let owner = record[LocalFlags.syncId] ?? .null
                if owner.number?.int64Value == sync.id, !SyncDownMerge.isDirty(record) {
                    owned.append(record)
                } else if owner.isNull, record[LocalFlags.local] == .bool(false),
                    let id = record[idFieldName]?.string, !id.hasPrefix(Self.localIdPrefix)
                {
                    unowned.append(record)
                }
            }
            guard page.count == Self.ghostScanPageSize else { return (owned, unowned) }
            pageIndex += 1
        }
    }

    /// The prefix of the ids `createLocally` gives; such a record was never on the server.
    static let localIdPrefix = "local_"

    /// The id-field values of `records` that the server does not return, sorted; ids in `known`
    /// (just returned by the target) are not asked again.
    private func missingOnServer(_ records: [JSONValue], idFieldName: String, known: Set<String>) async throws
        -> [String]
    {
        guard let client, !records.isEmpty else {
            if !records.isEmpty {
                logger.info(
                    "Unowned clean records not checked: no Salesforce connection",
                    metadata: ["sync.records": "\(records.count)"])
            }
            return []
        }
        var idsByType: [String: Set<String>] = [:]
        for record in records {
            guard let type = SyncUpFields.objectType(of: record), Self.isIdentifier(type),
                let id = record[idFieldName]?.string, !known.contains(id)
            else { continue }
            idsByType[type, default: []].insert(id)
        }
        var missing: [String] = []
        let sliceSize = SyncDownTargetDescriptor.refreshIdsPerQueryMax
        for (type, ids) in idsByType.sorted(by: { $0.key < $1.key }) {
            let sorted = ids.sorted()
            for start in stride(from: 0, to: sorted.count, by: sliceSize) {
                let slice = Array(sorted[start..<min(start + sliceSize, sorted.count)])
                let query =
                    "SELECT \(idFieldName) FROM \(type) WHERE \(idFieldName) IN (\(SOQLQuery.quotedList(slice)))"
                let existing = try await SOQLSyncDownTarget.allIds(of: query, idFieldName: idFieldName, client: client)
                missing += slice.filter { !existing.contains($0) }
            }
        }
        return missing.sorted()
    }

    /// Whether `name` can stand in a SOQL query as an sObject type: ASCII letters, digits and `_`.
    private static func isIdentifier(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}
