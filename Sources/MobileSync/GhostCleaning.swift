public import EventJournal
import SyncCore

/// One run of `cleanResyncGhosts`, as one journal entry: the remote ids the target returned and
/// the ghosts found locally.
///
/// The soup projection deletes the ghosts when it folds the entry, re-checking each one (still
/// clean, still this sync's), and the sync-state projection records the cleaning, so the
/// deletions and their reason are one append. docs/mobilesync.md describes the format.
public struct GhostCleaning: Hashable, Sendable {
    /// The sync that was cleaned.
    public var syncId: Int64
    /// The sync's soup.
    public var soupName: String
    /// The target's id field.
    public var idFieldName: String
    /// Every id the target returned.
    public var remoteIds: [String]
    /// The id-field values of the local records to delete, sorted.
    public var ghostIds: [String]

    /// Creates a cleaning.
    public init(syncId: Int64, soupName: String, idFieldName: String, remoteIds: [String], ghostIds: [String]) {
        self.syncId = syncId
        self.soupName = soupName
        self.idFieldName = idFieldName
        self.remoteIds = remoteIds
        self.ghostIds = ghostIds
    }

    /// The entry to append: kind `sync.ghosts.cleaned`, header `syncId`, `soup`, `idFieldName`,
    /// payload `{"remoteIds": [...], "ghostIds": [...]}`.
    public var journalDraft: JournalEntry.Draft {
        JournalEntry.Draft(
            kind: .syncGhostsCleaned,
            header: [
                SyncHeader.syncId: .integer(syncId), SyncHeader.soup: .string(soupName),
                SyncHeader.idFieldName: .string(idFieldName),
            ],
            json: [
                "remoteIds": .array(remoteIds.sorted().map(JSONValue.string)),
                "ghostIds": .array(ghostIds.map(JSONValue.string)),
            ])
    }

    /// What the sync-state projection keeps of a cleaning entry: how many remote ids, which
    /// ghosts, and the entry's sequence.
    static func summary(of entry: JournalEntry) throws -> JSONValue {
        let payload = try entry.jsonPayload()
        return [
            "remoteIdCount": .number(JSONNumber(Int64(payload["remoteIds"]?.array?.count ?? 0))),
            "ghostIds": payload["ghostIds"] ?? .array([]),
            "sequence": .number(JSONNumber(Int64(entry.sequence))),
        ]
    }
}
