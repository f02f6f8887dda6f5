/// The fold of one sync-down run: its state after each fetched page, with Mobile SDK's progress
/// reports and watermark rule.
///
/// ```swift
/// var run = SyncDownRun(state, startedAt: now)                          // RUNNING(0, -1)
/// let reports = run.apply(page, leftAlone: 0)   // a page 0 of 2 records: RUNNING(0, 5), RUNNING(40, 5)
/// run.finish(.done, at: later)                                          // DONE(100, 5)
/// ```
///
/// `totalSize` is the target's count and progress counts every fetched record, as in Mobile
/// SDK; records the page fold left alone because only the reSync's window brought them
/// (decision 0325) are counted in ``SyncState/fetchedCount`` but not in
/// ``SyncState/changedCount``: the fold tells the engine how many (`SyncStore.appendFetchedPages`).
package struct SyncDownRun: Hashable, Sendable {
    /// The sync's state as of the last step.
    public private(set) var state: SyncState
    /// The latest modification seen in this run, starting from the persisted watermark.
    public private(set) var latestModification: Int64
    /// The watermark handed to the target's `startFetch`: the sync's own, or for a STOPPED sync
    /// one millisecond before it (``SyncState/resumePoint(afterStoppedAt:)``), as in Mobile SDK.
    /// The state's watermark itself never moves backwards.
    package let targetMaxTimeStamp: Int64

    /// Starts a run of `state`: RUNNING, progress 0, `totalSize` as stored.
    ///
    /// Pass a state already prepared with ``SyncState/prepareForReSync()`` when re-running.
    package init(_ state: SyncState, startedAt time: Int64) {
        targetMaxTimeStamp =
            state.status == .stopped ? SyncState.resumePoint(afterStoppedAt: state.maxTimeStamp) : state.maxTimeStamp
        var started = state
        started.start(at: time)
        self.state = started
        latestModification = state.maxTimeStamp
    }

    /// Applies one fetched page (``SyncState/applyPage(_:leftAlone:)``), and remembers its
    /// latest modification for DONE.
    ///
    /// - Parameters:
    ///   - page: the page, as journaled, with its `SyncDownPage.recordCount`.
    ///   - leftAlone: how many of its records the page fold left alone (decision 0325).
    /// - Returns: the states to report, in order (possibly none).
    package mutating func apply(_ page: SyncDownPage, leftAlone: Int = 0) -> [SyncState] {
        precondition(page.syncId == state.id, "a page is applied to its own sync's run")
        precondition((0...max(0, page.recordCount)).contains(Int64(leftAlone)), "left alone are some of the records")
        latestModification = max(latestModification, page.maxTimeStamp)
        return state.applyPage(page, leftAlone: Int64(leftAlone))
    }

    /// Records, before a DONE, that the run read the org at `serverReadTime` on the server's
    /// clock: every record dated up to that time, less `overlapSeconds` a transaction may take
    /// and 2 s for the `Date`'s whole seconds and the time between the read and the answer, was
    /// committed before the read, so the run has seen it (``SyncState/settledThrough``).
    package mutating func settle(serverReadTime: Int64, overlapSeconds: Int) {
        guard serverReadTime >= 0 else { return }
        let settled = serverReadTime - 2000 - Int64(overlapSeconds) * 1000
        state.settledThrough = max(state.settledThrough, settled)
    }

    /// Ends the run. DONE moves the watermark to the latest modification of the run; FAILED and
    /// STOPPED keep the watermark as the last sorted page left it.
    ///
    /// - Returns: the final state, to report and journal.
    @discardableResult
    package mutating func finish(_ status: SyncStatus, at time: Int64, error: String = "") -> SyncState {
        if status == .done { state.maxTimeStamp = latestModification }
        state.finish(status, at: time, error: error)
        return state
    }
}
