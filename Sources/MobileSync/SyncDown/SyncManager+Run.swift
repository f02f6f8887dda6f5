import Determinism
import EventJournal
import Logging
import LosslessJSON
import Soups
import Synchronization

extension SyncManager {
    /// Creates a sync down and runs it.
    ///
    /// - Parameters:
    ///   - target: where records come from.
    ///   - options: the merge mode (OVERWRITE by default).
    ///   - soupName: the soup records go to.
    ///   - name: an optional unique name.
    ///   - onUpdate: receives every state of this run.
    /// - Returns: the final state: DONE, FAILED (``SyncState/error`` says why) or STOPPED.
    /// - Throws: what ``createSyncDown(target:options:soupName:name:)`` throws, or
    ///   ``SyncError/Code/managerStopped`` ("sync manager has state:<STATE>") — the sync is
    ///   then created but not run, as on Android.
    @discardableResult
    public func syncDown(
        target: SyncDownTargetDescriptor, options: SyncOptions = SyncOptions(), soupName: String,
        name: String? = nil, onUpdate: UpdateHandler? = nil
    ) async throws -> SyncState {
        let created = try createSyncDown(target: target, options: options, soupName: soupName, name: name)
        let run = try submit(id: created.id, isReSync: false, onUpdate: onUpdate)
        return try await execute(run, onUpdate: onUpdate)
    }

    /// Runs an existing sync again: a sync down fetches only records changed since its
    /// watermark — built-in targets ask from the start of the watermark's second minus the
    /// target's overlap, so a change made in that second is not missed (``ReSyncWindow``); a sync
    /// never run does a full sync; a STOPPED one's target resumes from watermark − 1 ms. A sync
    /// up sends the soup's dirty records.
    ///
    /// - Returns: the final state.
    /// - Throws: ``SyncError/Code/syncNotFound`` ("Sync <id> does not exist"),
    ///   ``SyncError/Code/syncRunning`` ("Cannot run runSync <id> - sync is still running"),
    ///   ``SyncError/Code/managerStopped``.
    @discardableResult
    public func reSync(id: Int64, onUpdate: UpdateHandler? = nil) async throws -> SyncState {
        if try store.syncState(id: id)?.type == .syncUp { return try await runSyncUp(id: id, onUpdate: onUpdate) }
        let run = try submit(id: id, isReSync: true, onUpdate: onUpdate)
        return try await execute(run, onUpdate: onUpdate)
    }

    /// Runs the sync named `name` again; see ``reSync(id:onUpdate:)``.
    @discardableResult
    public func reSync(name: String, onUpdate: UpdateHandler? = nil) async throws -> SyncState {
        guard let state = try store.syncState(named: name) else { throw SyncError.syncNotFound(name) }
        return try await reSync(id: state.id, onUpdate: onUpdate)
    }

    // MARK: - Running

    /// The most records one fetched page may hold. Built-in targets return at most 2,000 (the
    /// REST API's largest batch); the limit stops a custom target from building one journal
    /// entry larger than the journal accepts.
    public static let pageRecordCountMax = 100_000

    /// Checks that the sync may run, journals it RUNNING(0, -1) and makes it active: from here
    /// on it shows RUNNING, even while it waits for its turn.
    func submit(id: Int64, isReSync: Bool, onUpdate: UpdateHandler?) throws -> SyncDownRun {
        guard var sync = try store.syncState(id: id) else { throw SyncError.syncNotFound(String(id)) }
        guard sync.type == .syncDown else {
            throw SyncError(.wrongType, "Sync \(id) is a sync up; this manager runs sync down only.")
        }
        try enterActive(id)
        if isReSync { sync.prepareForReSync() }
        let run = SyncDownRun(sync, startedAt: now())
        do {
            try store.journal.append(run.state.changedEntryDraft)
        } catch {
            leaveActive(id)
            throw error
        }
        report(run.state, onUpdate)
        return run
    }

    /// Waits for the sync's turn, runs it, journals and reports its final state.
    func execute(_ run: SyncDownRun, onUpdate: UpdateHandler?) async throws -> SyncState {
        await takeTurn()
        defer { turns.release() }
        let final: SyncState
        do {
            final = try await perform(run, onUpdate: onUpdate)
        } catch {
            leaveActive(run.state.id)
            throw error
        }
        // Mobile SDK leaves the active set before the final callback, so the callback may reSync.
        leaveActive(run.state.id)
        report(final, onUpdate)
        return final
    }

    func takeTurn() async {
        guard !turns.tryTake() else { return }
        await withCheckedContinuation { turns.enqueue($0) }
    }

    /// Makes the sync active, in one step with the checks so that a concurrent ``stop()`` either
    /// sees it active or makes it refused: Mobile SDK checks "still running" first, then
    /// "accepting". Active also means owned: the sync's lease is taken here, so a sync that
    /// another process (or another manager of this store) runs, queues or cleans is refused as
    /// still running, and ``leaveActive(_:)`` gives the lease back.
    ///
    /// - Parameter requiresAccepting: `false` for work a stopped manager still does (deleting).
    func enterActive(_ id: Int64, requiresAccepting: Bool = true) throws(SyncError) {
        let outcome = scheduling.withLock { scheduling -> SyncError? in
            guard scheduling.active[id] == nil else { return SyncError.syncRunning(id: id) }
            guard !requiresAccepting || scheduling.state == .acceptingSyncs else {
                return SyncError.managerStopped(state: scheduling.state.rawValue)
            }
            do throws(SyncError) {
                guard let lease = try store.leases.acquire(syncId: id) else { return .syncRunningElsewhere(id: id) }
                scheduling.active[id] = lease
                return nil
            } catch {
                return error
            }
        }
        if let outcome { throw outcome }
    }

    /// Makes the sync inactive and releases its lease.
    func leaveActive(_ id: Int64) {
        let waiters = scheduling.withLock { scheduling -> [CheckedContinuation<Void, Never>] in
            scheduling.active[id] = nil
            guard scheduling.state == .stopRequested, scheduling.active.isEmpty else { return [] }
            scheduling.state = .stopped
            defer { scheduling.stopWaiters.removeAll() }
            return scheduling.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The page loop of Mobile SDK's `SyncDownTask`: each fetched page is one journal entry
    /// (records, merge mode and watermark), checked for a stop request before it is appended.
    /// Fetch and fold errors end the run FAILED; only a failure to journal the final state throws.
    private func perform(_ started: SyncDownRun, onUpdate: UpdateHandler?) async throws -> SyncState {
        var run = started
        guard state == .acceptingSyncs else { return try finish(&run, .stopped) }
        guard let descriptor = run.state.syncDownTarget else { return try finish(&run, .failed, "not a sync down") }
        var context = SyncDownContext(
            syncId: run.state.id, soupName: run.state.soupName, soups: store.soups, client: client, logger: logger)
        context.settledThrough = run.state.settledThrough
        // Fetched pages not committed yet: at most `pagesPerCommit`, and none when that is 1.
        var pending: [(page: SyncDownPage, fetched: FetchedPage)] = []
        /// Commits the pending pages in one transaction, then reports their progress in order.
        func commitPending() throws {
            guard !pending.isEmpty else { return }
            let group = pending
            pending.removeAll()
            // Each page's fold says how many of its records it left alone (decision 0325).
            let leftAlone = try store.soups.appendFetchedPages(group.map(\.fetched))
            for ((page, _), count) in zip(group, leftAlone) {
                for state in run.apply(page, leftAlone: count) { report(state, onUpdate) }
            }
        }
        do {
            var target = try targets.makeTarget(for: descriptor)
            var records: [JSONValue]? = try await target.startFetch(context, maxTimeStamp: run.targetMaxTimeStamp)
            var pageNumber: Int64 = 0
            while let batch = records {
                guard state == .acceptingSyncs else {
                    try commitPending()
                    return try finish(&run, .stopped)
                }
                guard batch.count <= Self.pageRecordCountMax else {
                    try commitPending()
                    let message = "A page of \(batch.count) records exceeds the limit of \(Self.pageRecordCountMax)."
                    return try finish(&run, .failed, message)
                }
                let saved = try await target.recordsToSave(batch, context)
                guard saved.count <= batch.count else {
                    try commitPending()
                    let message =
                        "The target's recordsToSave returned \(saved.count) records for a page of \(batch.count)."
                    return try finish(&run, .failed, message)
                }
                // Pure work, on both cores: it reads no clock, id or randomness (decision 0032).
                let serialized = await SerializedPage.serializing(records: saved)
                let page = Self.page(
                    batch, saving: saved, bytes: serialized.bytes, number: pageNumber, of: target, for: run.state)
                pending.append(
                    (page, FetchedPage(draft: page.serializedJournalDraft, page: serialized, records: saved)))
                if pending.count >= pagesPerCommit { try commitPending() }
                pageNumber += 1
                records = try await target.continueFetch(context)
            }
            try commitPending()
            run.settle(serverReadTime: target.serverReadTime, overlapSeconds: descriptor.reSyncOverlapSeconds)
            return try finish(&run, .done)
        } catch {
            // Pages fetched before a failed fetch are kept, as they are when each page commits alone.
            do {
                try commitPending()
            } catch let commitError {
                logger.warning(
                    "Sync down could not keep its fetched pages",
                    metadata: ["sync.id": "\(run.state.id)", "sync.error": "\(commitError)"])
            }
            logger.warning("Sync down failed", metadata: ["sync.id": "\(run.state.id)", "sync.error": "\(error)"])
            return try finish(&run, .failed, "\(error)")
        }
    }

    /// The entry of one fetched page: its destination (the sync's soup, unless the target says
    /// otherwise), its watermark and record count (from the records as fetched, as Mobile SDK
    /// counts progress) and the run's bookkeeping; it holds the records the target saves
    /// (`saved`, serialized as `bytes`, never more than were fetched).
    private static func page(
        _ records: [JSONValue], saving saved: [JSONValue], bytes: [UInt8], number: Int64,
        of target: any SyncDownTarget, for sync: SyncState
    ) -> SyncDownPage {
        let destination =
            target.pageDestination
            ?? SyncDownPageDestination(
                soupName: sync.soupName, idFieldName: target.idFieldName,
                modificationDateFieldName: target.modificationDateFieldName)
        let maxTimeStamp =
            if let children = destination.children {
                SyncDownPage.latestModificationTimeStamp(
                    ofParents: records, fieldName: destination.modificationDateFieldName, children: children)
            } else {
                SyncDownPage.latestModificationTimeStamp(
                    of: records, fieldName: destination.modificationDateFieldName)
            }
        return SyncDownPage(
            syncId: sync.id, soupName: destination.soupName, pageNumber: number, records: bytes,
            totalSize: target.totalSize, maxTimeStamp: maxTimeStamp,
            advancesWatermark: target.isSortedByModificationDate, idFieldName: destination.idFieldName,
            mergeMode: sync.options.mergeMode, modificationDateFieldName: destination.modificationDateFieldName,
            reSyncWindow: target.reSyncWindow, children: destination.children, recordCount: Int64(records.count))
    }

    private func finish(_ run: inout SyncDownRun, _ status: SyncStatus, _ error: String = "") throws -> SyncState {
        let final = run.finish(status, at: now(), error: error)
        try store.journal.append(final.changedEntryDraft)
        logger.info(
            "Sync down ended", metadata: ["sync.id": "\(final.id)", "sync.status": "\(final.status.rawValue)"])
        return final
    }

    /// Throws Mobile SDK's "sync manager has state:<STATE>" unless the manager accepts syncs.
    func checkAccepting() throws(SyncError) {
        let managerState = state
        guard managerState == .acceptingSyncs else { throw SyncError.managerStopped(state: managerState.rawValue) }
    }

    func now() -> Int64 {
        clock.now().millisecondsSinceEpoch
    }
}
