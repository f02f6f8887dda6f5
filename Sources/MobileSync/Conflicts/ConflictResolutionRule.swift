package import EventJournal
import LosslessJSON
package import Soups

/// The fold of `sync.conflict.resolved` entries: stores the record as the resolution left it
/// (or removes it) and keeps what stays in conflict (``ConflictResolutionEntry``).
///
/// The entry names the `_soupLastModifiedDate` of the record it resolved; a record changed
/// since (by a sync or an edit that committed first) refuses the append, so a resolution never
/// writes over a change it did not see.
package struct ConflictResolutionRule: SoupFoldRule {
    /// `sync.conflict.resolved`.
    package var kinds: Set<JournalEntry.Kind> {
        [.syncConflictResolved]
    }

    /// Creates the rule.
    package init() {}

    /// Applies a resolution.
    /// - Throws: `SoupError` for a malformed entry, an unknown soup, or a record changed since
    ///   the resolution was decided; the append is refused.
    package func apply(
        _ entry: JournalEntry, decoded: (any Sendable)?, to state: SoupState, in context: ProjectionContext
    ) throws {
        let resolution: ConflictResolutionEntry
        do {
            resolution = try ConflictResolutionEntry(journalEntry: entry)
        } catch {
            throw SoupError(.storage, error.message, cause: error)
        }
        let soup = try state.requireSoup(resolution.soupName)
        guard let stored = try state.record(soup.soupId, resolution.entryId),
            stored[SoupStore.lastModifiedDateField] == resolution.version
        else {
            throw SoupError(
                .unknownEntry,
                "the record \(resolution.entryId) of soup '\(soup.name)' changed since its conflict was read; read it again"
            )
        }
        guard case .object(var fields) = resolution.record else {
            try state.removeRecord(soup.soupId, resolution.entryId)
            try explain(resolution, "removed: the server's delete taken", soup, state)
            return
        }
        fields[SoupStore.lastModifiedDateField] = .number(JSONNumber(entry.timestamp.millisecondsSinceEpoch))
        let record = JSONValue.object(fields)
        try state.storeRecord(record, entryId: resolution.entryId, in: soup)
        if LocalFlags.isDirty(record) {
            var note = try state.dirtyNote(soup.soupId, resolution.entryId) ?? DirtyNote()
            note.conflict = resolution.remaining?.noteJSON
            try state.putDirtyNote(note, resolution.entryId, in: soup.soupId)
        }
        try explain(
            resolution, resolution.remaining == nil ? "conflict resolved" : "conflict partly resolved", soup, state)
    }

    /// The resolution's soup, as its header names it.
    package func soupNames(touchedBy entry: JournalEntry) -> [String] {
        [entry.header[SyncHeader.soup]?.string].compactMap { $0 }
    }

    private func explain(
        _ resolution: ConflictResolutionEntry, _ reason: String, _ soup: SoupCatalogEntry, _ state: SoupState
    ) throws {
        guard state.isTraced(soup) else { return }
        try state.explain(resolution.entryId, in: soup, reason)
    }
}
