/// What a sync rule's fold did to one record, and why: the words a traced fold
/// (`SoupFoldTrace`) reports, which `RecordHistory`, `blame` and the inspector show.
///
/// Each case is one branch of a rule, named where the rule decides, so a history tells exactly
/// what the fold did rather than a second reading of the entry.
enum FoldDecision: CustomStringConvertible {
    // Sync down (`ServerPageRule`).
    /// A fetched record written over a clean record, or stored as a new one.
    case fetched(syncId: Int64)
    /// A fetched record written over a record with local changes: OVERWRITE.
    case fetchedOverLocalChange(syncId: Int64)
    /// A fetched record not written because the local record has changes: LEAVE_IF_CHANGED.
    case keptLocalChange(syncId: Int64)
    /// A fetched record merged field by field into a record with local changes: MERGE_FIELDS;
    /// `conflicts` fields changed on both sides to different values.
    case mergedFields(syncId: Int64, conflicts: Int)
    /// A record only the reSync's window brought, which the soup already holds (``RefetchRule``).
    case fetchedAgainUnchanged(syncId: Int64)

    // Ghost cleaning (`GhostCleaningRule`).
    /// A clean record of the sync that the server no longer returns.
    case ghost(syncId: Int64)
    /// A clean record no sync owned and that the server no longer has (decision 0319).
    case unownedGhost(syncId: Int64)
    /// A ghost kept because one of its children has local changes.
    case keptForDirtyChild(syncId: Int64)
    /// A record the cleaning listed that was edited or fetched again before it was applied.
    case noLongerAGhost(syncId: Int64)
    /// A record changed here that the server no longer has, under MERGE_FIELDS: kept, in conflict.
    case deletedOnServerConflict(syncId: Int64)

    // Sync up (`UploadRule`).
    /// A local create the server created, or whose upsert matched a server record.
    case created(serverId: String, adopted: Bool, syncId: Int64)
    /// A local copy of the server record a create became, removed as the same record.
    case sameRecordAsCreated(serverId: String, syncId: Int64)
    /// A local update the server applied.
    case updated(syncId: Int64)
    /// An upload whose record changed while the request was out: the later change stays to send.
    case uploadedThenChanged(syncId: Int64)
    /// A local delete the server applied.
    case deleted(syncId: Int64)
    /// A record the server no longer has; OVERWRITE creates it again.
    case notFound(syncId: Int64, createdAgain: Bool)
    /// A request the server refused.
    case refused(error: String)
    /// A child whose parent's upload changed it.
    case followedParent(ParentOutcomeEffect, syncId: Int64)

    /// How a parent's upload outcome changed one of its children.
    enum ParentOutcomeEffect: Equatable {
        case pointedAtServerId(String)
        case deletedWithParent
        case createdAgainWithParent
    }

    /// A fetched record written; `overwriting` when the local record had changes.
    static func fetched(_ syncId: Int64, overwriting: Bool) -> FoldDecision {
        overwriting ? .fetchedOverLocalChange(syncId: syncId) : .fetched(syncId: syncId)
    }

    var description: String {
        switch self {
        case .fetched(let syncId): "fetched by sync \(syncId)"
        case .fetchedOverLocalChange(let syncId): "fetched by sync \(syncId), overwrote the local change"
        case .keptLocalChange(let syncId): "fetched by sync \(syncId), kept the local change"
        case .mergedFields(let syncId, let conflicts):
            conflicts == 0
                ? "fetched by sync \(syncId), merged with the local change"
                : "fetched by sync \(syncId), merged with the local change; \(conflicts) in conflict"
        case .fetchedAgainUnchanged(let syncId): "fetched again unchanged by sync \(syncId), left as it was"
        case .ghost(let syncId): "removed as a ghost of sync \(syncId)"
        case .unownedGhost(let syncId):
            "removed by the ghost cleaning of sync \(syncId): no sync owned it and the server no longer has it"
        case .keptForDirtyChild(let syncId): "kept by the ghost cleaning of sync \(syncId): a child has local changes"
        case .noLongerAGhost(let syncId):
            "kept by the ghost cleaning of sync \(syncId): it changed after the cleaning listed it"
        case .deletedOnServerConflict(let syncId):
            "kept by the ghost cleaning of sync \(syncId): changed locally and deleted on the server, a conflict"
        case .created(let serverId, let adopted, let syncId):
            adopted
                ? "took over the server's record \(serverId) by sync \(syncId)"
                : "created on the server as \(serverId) by sync \(syncId)"
        case .sameRecordAsCreated(let serverId, let syncId):
            "removed: the same server record \(serverId) as a create of sync \(syncId)"
        case .updated(let syncId): "updated on the server by sync \(syncId)"
        case .uploadedThenChanged(let syncId):
            "uploaded by sync \(syncId); changed meanwhile, the later change is still to send"
        case .deleted(let syncId): "deleted by sync \(syncId)"
        case .notFound(let syncId, let createdAgain):
            createdAgain
                ? "not found on the server by sync \(syncId), to be created again"
                : "not found on the server by sync \(syncId), left as it was"
        case .refused(let error): "refused by the server: \(error)"
        case .followedParent(.pointedAtServerId(let serverId), let syncId):
            "pointed at its parent's server id \(serverId) by sync \(syncId)"
        case .followedParent(.deletedWithParent, let syncId): "deleted with its parent by sync \(syncId)"
        case .followedParent(.createdAgainWithParent, let syncId):
            "to be created again with its parent by sync \(syncId)"
        }
    }
}
