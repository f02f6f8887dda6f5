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
        unownedGhostIds: [String] = [], related: [Related] = []
    ) {
        self.syncId = syncId
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.remoteIds = remoteIds
        self.ghostIds = ghostIds
        self.unownedGhostIds = unownedGhostIds
        self.related = related
    }

    /// The entry to append: kind `sync.ghosts.cleaned`, header `syncId`, `soup`, `idFieldName`,
    /// payload `{"remoteIds": [...], "ghostIds": [...]}` plus `"unownedGhostIds": [...]` when
    /// there are any (so cleanings that find none keep the earlier format), and `"related":
    /// [{"soup", "idFieldName", "parentIdFieldName"?, "remoteIds", "ghostIds",
    /// "unownedGhostIds"?}]` when other soups are cleaned.
    package var journalDraft: JournalEntry.Draft {
        var payload: [String: JSONValue] = [
            "remoteIds": .array(remoteIds.sorted().map(JSONValue.string)),
            "ghostIds": .array(ghostIds.map(JSONValue.string)),
        ]
        if !unownedGhostIds.isEmpty { payload["unownedGhostIds"] = .array(unownedGhostIds.map(JSONValue.string)) }
        if !related.isEmpty {
            payload["related"] = .array(
                related.map { other in
                    var members: [String: JSONValue] = [
                        "soup": .string(other.soupName), "idFieldName": .string(other.idFieldName),
                        "remoteIds": .array(other.remoteIds.sorted().map(JSONValue.string)),
                        "ghostIds": .array(other.ghostIds.map(JSONValue.string)),
                    ]
                    if let field = other.parentIdFieldName { members["parentIdFieldName"] = .string(field) }
                    if !other.unownedGhostIds.isEmpty {
                        members["unownedGhostIds"] = .array(other.unownedGhostIds.map(JSONValue.string))
                    }
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

    /// What the sync-state projection keeps of a cleaning entry: how many remote ids, which
    /// ghosts (and unowned ghosts, when there were any), and the entry's sequence.
    ///
    /// A cleaning of several soups adds `related`: `[{"soup", "remoteIdCount", "ghostIds"}]`
    /// (with `unownedGhostIds` when there were any).
    static func summary(of entry: JournalEntry) throws -> JSONValue {
        let payload = try entry.jsonPayload()
        var summary: [String: JSONValue] = [
            "remoteIdCount": .number(JSONNumber(Int64(payload["remoteIds"]?.array?.count ?? 0))),
            "ghostIds": payload["ghostIds"] ?? .array([]),
            "sequence": .number(JSONNumber(Int64(entry.sequence))),
        ]
        if let unowned = payload["unownedGhostIds"] { summary["unownedGhostIds"] = unowned }
        if let related = payload["related"]?.array {
            summary["related"] = .array(
                related.map { other in
                    var members: [String: JSONValue] = [
                        "soup": other["soup"] ?? .null,
                        "remoteIdCount": .number(JSONNumber(Int64(other["remoteIds"]?.array?.count ?? 0))),
                        "ghostIds": other["ghostIds"] ?? .array([]),
                    ]
                    if let unowned = other["unownedGhostIds"] { members["unownedGhostIds"] = unowned }
                    return .object(members)
                })
        }
        return .object(summary)
    }

    /// How many records the cleaning deletes, in every soup.
    package var ghostCount: Int {
        ghostIds.count + unownedGhostIds.count
            + related.reduce(0) { $0 + $1.ghostIds.count + $1.unownedGhostIds.count }
    }
}
