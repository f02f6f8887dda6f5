import Determinism
import EventJournal
import LosslessJSON

// What a parent's upload outcome does to its local children, in a parent/children sync up
// (docs/mobilesync.md, `sync.up.outcome`). The header names the children's soup, their id
// field, the child field holding the parent's id, and the relationship type.
extension SoupProjection {
    /// A parent's outcome, noted while the entry's outcomes are applied.
    struct ParentOutcome {
        /// `created`, `deleted`, `notFound`, …
        var kind: String
        /// The parent's id field value before the outcome (its local id for a create).
        var id: JSONValue?
        /// The server id of a created parent.
        var serverId: JSONValue?
    }

    /// The children side of a parent/children upload entry, or `nil` for another upload.
    struct ChildrenOfUpload {
        let soup: SoupCatalogEntry
        let idField: String
        let parentIdField: String
        let isMasterDetail: Bool

        init?(_ entry: JournalEntry, _ state: SoupState) throws {
            guard let soupName = entry.header[SyncHeader.childrenSoup]?.string else { return nil }
            guard let idField = entry.header[SyncHeader.childIdFieldName]?.string,
                let parentIdField = entry.header[SyncHeader.childParentIdFieldName]?.string,
                let type = entry.header[SyncHeader.relationshipType]?.string
            else {
                throw SoupError(
                    .storage, "entry \(entry.sequence): a parent/children upload lacks its children's header fields")
            }
            soup = try state.requireSoup(soupName)
            self.idField = idField
            self.parentIdField = parentIdField
            isMasterDetail = type == SyncHeader.masterDetail
        }
    }

    /// Applies a parent's outcome to the local children that name it:
    ///
    /// - `created`: children holding the parent's local id get its server id, so a child
    ///   created or edited later still points at its parent (their flags and version stay);
    /// - `deleted` under `MASTER_DETAIL`: the children are deleted, as the server deleted them;
    /// - `notFound` under OVERWRITE: the parent is created again, and its children with it
    ///   (`MASTER_DETAIL`: marked created) or pointed at it again (`LOOKUP`: marked updated).
    func applyParentOutcome(
        _ outcome: ParentOutcome, to children: ChildrenOfUpload, leavesChanges: Bool, at time: WallTime,
        _ state: SoupState
    ) throws {
        guard let parentId = outcome.id, !parentId.isNull else { return }
        let finder = try LocalRecordFinder(
            state: state, soup: children.soup, idPath: children.parentIdField, wanted: [parentId])
        for entryId in try finder.allEntryIds(for: parentId) {
            guard case .object(var fields) = try state.record(children.soup.soupId, entryId) else { continue }
            switch outcome.kind {
            case "created":
                guard let serverId = outcome.serverId, serverId != parentId else { continue }
                fields[children.parentIdField] = serverId
            case "deleted":
                guard children.isMasterDetail else { continue }
                try state.removeRecord(children.soup.soupId, entryId)
                continue
            case "notFound":
                guard !leavesChanges else { continue }
                fields[LocalFlags.local] = true
                if children.isMasterDetail {
                    fields[LocalFlags.locallyCreated] = true
                } else {
                    fields[LocalFlags.locallyUpdated] = true
                }
                fields[SoupStore.lastModifiedDateField] = .number(JSONNumber(time.millisecondsSinceEpoch))
            default:
                continue
            }
            try state.putRecord(.object(fields), entryId: entryId, in: children.soup)
        }
    }
}
