/// The fold of one sync-down run: its state after each fetched page, with Mobile SDK's progress
/// reports and watermark rule.
///
/// The engine (live) and the sync-state projection (replaying the journal) drive the same fold,
/// so a replayed run reports exactly what the live run reported:
///
/// ```swift
/// var run = SyncDownRun(state, startedAt: now)       // RUNNING(0, -1)
/// let reports = run.apply(page, fetchedCount: 2)      // RUNNING(0, 5), RUNNING(40, 5)
/// run.finish(.done, at: later)                        // DONE(100, 5)
/// ```
public struct SyncDownRun: Hashable, Sendable {
    /// The sync's state as of the last step.
    public private(set) var state: SyncState
    /// Records fetched so far in this run, skipped ones included (they count toward progress).
    public private(set) var fetchedCount: Int64
    /// The latest modification seen in this run, starting from the persisted watermark.
    public private(set) var latestModification: Int64

    /// Starts a run of `state`: RUNNING, progress 0, `totalSize` as stored.
    ///
    /// Pass a state already prepared with ``SyncState/prepareForReSync()`` when re-running.
    public init(_ state: SyncState, startedAt time: Int64) {
        var started = state
        started.start(at: time)
        self.state = started
        fetchedCount = 0
        latestModification = state.maxTimeStamp
    }

    /// Applies one fetched page.
    ///
    /// The first page (number 0) first reports the target's `totalSize` at progress 0. Then the
    /// page's records are counted and, while fewer than `totalSize` are fetched, the progress is
    /// reported. A page of a target sorted by modification date moves the watermark now; other
    /// targets move it only at DONE.
    ///
    /// - Parameters:
    ///   - page: the page, as journaled.
    ///   - fetchedCount: how many records the page holds, skipped ones included.
    /// - Returns: the states to report, in order (possibly none).
    public mutating func apply(_ page: SyncDownPage, fetchedCount count: Int) -> [SyncState] {
        precondition(page.syncId == state.id, "a page is applied to its own sync's run")
        precondition(count >= 0, "a page holds a non-negative number of records")
        var reports: [SyncState] = []
        if page.pageNumber == 0 {
            state.recordTotalSize(page.totalSize)
            reports.append(state)
        }
        fetchedCount += Int64(count)
        latestModification = max(latestModification, page.maxTimeStamp)
        if page.advancesWatermark { state.maxTimeStamp = latestModification }
        if state.recordSaved(count: fetchedCount) { reports.append(state) }
        return reports
    }

    /// Ends the run. DONE moves the watermark to the latest modification of the run; FAILED and
    /// STOPPED keep the watermark as the last sorted page left it.
    ///
    /// - Returns: the final state, to report and journal.
    @discardableResult
    public mutating func finish(_ status: SyncStatus, at time: Int64, error: String = "") -> SyncState {
        if status == .done { state.maxTimeStamp = latestModification }
        state.finish(status, at: time, error: error)
        return state
    }
}
