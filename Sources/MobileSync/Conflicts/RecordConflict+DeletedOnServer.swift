import LosslessJSON
import Soups

extension RecordConflict {
    /// Records a record-level conflict on a dirty record the server no longer has, under
    /// MERGE_FIELDS: changed locally, deleted on the server. The fields listed are those changed
    /// locally since the base; the base stays, so a resolution can still tell them apart.
    ///
    /// Both folds that learn of a server delete call it: an upload's outcome answered "not found"
    /// (``UploadRule``) and a ghost cleaning that no longer found the record (``GhostCleaningRule``).
    static func noteDeletedOnServer(
        _ fields: [String: JSONValue], entryId: Int64, idField: String, _ soup: SoupCatalogEntry, syncId: Int64,
        entrySequence: UInt64, _ state: SoupState
    ) throws {
        let base = try state.dirtyNote(soup.soupId, entryId)?.base?.object
        let changed = FieldMerge.changedFields(of: fields, from: base ?? [:]).sorted()
        let conflict = RecordConflict(
            soup: soup.name, entryId: entryId, id: fields[idField]?.string, kind: .deletedOnServer,
            fields: changed.map { Field(path: $0, base: base?[$0], local: fields[$0], server: nil) },
            syncId: syncId, entrySequence: entrySequence)
        try state.putDirtyNote(
            DirtyNote(base: base.map(JSONValue.object), conflict: conflict.noteJSON), entryId, in: soup.soupId)
    }
}
