import Determinism
import EventJournal
import LosslessJSON

// The sync-up entries that change soups: the intent and the outcome of one upload request.
//
// MobileSync appends `sync.up.intent` before each request and `sync.up.outcome` after it.
// Soups folds the outcome so that a server id replaces the local id in the same entry that
// cleans the flags, and notes from the intent which creates are in flight as upserts, so that
// a sync down fetching one of them before its outcome is journaled does not store it twice.
// Soups must not import MobileSync, so the kinds and the fields are read by name, as
// docs/mobilesync.md documents them.
extension SoupProjection {
    /// Folds an upload intent or outcome into its soup; returns `false` for every other kind.
    func applyUploadEntry(_ entry: JournalEntry, in context: ProjectionContext) throws -> Bool {
        switch entry.kind.rawValue {
        case JournalEntry.Kind.syncUpIntent.rawValue:
            try applyUploadIntent(entry, in: context)
            return true
        case JournalEntry.Kind.syncUpOutcome.rawValue:
            try applyUploadOutcome(entry, in: context)
            return true
        default:
            return false
        }
    }

    /// Notes the creates an intent sends as upserts by an external id. Nothing visible changes.
    ///
    /// The payload is `{"records": [{"entryId", "action", "version", "id"?, "externalId"?}]}`;
    /// the header names the external id field, when the target has one.
    ///
    /// In a parent/children intent an item with a `soup` member is a child: its soup is that
    /// one and its external id field the header's `childExternalIdFieldName`.
    private func applyUploadIntent(_ entry: JournalEntry, in context: ProjectionContext) throws {
        let parentField = entry.header[SyncHeader.externalIdFieldName]?.string
        let childField = entry.header[SyncHeader.childExternalIdFieldName]?.string
        guard parentField != nil || childField != nil else { return }
        let (state, soup) = try Self.uploadSoup(entry, in: context)
        guard let records = try entry.jsonPayload()["records"]?.array else {
            throw SoupError(.storage, "entry \(entry.sequence): an upload intent without a records array")
        }
        for item in records where item["action"]?.string == "create" {
            guard let entryId = item["entryId"]?.number?.int64Value, let externalId = item["externalId"]?.string,
                let field = item["soup"] == nil ? parentField : childField
            else { continue }
            let itemSoup = try item["soup"]?.string.map(state.requireSoup) ?? soup
            try state.putUploadingCreate(
                UploadingCreate(entryId: entryId, field: field, value: externalId), soupId: itemSoup.soupId)
        }
    }

    /// Folds an upload outcome into its soup.
    ///
    /// The payload is `{"outcomes": [{"entryId", "outcome", "version", "serverId"?,
    /// "serverFields"?, "error"?}]}` where `outcome` is `created`, `updated`, `deleted`,
    /// `notFound`, `failed` or `skipped`, and `version` is the record's `_soupLastModifiedDate`
    /// when the upload was decided. `serverFields` marks a created record that adopted a server
    /// record without writing to it (decision 0323): they replace its values.
    ///
    /// A record changed locally since then (its `_soupLastModifiedDate` differs) keeps its
    /// flags, so the newer change is sent by the next sync up instead of being cleaned away;
    /// a create still records the server id and becomes an update, so it is never created
    /// twice. This goes beyond Mobile Sync, which cleans such a record and loses the edit.
    ///
    /// In a parent/children outcome (header `childrenSoup`) an item with a `soup` member is a
    /// child, whose id field is the header's `childIdFieldName`; the parent's outcome then also
    /// applies to its local children (``applyParentOutcome(_:to:in:)``).
    private func applyUploadOutcome(_ entry: JournalEntry, in context: ProjectionContext) throws {
        let (state, parentSoup) = try Self.uploadSoup(entry, in: context)
        guard let parentIdField = entry.header[SyncHeader.idFieldName]?.string else {
            throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) lacks its idFieldName header")
        }
        let children = try ChildrenOfUpload(entry, state)
        let leavesChanges = entry.header[SyncHeader.mergeMode]?.string == SyncHeader.leaveIfChanged
        guard let outcomes = try entry.jsonPayload()["outcomes"]?.array else {
            throw SoupError(.storage, "entry \(entry.sequence): an upload outcome without an outcomes array")
        }
        var parentOutcomes: [ParentOutcome] = []
        for outcome in outcomes {
            guard let entryId = outcome["entryId"]?.number?.int64Value, let kind = outcome["outcome"]?.string else {
                throw SoupError(.storage, "entry \(entry.sequence): an outcome without entryId or outcome")
            }
            let isChild = outcome["soup"] != nil
            guard !isChild || children != nil else {
                throw SoupError(.storage, "entry \(entry.sequence): an outcome names a soup but no childrenSoup")
            }
            let soup = isChild ? children?.soup ?? parentSoup : parentSoup
            let idField = isChild ? children?.idField ?? parentIdField : parentIdField
            try state.removeUploadingCreate(soupId: soup.soupId, entryId: entryId)
            // A record removed locally since the upload began has nothing left to update.
            guard let record = try state.record(soup.soupId, entryId), case .object(var fields) = record else {
                continue
            }
            if children != nil, !isChild {
                parentOutcomes.append(
                    ParentOutcome(kind: kind, id: fields[parentIdField], serverId: outcome["serverId"]))
            }
            let unchanged = outcome["version"] == fields[SoupStore.lastModifiedDateField]
            switch kind {
            case "created":
                guard let serverId = outcome["serverId"]?.string else {
                    throw SoupError(.storage, "entry \(entry.sequence): a created outcome without serverId")
                }
                // An adopted record (decision 0323) wrote nothing: unless it changed meanwhile,
                // the server's values replace its own stale ones.
                let created = CreatedRecord(
                    entryId: entryId, serverId: .string(serverId), idField: idField,
                    adoptedValues: unchanged ? outcome["serverFields"]?.object : nil)
                try applyCreated(created, to: &fields, soup, state)
                Self.markCreatedOnTheServer(&fields, unchanged: unchanged)
            case "updated":
                guard unchanged else { continue }
                Self.clean(&fields)
            case "deleted":
                try state.removeRecord(soup.soupId, entryId)
                continue
            case "notFound":
                // OVERWRITE sends the record again as a create; LEAVE_IF_CHANGED leaves it.
                guard !leavesChanges else { continue }
                fields[LocalFlags.local] = true
                fields[LocalFlags.locallyCreated] = true
            case "failed":
                fields[LocalFlags.lastError] = outcome["error"] ?? .null
            case "skipped":
                continue
            default:
                throw SoupError(.storage, "entry \(entry.sequence): an unknown upload outcome '\(kind)'")
            }
            fields[SoupStore.lastModifiedDateField] = .number(JSONNumber(entry.timestamp.millisecondsSinceEpoch))
            try state.putRecord(.object(fields), entryId: entryId, in: soup)
        }
        if let children {
            for outcome in parentOutcomes {
                try applyParentOutcome(outcome, to: children, leavesChanges: leavesChanges, at: entry.timestamp, state)
            }
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

    /// The state and the catalog entry of the soup an upload entry names.
    private static func uploadSoup(_ entry: JournalEntry, in context: ProjectionContext) throws -> (
        SoupState, SoupCatalogEntry
    ) {
        guard let soupName = entry.header[SyncHeader.soup]?.string else {
            throw SoupError(.storage, "entry \(entry.sequence) of kind \(entry.kind) lacks its soup header")
        }
        let state = SoupState(transaction: context.transaction, databases: SoupDatabases.of(context))
        return (state, try state.requireSoup(soupName))
    }

    static func clean(_ fields: inout [String: JSONValue]) {
        for flag in [LocalFlags.local, LocalFlags.locallyCreated, LocalFlags.locallyUpdated, LocalFlags.locallyDeleted]
        {
            fields[flag] = false
        }
        fields[LocalFlags.lastError] = .null
    }
}
