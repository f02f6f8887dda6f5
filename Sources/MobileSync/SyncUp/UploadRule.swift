import Determinism
package import EventJournal
import LosslessJSON
package import Soups

/// The fold of the sync-up entries into the soups: the intent and the outcome of one upload
/// request, read by their one reader (``SyncUpUpload/JournaledHeader``,
/// ``SyncUpUpload/journaledOutcomes(of:)``, ``SyncUpUpload/journaledCreates(of:)``).
///
/// MobileSync appends `sync.up.intent` before each request and `sync.up.outcome` after it. The
/// outcome's fold makes a server id replace the local id in the same entry that cleans the flags;
/// the intent's notes which creates are in flight as upserts (``UploadingCreate``), so that a
/// sync down fetching one of them before its outcome is journaled does not store it twice.
package struct UploadRule: SoupFoldRule {
    /// `sync.up.intent` and `sync.up.outcome`.
    package var kinds: Set<JournalEntry.Kind> {
        [.syncUpIntent, .syncUpOutcome]
    }

    /// Creates the rule.
    package init() {}

    /// Folds an upload intent or outcome into its soup.
    /// - Throws: `SoupError` for a malformed entry or an unknown soup; the append is refused.
    package func apply(
        _ entry: JournalEntry, decoded: (any Sendable)?, to state: SoupState, in context: ProjectionContext
    ) throws {
        do {
            if entry.kind == .syncUpIntent {
                try applyIntent(entry, to: state)
            } else {
                try applyOutcome(entry, to: state)
            }
        } catch let error as SyncError {
            throw SoupError(.storage, error.message, cause: error)
        }
    }

    /// The upload's soup and, for a parent/children upload, the children's soup.
    package func soupNames(touchedBy entry: JournalEntry) -> [String] {
        [entry.header[SyncHeader.soup]?.string, entry.header[SyncHeader.childrenSoup]?.string].compactMap { $0 }
    }

    /// Notes the creates an intent sends as upserts by an external id. Nothing visible changes.
    ///
    /// In a parent/children intent an item with a `soup` member is a child: its soup is that
    /// one and its external id field the header's `childExternalIdFieldName`.
    private func applyIntent(_ entry: JournalEntry, to state: SoupState) throws {
        let header = try SyncUpUpload.JournaledHeader(entry)
        guard header.externalIdFieldName != nil || header.childExternalIdFieldName != nil else { return }
        let soup = try state.requireSoup(header.soupName)
        for create in try SyncUpUpload.journaledCreates(of: entry) {
            guard let field = create.soup == nil ? header.externalIdFieldName : header.childExternalIdFieldName
            else { continue }
            let itemSoup = try create.soup.map(state.requireSoup) ?? soup
            try UploadingCreate(entryId: create.entryId, field: field, value: create.externalId).put(
                in: itemSoup, state)
        }
    }

    /// Folds an upload outcome into its soup.
    ///
    /// `version` is the record's `_soupLastModifiedDate` when the upload was decided.
    /// `serverFields` marks a created record that adopted a server record without writing to it
    /// (decision 0323): they replace its values.
    ///
    /// A record changed locally since then (its `_soupLastModifiedDate` differs) keeps its
    /// flags, so the newer change is sent by the next sync up instead of being cleaned away;
    /// a create still records the server id and becomes an update, so it is never created
    /// twice. This goes beyond Mobile Sync, which cleans such a record and loses the edit.
    ///
    /// In a parent/children outcome (header `childrenSoup`) an item with a `soup` member is a
    /// child, whose id field is the header's `childIdFieldName`; the parent's outcome then also
    /// applies to its local children (``applyParentOutcome(_:to:header:at:_:)``).
    private func applyOutcome(_ entry: JournalEntry, to state: SoupState) throws {
        let header = try SyncUpUpload.JournaledHeader(entry)
        guard let parentIdField = header.idFieldName else {
            throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) lacks its idFieldName header")
        }
        let parentSoup = try state.requireSoup(header.soupName)
        let children = try header.children.map { try ChildrenOfUpload($0, state) }
        let outcomes = try SyncUpUpload.journaledOutcomes(of: entry)
        var parentOutcomes: [ParentOutcome] = []
        for outcome in outcomes {
            let isChild = outcome.soup != nil
            guard !isChild || children != nil else {
                throw SoupError(.storage, "entry \(entry.sequence): an outcome names a soup but no childrenSoup")
            }
            let soup = isChild ? children?.soup ?? parentSoup : parentSoup
            let idField = isChild ? children?.idField ?? parentIdField : parentIdField
            try UploadingCreate.remove(outcome.entryId, in: soup, state)
            // A record removed locally since the upload began has nothing left to update.
            guard let record = try state.record(soup.soupId, outcome.entryId), case .object(var fields) = record
            else { continue }
            if children != nil, !isChild {
                parentOutcomes.append(
                    ParentOutcome(
                        kind: outcome.kind, id: fields[parentIdField], serverId: outcome.serverId.map(JSONValue.string))
                )
            }
            let unchanged = outcome.version == fields[SoupStore.lastModifiedDateField]
            let stores = try apply(
                outcome, to: &fields, idField: idField, soup, header: header, unchanged: unchanged, state)
            if outcome.kind == .notFound, header.mergeMode == .mergeFields, LocalFlags.isDirty(record) {
                try RecordConflict.noteDeletedOnServer(
                    fields, entryId: outcome.entryId, idField: idField, soup, syncId: header.syncId,
                    entrySequence: entry.sequence, state)
            }
            if stores {
                fields[SoupStore.lastModifiedDateField] = .number(JSONNumber(entry.timestamp.millisecondsSinceEpoch))
                try state.storeRecord(.object(fields), entryId: outcome.entryId, in: soup)
            }
            if state.isTraced(soup), let decision = Self.decision(outcome, header, unchanged: unchanged) {
                try state.explain(outcome.entryId, in: soup, decision.description, serverId: outcome.serverId)
            }
        }
        if let children {
            for outcome in parentOutcomes {
                try applyParentOutcome(outcome, to: children, header: header, at: entry.timestamp, state)
            }
        }
    }

    /// Applies one outcome to its record's fields; `false` when the record is not to be stored
    /// again (removed, or left as it is).
    /// - Parameter unchanged: whether the record is as it was when the upload was decided.
    private func apply(
        _ outcome: SyncUpUpload.JournaledOutcome, to fields: inout [String: JSONValue], idField: String,
        _ soup: SoupCatalogEntry, header: SyncUpUpload.JournaledHeader, unchanged: Bool, _ state: SoupState
    ) throws -> Bool {
        let mergeMode = header.mergeMode
        switch outcome.kind {
        case .created:
            // An adopted record (decision 0323) wrote nothing: unless it changed meanwhile,
            // the server's values replace its own stale ones.
            let created = CreatedRecord(
                entryId: outcome.entryId, serverId: .string(outcome.serverId ?? ""), idField: idField,
                syncId: header.syncId, adoptedValues: unchanged ? outcome.serverFields : nil)
            try applyCreated(created, to: &fields, soup, state)
            Self.markCreatedOnTheServer(&fields, unchanged: unchanged)
        case .updated:
            guard unchanged else { return false }
            Self.clean(&fields)
        case .deleted:
            try state.removeRecord(soup.soupId, outcome.entryId)
            return false
        case .notFound:
            // OVERWRITE sends the record again as a create; LEAVE_IF_CHANGED leaves it;
            // MERGE_FIELDS leaves it with a conflict (`RecordConflict.noteDeletedOnServer`).
            guard mergeMode == .overwrite else { return false }
            fields[LocalFlags.local] = true
            fields[LocalFlags.locallyCreated] = true
        case .failed:
            fields[LocalFlags.lastError] = outcome.error ?? .null
        case .skipped:
            return false
        }
        return true
    }

    /// What an outcome did to its record, for a traced fold; `nil` for a skipped record.
    private static func decision(
        _ outcome: SyncUpUpload.JournaledOutcome, _ header: SyncUpUpload.JournaledHeader, unchanged: Bool
    ) -> FoldDecision? {
        let syncId = header.syncId
        switch outcome.kind {
        case .created:
            return .created(serverId: outcome.serverId ?? "", adopted: outcome.serverFields != nil, syncId: syncId)
        case .updated: return unchanged ? .updated(syncId: syncId) : .uploadedThenChanged(syncId: syncId)
        case .deleted: return .deleted(syncId: syncId)
        case .notFound: return .notFound(syncId: syncId, createdAgain: header.mergeMode == .overwrite)
        case .failed: return .refused(error: outcome.error.map { $0.string ?? $0.serializedString } ?? "")
        case .skipped: return nil
        }
    }

    /// A created record's flags: clean when it did not change while the request was out; an
    /// update still to send when it was edited meanwhile; a delete still to send when it was
    /// deleted meanwhile.
    private static func markCreatedOnTheServer(_ fields: inout [String: JSONValue], unchanged: Bool) {
        if unchanged {
            clean(&fields)
        } else if fields[LocalFlags.local] != true {
            // A sync down stored the server copy over it meanwhile: nothing is left to send.
        } else if fields[LocalFlags.locallyDeleted] != true {
            fields[LocalFlags.locallyCreated] = false
            fields[LocalFlags.locallyUpdated] = true
        } else {
            fields[LocalFlags.locallyCreated] = false
        }
    }

    /// A record a `created` outcome names: its server id, and the server's values when it
    /// adopted that record without writing to it.
    private struct CreatedRecord {
        var entryId: Int64
        var serverId: JSONValue
        var idField: String
        /// The sync that created it.
        var syncId: Int64
        var adoptedValues: [String: JSONValue]?
    }

    /// Gives a created record its server id and removes the clean copies a sync down stored of
    /// it before its outcome named that id: they are the same server record, whose
    /// `__sync_id__` the record takes over so that ghost cleaning still sees it. An adopted
    /// record, whose own values are stale, takes the copies' server fields and then the values
    /// the server answered. A copy with local changes is kept: merging two sets of edits is the
    /// app's decision, and dropping either would lose one.
    private func applyCreated(
        _ created: CreatedRecord, to fields: inout [String: JSONValue], _ soup: SoupCatalogEntry, _ state: SoupState
    ) throws {
        fields[created.idField] = created.serverId
        let finder = try LocalRecordFinder(
            state: state, soup: soup, idPath: created.idField, wanted: [created.serverId])
        for copyId in try finder.allEntryIds(for: created.serverId) where copyId != created.entryId {
            guard let copy = try state.record(soup.soupId, copyId), !LocalFlags.isDirty(copy) else { continue }
            if fields[LocalFlags.syncId] == nil, let syncId = copy[LocalFlags.syncId] {
                fields[LocalFlags.syncId] = syncId
            }
            if created.adoptedValues != nil, let copyFields = copy.object {
                fields.merge(copyFields.filter { !Self.isBookkeeping($0.key) }) { _, copied in copied }
            }
            try state.removeRecord(soup.soupId, copyId)
            if state.isTraced(soup), let serverId = created.serverId.string {
                let decision = FoldDecision.sameRecordAsCreated(serverId: serverId, syncId: created.syncId)
                try state.explain(copyId, in: soup, decision.description, serverId: serverId)
            }
        }
        fields.merge(created.adoptedValues ?? [:]) { _, server in server }
    }

    /// Whether a record field is the soup's or the sync's own (`_soup…`, the `__local__`
    /// family, `__sync_id__`, `__last_error__`) rather than one of the server record's.
    private static func isBookkeeping(_ field: String) -> Bool {
        field.hasPrefix("_soup") || syncFields.contains(field)
    }

    private static let syncFields: Set<String> = [
        LocalFlags.local, LocalFlags.locallyCreated, LocalFlags.locallyUpdated, LocalFlags.locallyDeleted,
        LocalFlags.syncId, LocalFlags.lastError,
    ]

    /// Cleans a record's flags and error: its change reached the server.
    static func clean(_ fields: inout [String: JSONValue]) {
        for flag in [LocalFlags.local, LocalFlags.locallyCreated, LocalFlags.locallyUpdated, LocalFlags.locallyDeleted]
        {
            fields[flag] = false
        }
        fields[LocalFlags.lastError] = .null
    }
}
