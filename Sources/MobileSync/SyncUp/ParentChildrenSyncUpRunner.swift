import EventJournal
import LosslessJSON
import SalesforceAPI
import Soups

/// One run of a parent/children sync up: each parent that is dirty or has a dirty child is a
/// tree, sent as one composite request (or several, 25 sub-requests each, for a large tree).
///
/// Each request is an intent appended before it is sent and an outcome appended after, both
/// naming the parent and the children it carries (children with their soup), so the soup
/// projection applies them in one entry: server ids, clean flags, `__last_error__`, and what a
/// parent's outcome does to its local children — a created parent's children get its server id
/// in their parent id field, a deleted master's children are deleted, a parent the server no
/// longer has is marked created with its children (created under `MASTER_DETAIL`, updated under
/// `LOOKUP`). Trees are processed in numeric `_soupEntryId` order of their parents.
///
/// Under OVERWRITE a tree that found a record missing on the server is sent once more, after
/// the fold marked it to be created again; Mobile SDK re-sends without end, so a server that
/// keeps answering "does not exist" would loop. Here a record still missing after
/// ``recreateAttemptCountMax`` new attempts gets `__last_error__` and keeps its changes
/// (docs/decisions/0322-related-record-targets.md).
///
/// A crash between an intent and its outcome is reconciled as for the other targets: creates
/// upserted by an external id are sent again (they cannot duplicate) — or, deleted locally
/// since, looked up by that id so the server's copy is deleted (decision 0324) —, creates
/// without one are sent again and listed in ``SyncUpSummary/possibleDuplicates``.
package struct ParentChildrenSyncUpRunner: Sendable {
    /// How many times a tree is sent again after the server said a record of it did not exist.
    package static let recreateAttemptCountMax = 1
    /// The most sub-requests of one composite request.
    static let subrequestCountMax = 25

    /// The store holding both soups and the journal.
    package let store: SyncStore
    /// Builds the requests and reads the answers.
    package let target: ParentChildrenSyncUpTarget
    /// The sync's id (it names the requests: `<syncId>-<n>`).
    package let syncId: Int64
    /// The merge mode and the parents' default field list.
    package let options: SyncOptions

    /// Creates a runner.
    package init(store: SyncStore, target: ParentChildrenSyncUpTarget, syncId: Int64, options: SyncOptions) {
        self.store = store
        self.target = target
        self.syncId = syncId
        self.options = options
    }

    private var parentSoup: String { target.relationship.parent.soupName }
    private var childSoup: String { target.relationship.children.soupName }

    /// Runs the sync up.
    ///
    /// - Parameters:
    ///   - shouldStop: asked before each tree; `true` ends the run early.
    ///   - progress: called with (trees processed, trees to process) at the start and after each tree.
    /// - Returns: the summary, and whether the run stopped early.
    /// - Throws: `SalesforceError` or `TransportFailure` when a request's result is unknown
    ///   (its intent stays open for the next run), `SyncError` for a missing field list,
    ///   `JournalError` or `SoupError` for storage trouble.
    package func run(
        shouldStop: @Sendable () -> Bool = { false },
        progress: @Sendable (_ processed: Int, _ total: Int) async -> Void = { _, _ in }
    ) async throws -> (summary: SyncUpSummary, stopped: Bool) {
        var summary = SyncUpSummary()
        var requestNumber = try await SyncUpRunner.reconcile(
            store: store, syncId: syncId, soupName: parentSoup, idFieldName: target.relationship.parent.idFieldName,
            mergeMode: options.mergeMode, into: &summary
        ) { item, summary in
            try await reconciled(item, into: &summary)
        }
        var trees = try dirtyTrees()
        let total = trees.count
        await progress(0, total)
        var attempt = 0
        while true {
            var missing: [Int64] = []
            // One lookup per pass: without an index on the parent id field it reads the soup once.
            let children = try LocalLookup(store, childSoup, path: target.relationship.children.parentIdFieldName)
            for (index, parentEntryId) in trees.enumerated() {
                if shouldStop() { return (summary, true) }
                let isLastAttempt = attempt >= Self.recreateAttemptCountMax
                if try await sendTree(parentEntryId, children, isLastAttempt, &requestNumber, &summary) {
                    missing.append(parentEntryId)
                }
                if attempt == 0 { await progress(index + 1, total) }
            }
            guard options.mergeMode == .overwrite, !missing.isEmpty, attempt < Self.recreateAttemptCountMax else {
                break
            }
            attempt += 1
            trees = missing
        }
        return (summary, false)
    }

    /// The outcome that closes one record (parent or child) of an unanswered request;
    /// `skipped` leaves it dirty, so this run sends it again.
    ///
    /// A create upserted by an external id cannot duplicate when sent again — unless the record
    /// was deleted locally since: a create deleted locally is dropped without a request, so a
    /// record the lost upsert did create would stay on the server for good (a child of a
    /// tree, seed 1009 of the long campaign). The server is then asked for the external id, and
    /// a record found there is `created` with its id: the record keeps its local delete, and
    /// this run deletes it on the server (as `SyncUpRunner` does for a single soup).
    /// No marker field here: a create without an external id may reach the server twice.
    private func reconciled(_ item: SyncUpUpload.Item, into summary: inout SyncUpSummary) async throws
        -> SyncUpOutcome
    {
        let entryId = item.entryId
        guard item.action == .create else { return .skipped }
        guard let externalId = item.externalId else {
            summary.possibleDuplicates.append(entryId)
            return .skipped
        }
        let isChild = item.soup != nil
        guard let record = try store.soups.retrieve(isChild ? childSoup : parentSoup, ids: [entryId]).first,
            SyncUpAction(record: record) == .delete,
            let serverId = try await target.serverId(ofExternalId: externalId, isChild: isChild)
        else { return .skipped }
        summary.recovered.append(entryId)
        return .created(serverId: serverId)
    }

    // MARK: - Trees

    /// The `_soupEntryId`s of the parents to send: dirty parents and the parents of dirty
    /// children, ascending. A dirty child whose parent is not in the parent soup has no tree
    /// and stays dirty, as in Mobile SDK.
    func dirtyTrees() throws -> [Int64] {
        var parents = Set(try store.soups.dirtyRecords(parentSoup).compactMap(Self.entryId))
        let dirtyChildren = try store.soups.dirtyRecords(childSoup)
        if !dirtyChildren.isEmpty {
            let byId = try LocalLookup(store, parentSoup, path: target.relationship.parent.idFieldName)
            for child in dirtyChildren {
                guard let parentId = child[target.relationship.children.parentIdFieldName], !parentId.isNull else {
                    continue
                }
                parents.formUnion(try byId.entryIds(parentId))
            }
        }
        return parents.sorted()
    }

    /// Sends one tree. Returns whether a record of it was missing on the server and was marked
    /// to be created again (so the tree goes once more).
    private func sendTree(
        _ parentEntryId: Int64, _ lookup: LocalLookup, _ isLastAttempt: Bool, _ requestNumber: inout Int,
        _ summary: inout SyncUpSummary
    ) async throws -> Bool {
        guard let parent = try store.soups.retrieve(parentSoup, ids: [parentEntryId]).first else { return false }
        let children = try childrenOf(parent, lookup)
        if options.mergeMode == .leaveIfChanged,
            try await !target.isNewerThanServer(parent: parent, children: children)
        {
            summary.skippedByLeaveIfChanged.append(parentEntryId)
            return false
        }
        let planned = target.steps(parent: parent, children: children)
        var missing = false
        for start in stride(from: 0, to: planned.count, by: Self.subrequestCountMax) {
            let chunk = Array(planned[start..<min(start + Self.subrequestCountMax, planned.count)])
            requestNumber += 1
            let result = try await sendChunk(
                chunk, parentEntryId, isLastAttempt, "\(syncId)-\(requestNumber)", &summary)
            missing = missing || result.missing
            // Later children need the parent's server id; stop when the parent did not get one.
            guard result.parentSucceeded else { break }
        }
        return missing
    }

    /// The local children of `parent`: the records of the children soup whose parent id field
    /// holds the parent's id (its local id while it is not created on the server).
    private func childrenOf(_ parent: JSONValue, _ lookup: LocalLookup) throws -> [JSONValue] {
        guard let id = parent[target.relationship.parent.idFieldName], !id.isNull else { return [] }
        // Read again: the lookup may be older than the parent's latest outcome.
        return try store.soups.retrieve(childSoup, ids: try lookup.entryIds(id)).filter {
            $0[target.relationship.children.parentIdFieldName] == id
        }
    }

    /// Sends the steps of one request with the tree's records read again (an earlier request
    /// of the tree may have changed them), and journals the intent and the outcome.
    private func sendChunk(
        _ planned: [ParentChildrenSyncUpTarget.Step], _ parentEntryId: Int64, _ isLastAttempt: Bool,
        _ requestId: String, _ summary: inout SyncUpSummary
    ) async throws -> (parentSucceeded: Bool, missing: Bool) {
        guard let parent = try store.soups.retrieve(parentSoup, ids: [parentEntryId]).first else {
            return (false, false)
        }
        let childIds = planned.filter(\.isChild).map(\.entryId)
        let children = try store.soups.retrieve(childSoup, ids: childIds)
        let steps = planned.compactMap { step -> ParentChildrenSyncUpTarget.Step? in
            let record = step.isChild ? children.first { Self.entryId($0) == step.entryId } : parent
            guard let record else { return nil }
            return ParentChildrenSyncUpTarget.Step(record: record, isChild: step.isChild, action: step.action)
        }
        let (requests, named, unsent) = try target.subrequests(steps, parent: parent, fieldlist: options.fieldlist)
        // The parent is an item of every request, so its outcome can say it no longer exists.
        var items = [item(parent, isChild: false)]
        items += steps.filter(\.isChild).map { item($0.record, isChild: true) }
        let upload = SyncUpUpload(
            syncId: syncId, soupName: parentSoup, requestId: requestId,
            idFieldName: target.relationship.parent.idFieldName, mergeMode: options.mergeMode, items: items,
            externalIdFieldName: target.relationship.parent.externalIdFieldName,
            children: SyncUpUpload.Children(target.relationship))
        try store.journal.append(upload.intentDraft)
        var answers: [Int64: ParentChildrenSyncUpTarget.Answer] = [:]
        for (entryId, outcome) in unsent { answers[entryId] = .init(outcome: outcome, parentIsGone: false) }
        if !requests.isEmpty {
            for response in try await target.send(requests) {
                guard let step = named[response.referenceID] else { continue }
                answers[step.entryId] = try target.answer(response, for: step)
            }
        }
        var outcomes = items.map { answers[$0.entryId]?.outcome ?? .skipped }
        let parentIsGone = answers.values.contains(where: \.parentIsGone)
        var adoptedParent = false
        if parentIsGone, options.mergeMode == .overwrite, outcomes[0] == .skipped {
            // A child refused because its parent is deleted. A clean parent adopts the server
            // record that now has its external id: writing its stale fields there would undo
            // whatever changed that record since (decision 0323). Otherwise the parent is
            // created again. Either outcome marks the children to follow it.
            if SyncUpAction(record: parent) == .none,
                let server = try await target.serverRecordOfParent(
                    withTheExternalIdOf: parent, fieldlist: options.fieldlist),
                let serverId = server[target.relationship.parent.idFieldName]?.string
            {
                outcomes[0] = .adopted(serverId: serverId, serverFields: server)
                adoptedParent = true
            } else {
                outcomes[0] = .notFound
            }
            for index in outcomes.indices.dropFirst() where answers[items[index].entryId]?.parentIsGone == true {
                outcomes[index] = .skipped
            }
        }
        if isLastAttempt {
            outcomes = outcomes.map { $0 == .notFound ? Self.recreateLimitExceeded : $0 }
        }
        try store.journal.append(upload.outcomeDraft(outcomes))
        record(outcomes, of: items, sent: Set(named.values.map(\.entryId)), into: &summary)
        let parentIsInThisRequest = steps.contains { !$0.isChild }
        let parentSucceeded: Bool =
            switch outcomes[0] {
            case .created, .adopted, .updated, .deleted: true
            case .skipped: !parentIsInThisRequest || !SyncUpAction.requiresServerCall(parent)
            case .notFound, .failed: false
            }
        // An adopted parent's children were refused: the tree goes once more, under it.
        return (parentSucceeded, outcomes.contains(.notFound) || adoptedParent)
    }

    private func item(_ record: JSONValue, isChild: Bool) -> SyncUpUpload.Item {
        let relationship = target.relationship
        let externalIdField =
            isChild ? relationship.children.externalIdFieldName : relationship.parent.externalIdFieldName
        let externalId =
            SyncUpAction(record: record) == .create
            ? SyncUpFields.externalId(of: record, field: externalIdField)?.value : nil
        return SyncUpUpload.Item(
            record: record, idFieldName: isChild ? relationship.children.idFieldName : relationship.parent.idFieldName,
            externalId: externalId, soup: isChild ? relationship.children.soupName : nil)
    }

    private func record(
        _ outcomes: [SyncUpOutcome], of items: [SyncUpUpload.Item], sent: Set<Int64>,
        into summary: inout SyncUpSummary
    ) {
        for (item, outcome) in zip(items, outcomes) {
            if sent.contains(item.entryId) { summary.sent += 1 }
            switch outcome {
            case .created, .adopted, .updated, .deleted: summary.succeeded += 1
            case .failed:
                summary.failed.append(
                    SyncUpSummary.Failure(entryId: item.entryId, id: item.id, message: outcome.lastError ?? ""))
            case .notFound, .skipped: break
            }
        }
    }

    /// The failure of a record the server still does not have after it was created again.
    static let recreateLimitExceeded = SyncUpOutcome.failed(error: [
        "errorCode": "RECREATE_LIMIT_EXCEEDED",
        "message": .string(
            "The server still has no such record after it was created again \(recreateAttemptCountMax) time(s); "
                + "the record keeps its changes."),
        "fields": [],
    ])

    private static func entryId(_ record: JSONValue) -> Int64? {
        record["_soupEntryId"]?.number?.int64Value
    }
}

/// Finds the records of a soup whose value at a path is a given value: through the soup's
/// index on the path when it has one, or by reading the soup once.
struct LocalLookup {
    private let store: SyncStore
    private let soup: String
    private let path: String
    private let scanned: [JSONValue: [Int64]]?

    /// The most records read per query while scanning a soup without an index on the path.
    static let scanPageSize = 10_000

    init(_ store: SyncStore, _ soup: String, path: String) throws {
        self.store = store
        self.soup = soup
        self.path = path
        guard !(try store.soups.indexSpecs(of: soup).contains { $0.path == path }) else {
            scanned = nil
            return
        }
        var scanned: [JSONValue: [Int64]] = [:]
        var pageIndex = 0
        while true {
            let page = try store.soups.query(QuerySpec.all(soup, pageSize: Self.scanPageSize), pageIndex: pageIndex)
            for record in page {
                guard let value = record.projected(path, keepsNull: false),
                    let entryId = record["_soupEntryId"]?.number?.int64Value
                else { continue }
                scanned[value, default: []].append(entryId)
            }
            guard page.count == Self.scanPageSize else { break }
            pageIndex += 1
        }
        self.scanned = scanned
    }

    /// The `_soupEntryId`s of the records whose value at the path is `value`, ascending.
    func entryIds(_ value: JSONValue) throws -> [Int64] {
        if let scanned { return (scanned[value] ?? []).sorted() }
        let spec = QuerySpec.exact(soup, path: path, value: value, pageSize: QuerySpec.pageSizeMax)
        return try store.soups.query(spec).compactMap { $0["_soupEntryId"]?.number?.int64Value }.sorted()
    }
}
