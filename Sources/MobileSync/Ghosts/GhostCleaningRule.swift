package import EventJournal
import LosslessJSON
package import Soups

/// The fold of `sync.ghosts.cleaned` entries: deletes the ghosts a cleaning names, re-checked
/// against the soups as they are when the entry is applied.
///
/// The entry (read by its one parser, ``GhostCleaning/init(journalEntry:)``) lists `ghostIds`,
/// the id-field values the engine found to be ghosts of the sync, and (decision 0319)
/// `unownedGhostIds`, those of clean records that no sync down owns and that the server no
/// longer has; for a target that writes several soups, `related` lists the same for each other
/// soup (decision 0322). A record with a ghost's value is deleted only if it is still one
/// (``GhostSet/isOwnedCandidate(_:syncId:)``, ``GhostSet/isUnownedCandidate(_:idFieldName:)``).
/// So a record edited, or fetched by a sync down, between the engine's read and this append is
/// kept (DESIGN invariant 5). A parent is kept too while a child of it is dirty
/// (``GhostSet/parentIdsKept(byChildren:parentIdFieldName:)``, the rule the engine lists with).
/// Under MERGE_FIELDS, `deletedOnServerIds` names records changed here that the server no longer
/// has: each still changed here gets a `deletedOnServer` conflict and stays.
package struct GhostCleaningRule: SoupFoldRule {
    /// `sync.ghosts.cleaned`.
    package var kinds: Set<JournalEntry.Kind> {
        [.syncGhostsCleaned]
    }

    /// Creates the rule.
    package init() {}

    /// Deletes the cleaning's ghosts that are still ghosts.
    /// - Throws: `SoupError` for a malformed entry or an unknown soup; the append is refused.
    package func apply(
        _ entry: JournalEntry, decoded: (any Sendable)?, to state: SoupState, in context: ProjectionContext
    ) throws {
        let cleaning: GhostCleaning
        do {
            cleaning = try GhostCleaning(journalEntry: entry)
        } catch {
            throw SoupError(.storage, error.message, cause: error)
        }
        var keptParents = Set<String>()
        for related in cleaning.related {
            let soup = try state.requireSoup(related.soupName)
            try removeGhosts(
                owned: related.ghostIds, unowned: related.unownedGhostIds, of: cleaning.syncId, in: soup,
                idField: related.idFieldName, state)
            if let parentIdField = related.parentIdFieldName {
                keptParents.formUnion(
                    GhostSet.parentIdsKept(
                        byChildren: try state.dirtyRecords(in: soup), parentIdFieldName: parentIdField))
            }
        }
        let soup = try state.requireSoup(cleaning.soupName)
        try removeGhosts(
            owned: cleaning.ghostIds, unowned: cleaning.unownedGhostIds, of: cleaning.syncId, in: soup,
            idField: cleaning.idFieldName, state
        ) { keptParents.contains($0) }
        try noteDeletedOnServer(
            cleaning.deletedOnServerIds, of: cleaning.syncId, in: soup, idField: cleaning.idFieldName, entry, state)
    }

    /// Gives each record `ids` names that is still changed here a `deletedOnServer` conflict
    /// (MERGE_FIELDS); a record deleted, created again or cleaned since the listing is left as
    /// it is.
    private func noteDeletedOnServer(
        _ ids: [String], of syncId: Int64, in soup: SoupCatalogEntry, idField: String, _ entry: JournalEntry,
        _ state: SoupState
    ) throws {
        guard !ids.isEmpty else { return }
        let finder = try LocalRecordFinder(state: state, soup: soup, idPath: idField, wanted: ids.map(JSONValue.string))
        for id in ids {
            for entryId in try finder.allEntryIds(for: .string(id)) {
                guard let record = try state.record(soup.soupId, entryId),
                    GhostSet.isChangedCandidate(record, syncId: syncId),
                    case .object(let fields) = record
                else { continue }
                try RecordConflict.noteDeletedOnServer(
                    fields, entryId: entryId, idField: idField, soup, syncId: syncId, entrySequence: entry.sequence,
                    state)
                if state.isTraced(soup) {
                    try state.explain(
                        entryId, in: soup, FoldDecision.deletedOnServerConflict(syncId: syncId).description,
                        serverId: id)
                }
            }
        }
    }

    /// The cleaning's soup, as its header names it.
    package func soupNames(touchedBy entry: JournalEntry) -> [String] {
        [entry.header[SyncHeader.soup]?.string].compactMap { $0 }
    }

    /// Deletes the records of `soup` that `owned` and `unowned` name and that are still ghosts,
    /// unless `isKept` says otherwise for that id.
    private func removeGhosts(
        owned: [String], unowned: [String], of syncId: Int64, in soup: SoupCatalogEntry, idField: String,
        _ state: SoupState, isKept: (String) -> Bool = { _ in false }
    ) throws {
        let ownedIds = owned.map(JSONValue.string)
        let unownedIds = unowned.map(JSONValue.string)
        let finder = try LocalRecordFinder(state: state, soup: soup, idPath: idField, wanted: ownedIds + unownedIds)
        let traced = state.isTraced(soup)
        func remove(_ ids: [String], as removal: FoldDecision, where isStillGhost: (JSONValue) -> Bool) throws {
            for ghost in ids {
                let kept = isKept(ghost)
                guard !kept || traced else { continue }
                for entryId in try finder.allEntryIds(for: .string(ghost)) {
                    guard let record = try state.record(soup.soupId, entryId) else { continue }
                    let decision: FoldDecision
                    if kept {
                        decision = .keptForDirtyChild(syncId: syncId)
                    } else if isStillGhost(record) {
                        try state.removeRecord(soup.soupId, entryId)
                        decision = removal
                    } else {
                        decision = .noLongerAGhost(syncId: syncId)
                    }
                    if traced { try state.explain(entryId, in: soup, decision.description, serverId: ghost) }
                }
            }
        }
        try remove(owned, as: .ghost(syncId: syncId)) { GhostSet.isOwnedCandidate($0, syncId: syncId) }
        try remove(unowned, as: .unownedGhost(syncId: syncId)) {
            GhostSet.isUnownedCandidate($0, idFieldName: idField)
        }
    }
}
