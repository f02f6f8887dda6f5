import EventJournal
import LosslessJSON
import Soups

extension SyncStateProjection {
    /// Folds the end of a SmartStore import: sync ids continue after every id SmartStore handed
    /// out, a deleted sync's included, since records may still name it in `__sync_id__`.
    func applyImport(_ entry: JournalEntry, _ databases: SyncStateDatabases) throws {
        let payload: JSONValue
        do {
            payload = try entry.jsonPayload()
        } catch {
            throw SyncError(
                .malformedEntry, "Entry \(entry.sequence) (\(entry.kind)): payload is not JSON.", cause: error)
        }
        guard let next = payload[SoupImportField.nextSyncId]?.number?.int64Value else {
            throw SyncError(.malformedEntry, "Entry \(entry.sequence) (\(entry.kind)) has no nextSyncId.")
        }
        try databases.putNextSyncId(max(try databases.nextSyncId(), next))
    }
}
