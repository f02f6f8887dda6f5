import EventJournal
import Logging
import LosslessJSON
import Soups
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
    /// A target that writes several soups (parent/children, briefcase) lists each soup's remote
    /// ids (``SyncDownTarget/remoteIdsBySoup(_:)``); every soup is cleaned the same way, and a
    /// parent with a dirty child is never a ghost (decision 0322).
    ///
    /// Under MERGE_FIELDS, a record of the sync changed here (updated, neither created nor
    /// deleted here) that the server no longer has is not deleted: it gets a `deletedOnServer`
    /// conflict (``RecordConflict/Kind/deletedOnServer``), as an update answered "not found"
    /// does. Parent/children and briefcase syncs refuse MERGE_FIELDS, so this applies to
    /// single-soup targets.
    ///
    /// The remote ids, both kinds of ghosts and those conflicts are one journal entry; the sync's
    /// state is not changed.
    ///
    /// - Returns: how many records were deleted, in every soup.
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
        let context = SyncDownContext(
            syncId: id, soupName: sync.soupName, soups: store.soups, client: client, logger: logger)
        let target = try targets.makeTarget(for: descriptor)
        let cleaning: GhostCleaning
        if let soups = try await target.remoteIdsBySoup(context), let main = soups.first {
            cleaning = try await ghosts(of: id, main: main, related: Array(soups.dropFirst()))
        } else {
            let idFieldName = descriptor.idFieldName
            let local = try cleanRecords(of: id, soupName: sync.soupName, idFieldName: idFieldName)
            // Under MERGE_FIELDS the sync's changed records are asked about too: one the server
            // no longer has is a conflict, not a ghost.
            let changed =
                sync.options.mergeMode == .mergeFields
                ? try store.soups.dirtyRecords(sync.soupName).filter { GhostSet.isChangedCandidate($0, syncId: id) }
                : []
            let localIds = (local.owned + changed).compactMap { $0[idFieldName]?.string }
            let remoteIds = try await target.remoteIds(context, localIds: localIds)
            let unownedGhosts = try await missingOnServer(local.unowned, idFieldName: idFieldName, known: remoteIds)
            let ghosts = GhostSet.ghostIds(
                localRecords: local.owned, idFieldName: idFieldName, syncId: id, remoteIds: remoteIds)
            cleaning = GhostCleaning(
                syncId: id, soupName: sync.soupName, idFieldName: idFieldName, remoteIds: Array(remoteIds),
                ghostIds: ghosts, unownedGhostIds: unownedGhosts,
                deletedOnServerIds: changed.compactMap { $0[idFieldName]?.string }.filter { !remoteIds.contains($0) }
                    .sorted())
        }
        try checkAccepting()
        try store.journal.append(cleaning.journalDraft)
        logger.info("Ghosts cleaned", metadata: ["sync.id": "\(id)", "sync.ghosts": "\(cleaning.ghostCount)"])
        return cleaning.ghostCount
    }

    /// Deletes the ghosts of the sync named `name`; see ``cleanResyncGhosts(id:)``.
    @discardableResult
    public func cleanResyncGhosts(name: String) async throws -> Int {
        guard let sync = try store.syncState(named: name) else { throw SyncError.syncNotFound(name) }
        return try await cleanResyncGhosts(id: sync.id)
    }

    /// The cleaning of a target that writes several soups: the ghosts (owned and unowned) of
    /// each soup, where a parent with a dirty child (in a soup that names a parent id field) is
    /// never a ghost, so the child's change keeps its parent (decision 0322).
    private func ghosts(of syncId: Int64, main: SoupRemoteIds, related: [SoupRemoteIds]) async throws -> GhostCleaning {
        func ghostIds(_ soup: SoupRemoteIds) async throws -> (owned: [String], unowned: [String]) {
            let local = try cleanRecords(of: syncId, soupName: soup.soupName, idFieldName: soup.idFieldName)
            let owned = GhostSet.ghostIds(
                localRecords: local.owned, idFieldName: soup.idFieldName, syncId: syncId, remoteIds: soup.remoteIds)
            let unowned = try await missingOnServer(local.unowned, idFieldName: soup.idFieldName, known: soup.remoteIds)
            return (owned, unowned)
        }
        var parentsWithDirtyChildren = Set<String>()
        for children in related {
            guard let field = children.parentIdFieldName else { continue }
            parentsWithDirtyChildren.formUnion(
                GhostSet.parentIdsKept(
                    byChildren: try store.soups.dirtyRecords(children.soupName), parentIdFieldName: field))
        }
        let parents = try await ghostIds(main)
        var others: [GhostCleaning.Related] = []
        for soup in related {
            let ghosts = try await ghostIds(soup)
            others.append(
                GhostCleaning.Related(
                    soupName: soup.soupName, idFieldName: soup.idFieldName, parentIdFieldName: soup.parentIdFieldName,
                    remoteIds: Array(soup.remoteIds), ghostIds: ghosts.owned, unownedGhostIds: ghosts.unowned))
        }
        return GhostCleaning(
            syncId: syncId, soupName: main.soupName, idFieldName: main.idFieldName, remoteIds: Array(main.remoteIds),
            ghostIds: parents.owned.filter { !parentsWithDirtyChildren.contains($0) },
            unownedGhostIds: parents.unowned.filter { !parentsWithDirtyChildren.contains($0) }, related: others)
    }

    /// The clean records of `soupName`, read page by page: those sync `syncId` wrote
    /// (`__sync_id__` is its id), and those no sync down wrote (no `__sync_id__`, `__local__`
    /// `false`, a server id in the id field).
    private func cleanRecords(of syncId: Int64, soupName: String, idFieldName: String) throws -> (
        owned: [JSONValue], unowned: [JSONValue]
    ) {
        var owned: [JSONValue] = []
        var unowned: [JSONValue] = []
        var pageIndex = 0
        while true {
            let page = try store.soups.query(
                QuerySpec.all(soupName, pageSize: Self.ghostScanPageSize), pageIndex: pageIndex)
            for record in page {
                if GhostSet.isOwnedCandidate(record, syncId: syncId) {
                    owned.append(record)
                } else if GhostSet.isUnownedCandidate(record, idFieldName: idFieldName) {
                    unowned.append(record)
                }
            }
            guard page.count == Self.ghostScanPageSize else { return (owned, unowned) }
            pageIndex += 1
        }
    }

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
