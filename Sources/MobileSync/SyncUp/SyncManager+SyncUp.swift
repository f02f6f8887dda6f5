import EventJournal
import Logging
import Soups
import Synchronization

extension SyncManager {
    /// Creates a sync up without running it: status NEW.
    ///
    /// - Parameters:
    ///   - target: where records go; the sObject Collections target by default.
    ///   - options: the merge mode and the field list used when the target names none.
    ///   - soupName: the soup whose dirty records are sent; it must exist.
    ///   - name: an optional unique name.
    /// - Returns: the new sync's state.
    /// - Throws: ``SyncError/Code/duplicateName`` ("Failed to create sync up: there is already a
    ///   sync with name:<name>"), `SoupError` for an unknown soup, `JournalError` for storage.
    @discardableResult
    public func createSyncUp(
        target: SyncUpTargetDescriptor = SyncUpTargetDescriptor(), options: SyncOptions, soupName: String,
        name: String? = nil
    ) throws -> SyncState {
        try createSync(target: .syncUp(target), options: options, soupName: soupName, name: name)
    }

    /// Creates a sync up and runs it.
    ///
    /// Progress follows Mobile SDK: `RUNNING(0,-1)`, `RUNNING(0,N)` with N the dirty records,
    /// `RUNNING(p,N)` as batches are answered, then `DONE(100)`; a run that fails ends
    /// `FAILED(p,N)`, with N counted even when it fails before sending anything. Records the server refuses do
    /// not fail the sync: they keep their changes and `__last_error__`, and the final state's
    /// ``SyncState/syncUpSummary`` and ``SyncState/failures`` list them.
    ///
    /// - Returns: the final state: DONE, FAILED (a request's result is unknown, or the target
    ///   cannot send; ``SyncState/error`` says why) or STOPPED.
    /// - Throws: what ``createSyncUp(target:options:soupName:name:)`` throws, or
    ///   ``SyncError/Code/managerStopped``.
    @discardableResult
    public func syncUp(
        target: SyncUpTargetDescriptor = SyncUpTargetDescriptor(), options: SyncOptions, soupName: String,
        name: String? = nil, onUpdate: UpdateHandler? = nil
    ) async throws -> SyncState {
        let created = try createSyncUp(target: target, options: options, soupName: soupName, name: name)
        return try await runSyncUp(id: created.id, onUpdate: onUpdate)
    }

    /// Runs an existing sync up: journals it RUNNING, waits for its turn, sends the dirty records.
    func runSyncUp(id: Int64, onUpdate: UpdateHandler?) async throws -> SyncState {
        guard var sync = try store.syncState(id: id) else { throw SyncError.syncNotFound(String(id)) }
        guard case .syncUp(let descriptor) = sync.target else {
            throw SyncError(.wrongType, "Sync \(id) is a sync down, not a sync up.")
        }
        try enterActive(id)
        sync.totalSize = -1
        sync.start(at: now())
        do {
            try store.journal.append(sync.changedEntryDraft)
        } catch {
            leaveActive(id)
            throw error
        }
        report(sync, onUpdate)
        await takeTurn()
        defer { turns.release() }
        let final: SyncState
        do {
            final = try await performSyncUp(sync, descriptor, onUpdate: onUpdate)
        } catch {
            leaveActive(id)
            throw error
        }
        leaveActive(id)
        report(final, onUpdate)
        return final
    }

    private func performSyncUp(
        _ started: SyncState, _ descriptor: SyncUpTargetDescriptor, onUpdate: UpdateHandler?
    ) async throws -> SyncState {
        var sync = started
        guard state == .acceptingSyncs else { return try finishSyncUp(&sync, .stopped) }
        let progress = SyncUpProgress(sync)
        do {
            let shouldStop: @Sendable () -> Bool = { [weak self] in self?.state != .acceptingSyncs }
            let report: @Sendable (Int, Int) async -> Void = { done, total in
                for state in progress.advance(done: done, total: total) { await self.report(state, onUpdate) }
            }
            let (summary, stopped): (SyncUpSummary, Bool)
            if case .parentChildren = descriptor.kind {
                guard let client else {
                    throw SyncError(
                        .notConnected, "Sync up needs a Salesforce connection and the sync manager has none.")
                }
                let runner = ParentChildrenSyncUpRunner(
                    store: store, target: try ParentChildrenSyncUpTarget(descriptor, client: client), syncId: sync.id,
                    options: sync.options)
                (summary, stopped) = try await runner.run(shouldStop: shouldStop, progress: report)
            } else {
                let runner = SyncUpRunner(
                    store: store, target: try syncUpTargets.makeTarget(for: descriptor, client: client),
                    syncId: sync.id, soupName: sync.soupName, options: sync.options, client: client)
                (summary, stopped) = try await runner.run(shouldStop: shouldStop, progress: report)
            }
            sync = progress.current
            sync.syncUpSummary = summary
            for failure in summary.failed {
                sync.failures.record(
                    SyncState.FailureSummary.RecordFailure(
                        recordId: failure.id ?? String(failure.entryId), message: failure.message))
            }
            return try finishSyncUp(&sync, stopped ? .stopped : .done)
        } catch {
            logger.warning("Sync up failed", metadata: ["sync.id": "\(sync.id)", "sync.error": "\(error)"])
            // Mobile SDK sets the total to the dirty records before sending anything, so a failed
            // sync up reads FAILED with its total and the progress it reached. A failure before
            // the runner listed them (no target, a reconciliation that could not finish) counts
            // them now: nothing of this run was sent yet.
            sync = progress.current
            if sync.totalSize < 0 { sync.totalSize = Int64(try store.soups.dirtyRecords(sync.soupName).count) }
            return try finishSyncUp(&sync, .failed, "\(error)")
        }
    }

    private func finishSyncUp(_ sync: inout SyncState, _ status: SyncStatus, _ error: String = "") throws -> SyncState {
        sync.finish(status, at: now(), error: error)
        try store.journal.append(sync.changedEntryDraft)
        logger.info("Sync up ended", metadata: ["sync.id": "\(sync.id)", "sync.status": "\(sync.status.rawValue)"])
        return sync
    }
}

/// The progress states of one sync-up run, in Mobile SDK's sequence. The runner reports from
/// its own task, so the state sits behind a lock.
private final class SyncUpProgress: Sendable {
    private let state: Mutex<SyncState>

    init(_ state: SyncState) {
        self.state = Mutex(state)
    }

    /// The state as far as the run got.
    var current: SyncState {
        state.withLock { $0 }
    }

    /// The states to report now that `done` of `total` records are processed.
    func advance(done: Int, total: Int) -> [SyncState] {
        state.withLock { current in
            if done == 0 {
                current.recordTotalSize(Int64(total))
                return [current]
            }
            return current.recordSaved(count: Int64(done)) ? [current] : []
        }
    }
}
