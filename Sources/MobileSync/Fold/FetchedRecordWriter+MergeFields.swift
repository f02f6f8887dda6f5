import Determinism
import EventJournal
import LosslessJSON
import Soups

extension FetchedRecordWriter {
    /// Merges a fetched server copy into the dirty local record `match` under MERGE_FIELDS
    /// (``FieldMerge``), and moves the record's base to the server copy.
    ///
    /// A field both sides changed to different values keeps the local value and joins the
    /// record's conflict (``RecordConflict``); a field of an earlier conflict stays in it until
    /// both sides agree. A record deleted locally that the server changed is a record-level
    /// conflict and stays deleted until it is resolved.
    ///
    /// - Returns: `false` when no local change and no conflict remains: the caller stores the
    ///   server copy as a clean record, as for any fetched record; `true` when the record stays
    ///   dirty, written here.
    func mergeFields(
        _ server: JSONValue, into match: Int64, syncId: Int64, entry: JournalEntry, idValue: JSONValue?
    ) throws -> Bool {
        guard case .object(let serverFields) = server, case .object(var local)? = try state.record(soup.soupId, match)
        else { return false }
        // A record created here is no local edit of a server copy, and has no base to merge
        // from: a fetched copy of it (its create's outcome was lost) leaves it to the sync up,
        // which sends it again, as LEAVE_IF_CHANGED does.
        if local[LocalFlags.locallyCreated] == .bool(true) {
            try explain(match, .keptLocalChange(syncId: syncId), idValue: idValue)
            return true
        }
        let note = try state.dirtyNote(soup.soupId, match) ?? DirtyNote()
        let base = note.base?.object
        let previous = note.conflict.flatMap { RecordConflict(note: $0, soup: soup.name, entryId: match) }
        var conflict = RecordConflict(
            soup: soup.name, entryId: match, id: idValue?.string, kind: .fields, fields: [], syncId: syncId,
            entrySequence: entry.sequence)
        let newBase: [String: JSONValue]
        if local[LocalFlags.locallyDeleted] == .bool(true) {
            newBase = (base ?? [:]).merging(serverFields) { $1 }
            let changed = FieldMerge.serverChangedFields(serverFields, from: base)
            // The server's audit fields, as a merge takes them: the sync up's check compares the
            // record's LastModifiedDate with the server's, and the app's own upload moved that.
            let audited = local.merging(serverFields.filter { FieldMerge.isServerMaintained($0.key) }) { $1 }
            let rewritten = audited != local
            if rewritten {
                local = audited
                local[SoupStore.lastModifiedDateField] = .number(JSONNumber(entry.timestamp.millisecondsSinceEpoch))
                try state.storeRecord(.object(local), entryId: match, in: soup)
            }
            guard !changed.isEmpty || previous != nil else {
                try state.putDirtyNote(DirtyNote(base: .object(newBase), conflict: nil), match, in: soup.soupId)
                try explain(
                    match, rewritten ? .mergedFields(syncId: syncId, conflicts: 0) : .keptLocalChange(syncId: syncId),
                    idValue: idValue)
                return true
            }
            conflict.kind = .deletedLocally
            // A record deleted while in conflict, with nothing new from the server, keeps what
            // the conflict listed.
            conflict.fields =
                changed.isEmpty
                ? previous?.fields ?? []
                : changed.map { name in
                    RecordConflict.Field(path: name, base: base?[name], local: local[name], server: serverFields[name])
                }
        } else {
            let merge = FieldMerge(base: base, local: local, server: serverFields)
            newBase = merge.base
            var fields = Dictionary(
                (previous?.carried(local: merge.merged, server: serverFields).fields ?? []).map { ($0.path, $0) }
            ) { $1 }
            for field in merge.conflicts { fields[field.path] = field }
            guard !fields.isEmpty || merge.hasLocalChanges else { return false }
            conflict.fields = fields.values.sorted { $0.path < $1.path }
            if conflict.fields.isEmpty, let previous, previous.kind != .fields { conflict = previous }
            local = merge.merged
            local[SoupStore.lastModifiedDateField] = .number(JSONNumber(entry.timestamp.millisecondsSinceEpoch))
            try state.storeRecord(.object(local), entryId: match, in: soup)
        }
        let kept = conflict.fields.isEmpty && conflict.kind == .fields ? nil : conflict
        try state.putDirtyNote(DirtyNote(base: .object(newBase), conflict: kept?.noteJSON), match, in: soup.soupId)
        try explain(match, .mergedFields(syncId: syncId, conflicts: kept?.fields.count ?? 0), idValue: idValue)
        return true
    }
}
