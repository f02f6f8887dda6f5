package import EventJournal
import LosslessJSON
import Soups

/// One run of `cleanResyncGhosts`, as one journal entry: the remote ids the target returned, the
/// sync's ghosts found locally, and the soup's clean records that no sync down owns and that the
/// server no longer has (decision 0319) — for the sync's soup and, for a target that writes
/// several soups, for each of the others (decision 0322).
///
/// The soup projection deletes both kinds when it folds the entry, re-checking each record (a
/// ghost still clean and still this sync's; an unowned one still clean and still owned by no
/// sync; a parent not while a child of it is dirty), and the sync-state projection records the
/// cleaning, so the deletions and their reason are one append. docs/mobilesync.md describes the
/// format.
package struct GhostCleaning: Hashable, Sendable {
    /// The sync that was cleaned.
    package var syncId: Int64
    /// The sync's soup.
    package var soupName: String
    /// The target's id field.
    package var idFieldName: String
    /// Every id the target returned.
    package var remoteIds: [String]
    /// The id-field values of the sync's local records to delete, sorted.
    package var ghostIds: [String]
    /// The id-field values of the soup's clean records that no sync down owns (no `__sync_id__`)
    /// and that the server no longer has, sorted: records created here, uploaded, then deleted
    /// on the server before any sync down fetched them.
    package var unownedGhostIds: [String]
    /// The id-field values of the sync's dirty records, changed here, that the server no longer
    /// has, sorted: under MERGE_FIELDS each becomes a `deletedOnServer` conflict, never a
    /// deletion (docs/conflicts.md). Empty under the other merge modes, where a dirty record is
    /// never a ghost.
    package var deletedOnServerIds: [String]
    /// The other soups the target writes (children, the other object types of a briefcase),
    /// cleaned in the same entry.
    package var related: [Related]

    /// The cleaning of one more soup of the same sync.
    package struct Related: Hashable, Sendable {
        /// The soup.
        package var soupName: String
        /// Its records' id field.
        package var idFieldName: String
        /// For children: the child field holding the parent's id. The fold then keeps every
        /// parent (in the cleaning's main soup) that has a dirty child.
        package var parentIdFieldName: String?
        /// Every id the target returned for this soup.
        package var remoteIds: [String]
        /// The id-field values of this soup's local records of the sync to delete, sorted.
        package var ghostIds: [String]
        /// The id-field values of this soup's unowned clean records the server no longer has.
        package var unownedGhostIds: [String]

        /// Creates the cleaning of one more soup.
        package init(
            soupName: String, idFieldName: String, parentIdFieldName: String? = nil, remoteIds: [String],
            ghostIds: [String], unownedGhostIds: [String] = []
        ) {
            self.soupName = soupName
            self.idFieldName = idFieldName
            self.parentIdFieldName = parentIdFieldName
            self.remoteIds = remoteIds
            self.ghostIds = ghostIds
            self.unownedGhostIds = unownedGhostIds
        }
    }

    /// Creates a cleaning.
    package init(
        syncId: Int64, soupName: String, idFieldName: String, remoteIds: [String], ghostIds: [String],
        unownedGhostIds: [String] = [], deletedOnServerIds: [String] = [], related: [Related] = []
    ) {
        self.syncId = syncId
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.remoteIds = remoteIds
        self.ghostIds = ghostIds
        self.unownedGhostIds = unownedGhostIds
        self.deletedOnServerIds = deletedOnServerIds
        self.related = related
    }

    /// The entry to append: kind `sync.ghosts.cleaned`, header `syncId`, `soup`, `idFieldName`,
    /// payload `{remoteIds: [...], ghostIds: [...]}` plus `unownedGhostIds: [...]` and
    /// `deletedOnServerIds: [...]` when there are any (so cleanings that find none keep the
    /// earlier format), and `related: [{soup,
    /// idFieldName, parentIdFieldName?, remoteIds, ghostIds, unownedGhostIds?}]` when other soups
    /// are cleaned (``SyncPayload``).
    package var journalDraft: JournalEntry.Draft {
        var payload = Self.lists(remoteIds: remoteIds, ghostIds: ghostIds, unownedGhostIds: unownedGhostIds)
        if !deletedOnServerIds.isEmpty {
            payload[SyncPayload.deletedOnServerIds] = .array(deletedOnServerIds.map(JSONValue.string))
        }
        if !related.isEmpty {
            payload[SyncPayload.related] = .array(
                related.map { other in
                    var members = Self.lists(
                        remoteIds: other.remoteIds, ghostIds: other.ghostIds, unownedGhostIds: other.unownedGhostIds)
                    members[SyncHeader.soup] = .string(other.soupName)
                    members[SyncHeader.idFieldName] = .string(other.idFieldName)
                    if let field = other.parentIdFieldName { members[SyncPayload.parentIdFieldName] = .string(field) }
                    return .object(members)
                })
        }
        return JournalEntry.Draft(
            kind: .syncGhostsCleaned,
            header: [
                SyncHeader.syncId: .integer(syncId), SyncHeader.soup: .string(soupName),
                SyncHeader.idFieldName: .string(idFieldName),
            ],
            json: .object(payload))
    }

    /// The id lists of one soup's cleaning, as the payload holds them.
    private static func lists(remoteIds: [String], ghostIds: [String], unownedGhostIds: [String]) -> [String: JSONValue]
    {
        var members: [String: JSONValue] = [
            SyncPayload.remoteIds: .array(remoteIds.sorted().map(JSONValue.string)),
            SyncPayload.ghostIds: .array(ghostIds.map(JSONValue.string)),
        ]
        if !unownedGhostIds.isEmpty {
            members[SyncPayload.unownedGhostIds] = .array(unownedGhostIds.map(JSONValue.string))
        }
        return members
    }

    /// Reads a cleaning back from its entry: the one reader of `sync.ghosts.cleaned`.
    ///
    /// - Throws: ``SyncError/Code/malformedEntry`` when the entry is of another kind, a header
    ///   field is missing, or the payload's lists are not lists of strings.
    package init(journalEntry entry: JournalEntry) throws(SyncError) {
        guard entry.kind == .syncGhostsCleaned else {
            throw SyncError(
                .malformedEntry, "Entry \(entry.sequence) is \(entry.kind), not \(JournalEntry.Kind.syncGhostsCleaned)."
            )
        }
        let header = EntryHeader(entry)
        let payload: JSONValue
        do {
            payload = try entry.jsonPayload()
        } catch {
            throw SyncError(.malformedEntry, "Entry \(entry.sequence) (\(entry.kind)): the payload is not JSON.")
        }
        let lists = try Self.readLists(payload, entry)
        var related: [Related] = []
        for other in payload[SyncPayload.related]?.array ?? [] {
            guard let soupName = other[SyncHeader.soup]?.string, let idFieldName = other[SyncHeader.idFieldName]?.string
            else {
                throw SyncError(
                    .malformedEntry, "Entry \(entry.sequence): a related ghost cleaning lacks soup or idFieldName.")
            }
            let otherLists = try Self.readLists(other, entry)
            related.append(
                Related(
                    soupName: soupName, idFieldName: idFieldName,
                    parentIdFieldName: other[SyncPayload.parentIdFieldName]?.string, remoteIds: otherLists.remote,
                    ghostIds: otherLists.ghosts, unownedGhostIds: otherLists.unowned))
        }
        self.init(
            syncId: try header.integer(SyncHeader.syncId), soupName: try header.string(SyncHeader.soup),
            idFieldName: try header.string(SyncHeader.idFieldName), remoteIds: lists.remote, ghostIds: lists.ghosts,
            unownedGhostIds: lists.unowned, deletedOnServerIds: lists.deletedOnServer, related: related)
    }

    /// The remote, ghost, unowned ghost and deleted-on-server ids of one soup's cleaning in
    /// `payload`; a missing list is empty.
    private static func readLists(_ payload: JSONValue, _ entry: JournalEntry) throws(SyncError) -> (
        remote: [String], ghosts: [String], unowned: [String], deletedOnServer: [String]
    ) {
        func strings(_ key: String) throws(SyncError) -> [String] {
            let values = payload[key]?.array ?? []
            let strings = values.compactMap(\.string)
            guard strings.count == values.count else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): \"\(key)\" must list strings.")
            }
            return strings
        }
        return (
            try strings(SyncPayload.remoteIds), try strings(SyncPayload.ghostIds),
            try strings(SyncPayload.unownedGhostIds), try strings(SyncPayload.deletedOnServerIds)
        )
    }

    /// What the sync-state projection keeps of a cleaning entry: how many remote ids, which
    /// ghosts (and unowned ghosts, when there were any), and the entry's sequence.
    ///
    /// A cleaning of several soups adds `related`: `[{soup, remoteIdCount, ghostIds}]`
    /// (with `unownedGhostIds` when there were any).
    static func summary(of entry: JournalEntry) throws -> JSONValue {
        let cleaning = try GhostCleaning(journalEntry: entry)
        var summary = Self.summary(
            remoteIds: cleaning.remoteIds, ghostIds: cleaning.ghostIds, unownedGhostIds: cleaning.unownedGhostIds)
        summary[SyncPayload.sequence] = .number(JSONNumber(Int64(entry.sequence)))
        if !cleaning.deletedOnServerIds.isEmpty {
            summary[SyncPayload.deletedOnServerIds] = .array(cleaning.deletedOnServerIds.map(JSONValue.string))
        }
        if !cleaning.related.isEmpty {
            summary[SyncPayload.related] = .array(
                cleaning.related.map { other in
                    var members = Self.summary(
                        remoteIds: other.remoteIds, ghostIds: other.ghostIds, unownedGhostIds: other.unownedGhostIds)
                    members[SyncHeader.soup] = .string(other.soupName)
                    return .object(members)
                })
        }
        return .object(summary)
    }

    /// One soup's part of a cleaning's summary.
    private static func summary(remoteIds: [String], ghostIds: [String], unownedGhostIds: [String]) -> [String:
        JSONValue]
    {
        var members: [String: JSONValue] = [
            SyncPayload.remoteIdCount: .number(JSONNumber(Int64(remoteIds.count))),
            SyncPayload.ghostIds: .array(ghostIds.map(JSONValue.string)),
        ]
        if !unownedGhostIds.isEmpty {
            members[SyncPayload.unownedGhostIds] = .array(unownedGhostIds.map(JSONValue.string))
        }
        return members
    }

    /// How many records the cleaning deletes, in every soup.
    package var ghostCount: Int {
        ghostIds.count + unownedGhostIds.count
            + related.reduce(0) { $0 + $1.ghostIds.count + $1.unownedGhostIds.count }
    }
}
