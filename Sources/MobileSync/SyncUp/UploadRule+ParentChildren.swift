import Determinism
import LosslessJSON
import Soups

// What a parent's upload outcome does to its local children, in a parent/children sync up
// (docs/mobilesync.md, `sync.up.outcome`). The header names the children's soup, their id
// field, the child field holding the parent's id, and the relationship type.
extension UploadRule {
    /// A parent's outcome, noted while the entry's outcomes are applied.
    struct ParentOutcome {
        /// `created`, `deleted`, `notFound`, …
        var kind: SyncUpUpload.JournaledOutcome.Kind
        /// The parent's id field value before the outcome (its local id for a create).
        var id: JSONValue?
        /// The server id of a created parent.
        var serverId: JSONValue?
    }

    /// The children side of a parent/children upload entry.
    struct ChildrenOfUpload {
        let soup: SoupCatalogEntry
        let idField: String
        let parentIdField: String
        let relationshipType: ParentChildrenRelationship.RelationshipType

        init(_ children: SyncUpUpload.Children, _ state: SoupState) throws {
            soup = try state.requireSoup(children.soupName)
            idField = children.idFieldName
            parentIdField = children.parentIdFieldName
            relationshipType = children.relationshipType
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
        _ outcome: ParentOutcome, to children: ChildrenOfUpload, header: SyncUpUpload.JournaledHeader,
        at time: WallTime, _ state: SoupState
    ) throws {
        guard let parentId = outcome.id, !parentId.isNull else { return }
        let finder = try LocalRecordFinder(
            state: state, soup: children.soup, idPath: children.parentIdField, wanted: [parentId])
        let isMasterDetail = children.relationshipType == .masterDetail
        for entryId in try finder.allEntryIds(for: parentId) {
            guard case .object(var fields) = try state.record(children.soup.soupId, entryId) else { continue }
            let effect: FoldDecision.ParentOutcomeEffect
            switch outcome.kind {
            case .created:
                guard let serverId = outcome.serverId, serverId != parentId else { continue }
                fields[children.parentIdField] = serverId
                effect = .pointedAtServerId(serverId.string ?? serverId.serializedString)
            case .deleted:
                guard isMasterDetail else { continue }
                try state.removeRecord(children.soup.soupId, entryId)
                effect = .deletedWithParent
            case .notFound:
                guard header.mergeMode == .overwrite else { continue }
                effect = .createdAgainWithParent
                fields[LocalFlags.local] = true
                if isMasterDetail {
                    fields[LocalFlags.locallyCreated] = true
                } else {
                    fields[LocalFlags.locallyUpdated] = true
                }
                fields[SoupStore.lastModifiedDateField] = .number(JSONNumber(time.millisecondsSinceEpoch))
            case .updated, .failed, .skipped:
                continue
            }
            if effect != .deletedWithParent {
                try state.storeRecord(.object(fields), entryId: entryId, in: children.soup)
            }
            if state.isTraced(children.soup) {
                let decision = FoldDecision.followedParent(effect, syncId: header.syncId)
                try state.explain(entryId, in: children.soup, decision.description)
            }
        }
    }
}
