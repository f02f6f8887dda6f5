import EventJournal
import LosslessJSON
package import SalesforceAPI
import Soups

/// One run of a sync up over the journal: Mobile Sync's sync-up task, with crash-safe uploads.
///
/// The run first closes the uploads a crash left open (an intent without outcome), then sends
/// the soup's dirty records in numeric `_soupEntryId` order, in batches of the target's
/// `maxBatchSize`. Each batch is an intent appended before the request and an outcome appended
/// after it; the soup projection applies the outcome, so server ids and clean flags commit in
/// that one entry. A failure that leaves a batch's result unknown (no answer, a 5xx after
/// retries) is thrown with the intent left open, and the next run reconciles it:
///
/// - a create with an external id is sent again: it is an upsert, so it cannot duplicate;
/// - a create without one is looked up by the target's marker field, when it names one; found,
///   its server id is recorded without sending anything;
/// - otherwise the create is sent again and listed in ``SyncUpSummary/possibleDuplicates``;
/// - updates and deletes are sent again (both are idempotent).
package struct SyncUpRunner: Sendable {
    /// The store holding the soup and the journal.
    package let store: SyncStore
    /// Where the records go.
    package let target: any SyncUpTarget
    /// The sync's id (it names the requests: `<syncId>-<n>`).
    package let syncId: Int64
    /// The soup whose dirty records are sent.
    package let soupName: String
    /// The merge mode and the default field list.
    package let options: SyncOptions
    /// Used only to look a create up by its marker field during reconciliation.
    package let client: SalesforceClient?

    /// Creates a runner.
    package init(
        store: SyncStore, target: any SyncUpTarget, syncId: Int64, soupName: String, options: SyncOptions,
        client: SalesforceClient?
    ) {
        self.store = store
        self.target = target
        self.syncId = syncId
        self.soupName = soupName
        self.options = options
        self.client = client
    }

    /// Runs the sync up.
    ///
    /// - Parameters:
    ///   - shouldStop: asked before each batch; `true` ends the run early (the remaining
    ///     records stay dirty) and the result says so.
    ///   - progress: called with (records processed, records to process) at the start and
    ///     after each batch.
    /// - Returns: the summary, and whether the run stopped early.
    /// - Throws: `SalesforceError` or `TransportFailure` when a request's result is unknown,
    ///   `SyncError` for a target that cannot send (no field list, mixed types in a bulk
    ///   check), `JournalError` or `SoupError` for storage trouble. Batches answered before
    ///   the error keep their outcomes.
    package func run(
        shouldStop: @Sendable () -> Bool = { false },
        progress: @Sendable (_ processed: Int, _ total: Int) async -> Void = { _, _ in }
    ) async throws -> (summary: SyncUpSummary, stopped: Bool) {
        var summary = SyncUpSummary()
        var requestNumber = try await reconcile(into: &summary)
        var pending = try await dirtyRecords()
        // Read once, as the records are: the notes of the records this run sends.
        let notes = options.mergeMode == .mergeFields ? try mergeNotes() : MergeNotes()
        let total = pending.count
        var processed = 0
        await progress(processed, total)
        var isRetryPass = false
        while true {
            var notFound: Set<Int64> = []
            for start in stride(from: 0, to: pending.count, by: max(1, target.maxBatchSize)) {
                if shouldStop() { return (summary, true) }
                let batch = Array(pending[start..<min(start + max(1, target.maxBatchSize), pending.count)])
                requestNumber += 1
                notFound.formUnion(try await send(batch, request: requestNumber, notes: notes, into: &summary))
                if !isRetryPass {
                    processed += batch.count
                    await progress(processed, total)
                }
            }
            // Mobile Sync re-runs once the updates that found no server record: the outcome
            // marked them locally created, so this pass creates them again.
            guard !isRetryPass, !notFound.isEmpty, options.mergeMode == .overwrite else { break }
            isRetryPass = true
            pending = try await dirtyRecords().filter { notFound.contains(Self.entryId($0)) }
        }
        return (summary, false)
    }

    /// The dirty set's notes of a MERGE_FIELDS run: each record's base, and the records with an
    /// open conflict.
    private struct MergeNotes {
        var notes: [Int64: DirtyNote] = [:]
        var inConflict: Set<Int64> = []
    }

    private func mergeNotes() throws -> MergeNotes {
        let dirty = try store.soups.dirtyNotes(soupName)
        return MergeNotes(
            notes: Dictionary(dirty.map { ($0.entryId, $0.note) }) { $1 },
            inConflict: Set(
                dirty.filter {
                    RecordConflict.open($0.note, record: $0.record, soup: soupName, entryId: $0.entryId) != nil
                }.map(\.entryId)))
    }

    /// Sends one batch: intent, request, outcome. Returns the records the server did not have.
    private func send(
        _ batch: [JSONValue], request: Int, notes merge: MergeNotes, into summary: inout SyncUpSummary
    ) async throws -> Set<Int64> {
        var toSend = batch
        if options.mergeMode == .leaveIfChanged {
            let checked = batch.filter(SyncUpAction.requiresServerCall)
            let newer = try await target.areNewerThanServer(checked)
            let older = Set(zip(checked, newer).filter { !$0.1 }.map { Self.entryId($0.0) })
            summary.skippedByLeaveIfChanged.append(contentsOf: older.sorted())
            toSend = batch.filter { !older.contains(Self.entryId($0)) }
        }
        if options.mergeMode == .mergeFields {
            let held = try await heldForMerge(batch, inConflict: merge.inConflict)
            summary.skippedForMerge.append(contentsOf: held.sorted())
            toSend = batch.filter { !held.contains(Self.entryId($0)) }
        }
        guard !toSend.isEmpty else { return [] }
        let upload = SyncUpUpload(
            syncId: syncId, soupName: soupName, requestId: "\(syncId)-\(request)", idFieldName: target.idFieldName,
            mergeMode: options.mergeMode,
            items: toSend.map { record in
                SyncUpUpload.Item(
                    record: record, idFieldName: target.idFieldName,
                    externalId: SyncUpFields.externalId(of: record, target: target)?.value)
            }, externalIdFieldName: target.externalIdFieldName)
        try store.journal.append(upload.intentDraft)
        let sent = toSend.map { record in
            merge.notes[Self.entryId(record)]?.base?.object.map { changedFields(of: record, since: $0) } ?? record
        }
        let outcomes = try await target.syncUp(sent, fieldlist: options.fieldlist)
        try store.journal.append(upload.outcomeDraft(outcomes))
        var notFound: Set<Int64> = []
        for (record, outcome) in zip(toSend, outcomes) {
            if SyncUpAction.requiresServerCall(record) { summary.sent += 1 }
            switch outcome {
            case .created, .adopted, .updated, .deleted: summary.succeeded += 1
            case .failed:
                summary.failed.append(
                    SyncUpSummary.Failure(
                        entryId: Self.entryId(record), id: record[target.idFieldName]?.string,
                        message: outcome.lastError ?? ""))
            case .notFound: notFound.insert(Self.entryId(record))
            case .skipped: break
            }
        }
        return notFound
    }

    /// The records of `batch` MERGE_FIELDS does not send now: those with an open conflict,
    /// and updates whose server copy is newer than theirs (the check LEAVE_IF_CHANGED makes),
    /// which a MERGE_FIELDS sync down merges first.
    private func heldForMerge(_ batch: [JSONValue], inConflict: Set<Int64>) async throws -> Set<Int64> {
        var held = Set(batch.map(Self.entryId).filter(inConflict.contains))
        // Updates and deletes, as LEAVE_IF_CHANGED checks them: a local delete must not remove
        // a server change it never saw; held, it becomes a record-level conflict at the next
        // sync down.
        let checked = batch.filter { record in
            let action = SyncUpAction(record: record)
            return (action == .update || (action == .delete && SyncUpAction.requiresServerCall(record)))
                && !held.contains(Self.entryId(record))
        }
        let newer = try await target.areNewerThanServer(checked)
        let stale = zip(checked, newer).filter { !$0.1 }.map(\.0)
        let gone = try await deletedOnServer(stale)
        held.formUnion(stale.map(Self.entryId).filter { !gone.contains($0) })
        return held
    }

    /// The records of `records` the server no longer has: MERGE_FIELDS sends their updates
    /// anyway, so that the server's "not found" makes each a record-level conflict rather than
    /// an edit held for a merge that can never come. Empty without a connection.
    private func deletedOnServer(_ records: [JSONValue]) async throws -> Set<Int64> {
        guard let client else { return [] }
        var gone: Set<Int64> = []
        let byType = Dictionary(grouping: records) { SyncUpFields.objectType(of: $0) ?? "" }
        for (type, typed) in byType.sorted(by: { $0.key < $1.key }) where !type.isEmpty {
            let withIds = typed.compactMap { record in record[target.idFieldName]?.string.map { (record, $0) } }
            for start in stride(from: 0, to: withIds.count, by: SalesforceLimits.collectionRetrieveIDCountMax) {
                let slice = withIds[start..<min(start + SalesforceLimits.collectionRetrieveIDCountMax, withIds.count)]
                let copies = try await client.collectionRetrieve(
                    type: type, ids: slice.map(\.1), fields: [target.idFieldName])
                for ((record, _), copy) in zip(slice, copies) where copy.isNull {
                    gone.insert(Self.entryId(record))
                }
            }
        }
        return gone
    }

    /// An update as MERGE_FIELDS sends it: without the fields whose values equal its base's, so
    /// that a server change to a field the app did not touch survives. The id, the modification
    /// date, `attributes`, the external id and bookkeeping members stay.
    private func changedFields(of record: JSONValue, since base: [String: JSONValue]) -> JSONValue {
        guard SyncUpAction(record: record) == .update, case .object(var fields) = record else { return record }
        let kept: Set<String> = [
            target.idFieldName, target.modificationDateFieldName, "attributes", target.externalIdFieldName ?? "",
        ]
        for (name, value) in fields where !FieldMerge.isBookkeeping(name) && !kept.contains(name) && base[name] == value
        {
            fields[name] = nil
        }
        return .object(fields)
    }

    /// Closes the uploads a crash left open; returns the highest request number used so far.
    private func reconcile(into summary: inout SyncUpSummary) async throws -> Int {
        try await Self.reconcile(
            store: store, syncId: syncId, soupName: soupName, idFieldName: target.idFieldName,
            mergeMode: options.mergeMode, into: &summary
        ) { item, summary in
            try await reconciled(item, into: &summary)
        }
    }

    /// Closes the uploads of sync `syncId` a crash left open: one outcome entry per pending
    /// intent, each record's outcome given by `outcome`. Returns the highest request number used.
    static func reconcile(
        store: SyncStore, syncId: Int64, soupName: String, idFieldName: String, mergeMode: MergeMode,
        into summary: inout SyncUpSummary,
        outcome: (_ item: SyncUpUpload.Item, _ summary: inout SyncUpSummary) async throws -> SyncUpOutcome
    ) async throws -> Int {
        var highest = 0
        for intent in try store.pendingUploads(syncId: syncId) {
            var upload = SyncUpUpload(
                pendingIntent: intent, mergeMode: mergeMode, defaultSoup: soupName, defaultIdFieldName: idFieldName)
            // An outcome needs no external id field (only an intent's fold reads it), and the
            // outcomes of reconciliation have always been journaled without it.
            upload.externalIdFieldName = nil
            if let number = upload.requestId.split(separator: "-").last.flatMap({ Int($0) }) {
                highest = max(highest, number)
            }
            var outcomes: [SyncUpOutcome] = []
            for item in upload.items {
                outcomes.append(try await outcome(item, &summary))
            }
            try store.journal.append(upload.outcomeDraft(outcomes))
        }
        return highest
    }

    /// The outcome that closes one record of an unanswered upload. `skipped` leaves the record
    /// dirty, so this run sends it again.
    private func reconciled(_ item: SyncUpUpload.Item, into summary: inout SyncUpSummary) async throws
        -> SyncUpOutcome
    {
        let entryId = item.entryId
        guard item.action == .create else { return .skipped }
        if let externalId = item.externalId {
            return try await reconciledUpsert(externalId: externalId, entryId: entryId, into: &summary)
        }
        guard let marker = target.markerFieldName, let client, let localId = item.id,
            let record = try store.soups.retrieve(soupName, ids: [entryId]).first,
            let objectType = SyncUpFields.objectType(of: record)
        else {
            summary.possibleDuplicates.append(entryId)
            return .skipped
        }
        let soql = "SELECT Id FROM \(objectType) WHERE \(marker) = \(SOQLQuery.quotedList([localId]))"
        guard let serverId = try await client.query(soql).records.first?["Id"]?.string else { return .skipped }
        summary.recovered.append(entryId)
        return .created(serverId: serverId)
    }

    /// The outcome of an unanswered upsert by external id. Sent again, it cannot create a
    /// second record, so the record is left to this run (`skipped`) — unless it was deleted
    /// locally since: a record never known to the server is then dropped without a request,
    /// and one the lost upsert did create would stay on the server for good. So the server is
    /// asked for the external id, and a record found there is `created` with its id: the
    /// record keeps its local delete, and this run deletes it on the server.
    private func reconciledUpsert(externalId: String, entryId: Int64, into summary: inout SyncUpSummary)
        async throws -> SyncUpOutcome
    {
        guard let field = target.externalIdFieldName, let client,
            let record = try store.soups.retrieve(soupName, ids: [entryId]).first,
            SyncUpAction(record: record) == .delete, let objectType = SyncUpFields.objectType(of: record)
        else { return .skipped }
        let soql =
            "SELECT \(target.idFieldName) FROM \(objectType) WHERE \(field) = \(SOQLQuery.quotedList([externalId]))"
        guard let serverId = try await client.query(soql).records.first?[target.idFieldName]?.string else {
            return .skipped
        }
        summary.recovered.append(entryId)
        return .created(serverId: serverId)
    }

    /// The soup's dirty records that the target sends (all by default), by numeric
    /// `_soupEntryId`. The target's choice is kept only within the dirty set: it cannot make
    /// the run send a clean record.
    private func dirtyRecords() async throws -> [JSONValue] {
        let dirty = try store.soups.dirtyRecords(soupName).sorted { Self.entryId($0) < Self.entryId($1) }
        let chosen = Set(try await target.recordsToSyncUp(dirty).map(Self.entryId))
        return dirty.filter { chosen.contains(Self.entryId($0)) }
    }

    private static func entryId(_ record: JSONValue) -> Int64 {
        record["_soupEntryId"]?.number?.int64Value ?? 0
    }
}
