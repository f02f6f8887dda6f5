package import EventJournal
package import LosslessJSON
import Soups

/// One sync-up request as the journal sees it: the intent appended before it is sent, and the
/// outcome appended after (DESIGN invariant 6).
///
/// The intent names each record's `_soupEntryId`, action and *version* (its
/// `_soupLastModifiedDate` when the upload was decided). The outcome carries the versions too,
/// so the soup projection can tell whether a record changed while its request was in flight:
/// such a record keeps its flags and its newer change is sent next time.
package struct SyncUpUpload: Hashable, Sendable {
    /// One record of the request.
    package struct Item: Hashable, Sendable {
        /// The record's `_soupEntryId`.
        package var entryId: Int64
        /// What the request does with it.
        package var action: SyncUpAction
        /// The record's `_soupLastModifiedDate` when the upload was decided.
        package var version: JSONValue
        /// The record's id field value when the upload was decided (a local id for a create).
        package var id: String?
        /// The external id a create is upserted by, if any.
        package var externalId: String?
        /// The record's soup when it is not the upload's (a child of a parent/children upload).
        package var soup: String?

        /// Describes `record` (a soup record with `_soupEntryId`) for an upload.
        package init(record: JSONValue, idFieldName: String, externalId: String?, soup: String? = nil) {
            entryId = record[SoupStore.entryIdField]?.number?.int64Value ?? 0
            action = SyncUpAction(record: record)
            version = record[SoupStore.lastModifiedDateField] ?? .null
            id = record[idFieldName]?.string
            self.externalId = externalId
            self.soup = soup
        }
    }

    /// The children side of a parent/children upload: the upload's soup holds the parents.
    package struct Children: Hashable, Sendable {
        /// The children's soup.
        package var soupName: String
        /// The children's id field, which receives a created child's server id.
        package var idFieldName: String
        /// The child field holding its parent's id.
        package var parentIdFieldName: String
        /// The field children's creates are upserted by, if any.
        package var externalIdFieldName: String?
        /// How children depend on their parent, which decides what a parent's outcome does to them.
        package var relationshipType: ParentChildrenRelationship.RelationshipType

        /// The children side of `relationship`.
        package init(_ relationship: ParentChildrenRelationship) {
            self.init(
                soupName: relationship.children.soupName, idFieldName: relationship.children.idFieldName,
                parentIdFieldName: relationship.children.parentIdFieldName,
                externalIdFieldName: relationship.children.externalIdFieldName,
                relationshipType: relationship.relationshipType)
        }

        init(
            soupName: String, idFieldName: String, parentIdFieldName: String, externalIdFieldName: String?,
            relationshipType: ParentChildrenRelationship.RelationshipType
        ) {
            self.soupName = soupName
            self.idFieldName = idFieldName
            self.parentIdFieldName = parentIdFieldName
            self.externalIdFieldName = externalIdFieldName
            self.relationshipType = relationshipType
        }
    }

    /// The sync sending the request.
    package var syncId: Int64
    /// The soup the records live in.
    package var soupName: String
    /// Names the request in both entries: `<syncId>-<n>`, numbered per run after the open uploads,
    /// so it is unique among the sync's uploads without an outcome (what pairs an intent with it).
    package var requestId: String
    /// The record field that receives the server id.
    package var idFieldName: String
    /// The sync's merge mode (LEAVE_IF_CHANGED leaves an update that found no record alone).
    package var mergeMode: MergeMode
    /// The records, in request order.
    package var items: [Item]
    /// The field creates are upserted by, when the target names one. The soup projection uses
    /// it to recognise the server copy of a create whose outcome is not journaled yet.
    package var externalIdFieldName: String?
    /// For a parent/children upload: the children's soup and fields. The soup projection then
    /// applies a parent's outcome to its local children too (docs/mobilesync.md).
    package var children: Children?

    /// Creates an upload.
    package init(
        syncId: Int64, soupName: String, requestId: String, idFieldName: String, mergeMode: MergeMode, items: [Item],
        externalIdFieldName: String? = nil, children: Children? = nil
    ) {
        self.children = children
        self.externalIdFieldName = externalIdFieldName
        self.syncId = syncId
        self.soupName = soupName
        self.requestId = requestId
        self.idFieldName = idFieldName
        self.mergeMode = mergeMode
        self.items = items
    }

    /// The entry appended before the request is sent. No projection of soups changes with it.
    package var intentDraft: JournalEntry.Draft {
        let records: [JSONValue] = items.map { item in
            var fields: [String: JSONValue] = [
                SyncPayload.entryId: .number(JSONNumber(item.entryId)),
                SyncPayload.action: .string(Self.name(of: item.action)), SyncPayload.version: item.version,
            ]
            if let id = item.id { fields[SyncPayload.id] = .string(id) }
            if let externalId = item.externalId { fields[SyncPayload.externalId] = .string(externalId) }
            if let soup = item.soup { fields[SyncHeader.soup] = .string(soup) }
            return .object(fields)
        }
        return JournalEntry.Draft(kind: .syncUpIntent, header: header, json: [SyncPayload.records: .array(records)])
    }

    /// The entry appended after the answer: one outcome per item, in order. The soup
    /// projection applies it (server ids, clean flags, `__last_error__`, removals).
    ///
    /// - Precondition: `outcomes` has one element per item.
    package func outcomeDraft(_ outcomes: [SyncUpOutcome]) -> JournalEntry.Draft {
        precondition(outcomes.count == items.count, "one outcome per uploaded record")
        let entries: [JSONValue] = zip(items, outcomes).map { item, outcome in
            var fields: [String: JSONValue] = [
                SyncPayload.entryId: .number(JSONNumber(item.entryId)), SyncPayload.version: item.version,
            ]
            if let soup = item.soup { fields[SyncHeader.soup] = .string(soup) }
            let kind: JournaledOutcome.Kind
            switch outcome {
            case .created(let serverId):
                kind = .created
                fields[SyncPayload.serverId] = .string(serverId)
            case .adopted(let serverId, let serverFields):
                // A created outcome with the server's values: a build that predates them still
                // folds it as the create it is to the children.
                kind = .created
                fields[SyncPayload.serverId] = .string(serverId)
                fields[SyncPayload.serverFields] = .object(serverFields)
            case .updated: kind = .updated
            case .deleted: kind = .deleted
            case .notFound: kind = .notFound
            case .failed:
                kind = .failed
                fields[SyncPayload.error] = outcome.lastError.map(JSONValue.string) ?? .null
            case .skipped: kind = .skipped
            }
            fields[SyncPayload.outcome] = .string(kind.rawValue)
            return .object(fields)
        }
        return JournalEntry.Draft(kind: .syncUpOutcome, header: header, json: [SyncPayload.outcomes: .array(entries)])
    }

    private var header: [String: JournalEntry.HeaderValue] {
        var header: [String: JournalEntry.HeaderValue] = [
            SyncHeader.syncId: .integer(syncId), SyncHeader.soup: .string(soupName),
            SyncHeader.requestId: .string(requestId), SyncHeader.idFieldName: .string(idFieldName),
            SyncHeader.mergeMode: .string(mergeMode.rawValue),
        ]
        if let externalIdFieldName { header[SyncHeader.externalIdFieldName] = .string(externalIdFieldName) }
        if let children {
            header[SyncHeader.childrenSoup] = .string(children.soupName)
            header[SyncHeader.childIdFieldName] = .string(children.idFieldName)
            header[SyncHeader.childParentIdFieldName] = .string(children.parentIdFieldName)
            header[SyncHeader.relationshipType] = .string(children.relationshipType.rawValue)
            if let field = children.externalIdFieldName { header[SyncHeader.childExternalIdFieldName] = .string(field) }
        }
        return header
    }

    /// The upload a pending intent describes (``SyncStore/pendingUploads(syncId:)`` gives the
    /// intent's payload with its header fields), with `mergeMode` for its outcome.
    init(pendingIntent intent: JSONValue, mergeMode: MergeMode, defaultSoup: String, defaultIdFieldName: String) {
        let records = intent[SyncPayload.records]?.array ?? []
        let idFieldName = intent[SyncHeader.idFieldName]?.string ?? defaultIdFieldName
        var children: Children?
        if let soup = intent[SyncHeader.childrenSoup]?.string,
            let childId = intent[SyncHeader.childIdFieldName]?.string,
            let parentId = intent[SyncHeader.childParentIdFieldName]?.string,
            let type = intent[SyncHeader.relationshipType]?.string.flatMap(
                ParentChildrenRelationship.RelationshipType.init(rawValue:))
        {
            children = Children(
                soupName: soup, idFieldName: childId, parentIdFieldName: parentId,
                externalIdFieldName: intent[SyncHeader.childExternalIdFieldName]?.string, relationshipType: type)
        }
        self.init(
            syncId: intent[SyncHeader.syncId]?.number?.int64Value ?? 0,
            soupName: intent[SyncHeader.soup]?.string ?? defaultSoup,
            requestId: intent[SyncHeader.requestId]?.string ?? "", idFieldName: idFieldName, mergeMode: mergeMode,
            items: records.map { item in
                var upload = Item(record: [:], idFieldName: idFieldName, externalId: nil)
                upload.entryId = item[SyncPayload.entryId]?.number?.int64Value ?? 0
                upload.version = item[SyncPayload.version] ?? .null
                upload.id = item[SyncPayload.id]?.string
                upload.externalId = item[SyncPayload.externalId]?.string
                upload.soup = item[SyncHeader.soup]?.string
                upload.action = Self.action(named: item[SyncPayload.action]?.string)
                return upload
            }, externalIdFieldName: intent[SyncHeader.externalIdFieldName]?.string, children: children)
    }

    /// The action an intent names (``intentDraft``'s names), `.none` for another name.
    static func action(named name: String?) -> SyncUpAction {
        [SyncUpAction.create, .update, .delete].first { Self.name(of: $0) == name } ?? .none
    }

    private static func name(of action: SyncUpAction) -> String {
        switch action {
        case .create: "create"
        case .update: "update"
        case .delete: "delete"
        case .none: "none"
        }
    }
}
