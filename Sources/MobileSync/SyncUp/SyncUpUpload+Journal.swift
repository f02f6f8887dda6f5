import EventJournal
import LosslessJSON

// Reading the upload entries back, for the fold of their outcomes and intents (`UploadRule`):
// the header `SyncUpUpload` writes, the creates an intent upserts, and each outcome.
extension SyncUpUpload {
    /// The header of a `sync.up.intent` or `sync.up.outcome` entry, as written by
    /// ``intentDraft`` and ``outcomeDraft(_:)``.
    struct JournaledHeader {
        /// The upload's soup (the parents' for a parent/children upload).
        var soupName: String
        /// The sync that uploads; 0 when an entry names none (every build has written it).
        var syncId: Int64
        /// The records' id field; every outcome names it, intents of old builds may not.
        var idFieldName: String?
        /// The sync's merge mode; OVERWRITE when an old entry names none.
        var mergeMode: MergeMode
        /// The field parents' creates are upserted by, if any.
        var externalIdFieldName: String?
        /// The field children's creates are upserted by, if any.
        var childExternalIdFieldName: String?
        /// The children side of a parent/children upload.
        var children: Children?

        /// Reads the header of `entry`.
        /// - Throws: ``SyncError/Code/malformedEntry`` when `soup` is missing, the merge mode
        ///   unknown, or a parent/children upload lacks one of its children's fields.
        init(_ entry: JournalEntry) throws(SyncError) {
            let header = EntryHeader(entry)
            soupName = try header.string(SyncHeader.soup)
            syncId = try header.optionalInteger(SyncHeader.syncId) ?? 0
            idFieldName = try header.optionalString(SyncHeader.idFieldName)
            let mode = try header.optionalString(SyncHeader.mergeMode)
            guard let mergeMode = MergeMode(rawValue: mode ?? MergeMode.overwrite.rawValue) else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): unknown mergeMode \"\(mode ?? "")\".")
            }
            self.mergeMode = mergeMode
            externalIdFieldName = try header.optionalString(SyncHeader.externalIdFieldName)
            childExternalIdFieldName = try header.optionalString(SyncHeader.childExternalIdFieldName)
            guard let childrenSoup = try header.optionalString(SyncHeader.childrenSoup) else { return }
            let typeName = try header.string(SyncHeader.relationshipType)
            guard let type = ParentChildrenRelationship.RelationshipType(rawValue: typeName) else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): unknown relationshipType \"\(typeName)\".")
            }
            children = Children(
                soupName: childrenSoup, idFieldName: try header.string(SyncHeader.childIdFieldName),
                parentIdFieldName: try header.string(SyncHeader.childParentIdFieldName),
                externalIdFieldName: childExternalIdFieldName, relationshipType: type)
        }
    }

    /// A create an intent sends as an upsert by an external id.
    struct JournaledCreate {
        var entryId: Int64
        var externalId: String
        /// The record's soup when it is a child of a parent/children upload.
        var soup: String?
    }

    /// The creates `entry`, an intent, sends with an external id.
    /// - Throws: ``SyncError/Code/malformedEntry`` when the payload has no `records` array.
    static func journaledCreates(of entry: JournalEntry) throws(SyncError) -> [JournaledCreate] {
        guard let records = try? entry.jsonPayload()[SyncPayload.records]?.array else {
            throw SyncError(.malformedEntry, "Entry \(entry.sequence): an upload intent without a records array.")
        }
        return records.compactMap { item in
            guard action(named: item[SyncPayload.action]?.string) == .create,
                let entryId = item[SyncPayload.entryId]?.number?.int64Value,
                let externalId = item[SyncPayload.externalId]?.string
            else { return nil }
            return JournaledCreate(entryId: entryId, externalId: externalId, soup: item[SyncHeader.soup]?.string)
        }
    }

    /// One record's outcome in a `sync.up.outcome` entry.
    struct JournaledOutcome {
        /// What happened, by the names ``outcomeDraft(_:)`` writes.
        enum Kind: String {
            case created, updated, deleted, notFound, failed, skipped
        }

        var entryId: Int64
        var kind: Kind
        /// The record's `_soupLastModifiedDate` when the upload was decided.
        var version: JSONValue?
        /// The record's soup when it is a child of a parent/children upload.
        var soup: String?
        /// A created record's server id.
        var serverId: String?
        /// The server's values of a record that adopted a server record (decision 0323).
        var serverFields: [String: JSONValue]?
        /// A failure's error, for `__last_error__`.
        var error: JSONValue?
    }

    /// The outcomes of `entry`, in request order.
    /// - Throws: ``SyncError/Code/malformedEntry`` when the payload has no `outcomes` array, or
    ///   an outcome has no entry id, an unknown kind, or is a creation without a server id.
    static func journaledOutcomes(of entry: JournalEntry) throws(SyncError) -> [JournaledOutcome] {
        guard let outcomes = try? entry.jsonPayload()[SyncPayload.outcomes]?.array else {
            throw SyncError(.malformedEntry, "Entry \(entry.sequence): an upload outcome without an outcomes array.")
        }
        var read: [JournaledOutcome] = []
        for outcome in outcomes {
            guard let entryId = outcome[SyncPayload.entryId]?.number?.int64Value,
                let name = outcome[SyncPayload.outcome]?.string
            else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): an outcome without entryId or outcome.")
            }
            guard let kind = JournaledOutcome.Kind(rawValue: name) else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): an unknown upload outcome '\(name)'.")
            }
            let serverId = outcome[SyncPayload.serverId]?.string
            guard kind != .created || serverId != nil else {
                throw SyncError(.malformedEntry, "Entry \(entry.sequence): a created outcome without serverId.")
            }
            read.append(
                JournaledOutcome(
                    entryId: entryId, kind: kind, version: outcome[SyncPayload.version],
                    soup: outcome[SyncHeader.soup]?.string, serverId: serverId,
                    serverFields: outcome[SyncPayload.serverFields]?.object, error: outcome[SyncPayload.error]))
        }
        return read
    }
}
