public import EventJournal
import SyncCore

/// One run of `cleanResyncGhosts`, as one journal entry: the remote ids the target returned, the
/// sync's ghosts found locally, and the soup's clean records that no sync down owns and that the
/// server no longer has (decision 0319).
///
/// The soup projection deletes both kinds when it folds the entry, re-checking each record (a
/// ghost still clean and still this sync's; an unowned one still clean and still owned by no
/// sync), and the sync-state projection records the cleaning, so the deletions and their reason
/// are one append. docs/mobilesync.md describes the format.
public struct GhostCleaning: Hashable, Sendable {
    /// The sync that was cleaned.
    public var syncId: Int64
    /// The sync's soup.
    public var soupName: String
    /// The target's id field.
    public var idFieldName: String
    /// Every id the target returned.
    public var remoteIds: [String]
    /// The id-field values of the sync's local records to delete, sorted.
    public var ghostIds: [String]
    /// The id-field values of the soup's clean records that no sync down owns (no `__sync_id__`)
    /// and that the server no longer has, sorted: records created here, uploaded, then deleted
    /// on the server before any sync down fetched them.
    public var unownedGhostIds: [String]

    /// Creates a cleaning.
    public init(
        syncId: Int64, soupName: String, idFieldName: String, remoteIds: [String], ghostIds: [String],
        unownedGhostIds: [String] = []
    ) {
        self.syncId = syncId
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.remoteIds = remoteIds
        self.ghostIds = ghostIds
        self.unownedGhostIds = unownedGhostIds
    }

    /// The entry to append: kind `sync.ghosts.cleaned`, header `syncId`, `soup`, `idFieldName`,
    /// payload `{"remoteIds": [...], "ghostIds": [...]}` plus `"unownedGhostIds": [...]` when
    /// there are any (so cleanings that find none keep the earlier format).
    public var journalDraft: JournalEntry.Draft {
        var payload: [String: JSONValue] = [
            "remoteIds": .array(remoteIds.sorted().map(JSONValue.string)),
            "ghostIds": .array(ghostIds.map(JSONValue.string)),
        ]
        if !unownedGhostIds.isEmpty { payload["unownedGhostIds"] = .array(unownedGhostIds.map(JSONValue.string)) }
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
    static func summary(of entry: JournalEntry) throws -> JSONValue {
        let payload = try entry.jsonPayload()
        var summary: [String: JSONValue] = [
            "remoteIdCount": .number(JSONNumber(Int64(payload["remoteIds"]?.array?.count ?? 0))),
            "ghostIds": payload["ghostIds"] ?? .array([]),
            "sequence": .number(JSONNumber(Int64(entry.sequence))),
        ]
        if let unowned = payload["unownedGhostIds"] { summary["unownedGhostIds"] = unowned }
        return .object(summary)
    }
}
