public import EventJournal
import LosslessJSON
import Soups

// The conflicts MERGE_FIELDS syncs find (docs/conflicts.md, decision 0326): listed from the
// dirty set's notes, resolved by a journal entry that the soup fold applies.
extension SyncStore {
    /// The open conflicts of `soup`, by `_soupEntryId`.
    /// - Throws: `SoupError` for an unknown soup, `JournalError` for storage trouble.
    public func conflicts(soup: String) throws -> [RecordConflict] {
        Self.conflicts(soup, in: try soups.dirtyNotes(soup))
    }

    /// The open conflicts of every soup, by soup name, then `_soupEntryId`.
    /// - Throws: `JournalError` for storage trouble.
    public func conflicts() throws -> [RecordConflict] {
        try soups.soupNames().sorted().flatMap { try conflicts(soup: $0) }
    }

    /// The open conflicts of `soup`: now, then after every commit that changes them.
    ///
    /// The list is read again after each entry that names the soup (a fetched page, an upload's
    /// outcome, a resolution, a local edit) and yielded only when it differs from the last one.
    /// - Returns: an observation; its iterator throws `SoupError` for an unknown soup and
    ///   `JournalError` for storage trouble.
    public func observeConflicts(soup: String) -> JournalValueObservation<[RecordConflict]> {
        journal.observeValue(
            reevaluatingFor: { $0.header[SyncHeader.soup] == .string(soup) },
            read: { Self.conflicts(soup, in: try SoupStore.dirtyNotes(soup, in: $0)) })
    }

    /// Resolves the open conflict of the record `entryId` of `soup`.
    ///
    /// A field that takes the server's value equals the record's base, so the next sync up
    /// does not send it; one that keeps the local value (or takes a given one) is sent. When no
    /// field is left in conflict and no local change remains, the record becomes clean. For a
    /// record-level conflict (``RecordConflict/Kind/deletedLocally``,
    /// ``RecordConflict/Kind/deletedOnServer``) only ``ConflictResolution/take(_:)`` applies;
    /// see ``ConflictResolution/Side``.
    ///
    /// - Returns: what stays in conflict (fields ``ConflictResolution/fields(_:)`` did not
    ///   name), or `nil` when the conflict is resolved.
    /// - Throws: ``SyncError/Code/noConflict`` when the record has no open conflict or a named
    ///   field is not in it; ``SyncError/Code/malformedOptions`` for per-field choices on a
    ///   record-level conflict; `SoupError` for an unknown soup or a record changed meanwhile
    ///   (read the conflict again); `JournalError` for storage trouble.
    @discardableResult
    public func resolveConflict(soup: String, entryId: Int64, _ resolution: ConflictResolution) throws
        -> RecordConflict?
    {
        guard let (record, note) = try soups.recordAndDirtyNote(soup, entryId: entryId),
            let conflict = RecordConflict.open(note, record: record, soup: soup, entryId: entryId),
            case .object(var fields) = record
        else {
            throw SyncError(.noConflict, "The record \(entryId) of soup '\(soup)' has no open conflict.")
        }
        let base = note?.base?.object
        var remaining: RecordConflict?
        var resolved: JSONValue
        switch (conflict.kind, resolution) {
        case (.fields, _):
            remaining = try Self.applyFieldChoices(resolution, of: conflict, to: &fields)
            if remaining == nil, let base, fields[LocalFlags.locallyCreated] != true,
                fields[LocalFlags.locallyDeleted] != true, FieldMerge.changedFields(of: fields, from: base).isEmpty
            {
                Self.markClean(&fields)
            }
            resolved = .object(fields)
        case (.deletedLocally, .take(.local)):
            resolved = .object(fields)
        case (.deletedLocally, .take(.server)):
            var restored = base ?? fields
            for (name, value) in fields where FieldMerge.isBookkeeping(name) { restored[name] = value }
            Self.markClean(&restored)
            resolved = .object(restored)
        case (.deletedOnServer, .take(.local)):
            // Created again, as OVERWRITE does with a record the server no longer has.
            fields[LocalFlags.locallyCreated] = true
            fields[LocalFlags.locallyUpdated] = false
            resolved = .object(fields)
        case (.deletedOnServer, .take(.server)):
            resolved = .null
        case (.deletedLocally, .fields), (.deletedOnServer, .fields):
            throw SyncError(
                .malformedOptions,
                "The record \(entryId) of soup '\(soup)' is in a record-level conflict (\(conflict.kind.rawValue)): take local or server."
            )
        }
        let entry = ConflictResolutionEntry(
            soupName: soup, entryId: entryId, version: record[SoupStore.lastModifiedDateField], record: resolved,
            remaining: remaining)
        try journal.append(entry.journalDraft)
        return remaining
    }

    /// Applies per-field choices to a field conflict; returns what stays in conflict.
    private static func applyFieldChoices(
        _ resolution: ConflictResolution, of conflict: RecordConflict, to fields: inout [String: JSONValue]
    ) throws(SyncError) -> RecordConflict? {
        if case .fields(let choices) = resolution,
            let unknown = choices.keys.sorted().first(where: { path in !conflict.fields.contains { $0.path == path } })
        {
            throw SyncError(.noConflict, "The field '\(unknown)' of record \(conflict.entryId) is not in conflict.")
        }
        var open: [RecordConflict.Field] = []
        for field in conflict.fields {
            let choice: ConflictResolution.FieldChoice? =
                switch resolution {
                case .take(.local): .local
                case .take(.server): .server
                case .fields(let choices): choices[field.path]
                }
            switch choice {
            case nil: open.append(field)
            case .local: break
            case .server: fields[field.path] = field.server
            case .value(let value): fields[field.path] = value
            }
        }
        guard !open.isEmpty else { return nil }
        var remaining = conflict
        remaining.fields = open
        return remaining
    }

    /// Mobile Sync's clean flags.
    private static func markClean(_ fields: inout [String: JSONValue]) {
        fields[LocalFlags.local] = false
        fields[LocalFlags.locallyCreated] = false
        fields[LocalFlags.locallyUpdated] = false
        fields[LocalFlags.locallyDeleted] = false
        fields[LocalFlags.lastError] = .null
    }

    private static func conflicts(
        _ soup: String, in notes: [(entryId: Int64, record: JSONValue, note: DirtyNote)]
    ) -> [RecordConflict] {
        notes.compactMap { entryId, record, note in
            RecordConflict.open(note, record: record, soup: soup, entryId: entryId)
        }
    }
}
