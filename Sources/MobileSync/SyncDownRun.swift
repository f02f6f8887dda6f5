/// The fold of one sync-down run: its state after each fetched page, with Mobile SDK's progress
/// reports and watermark rule.
///
/// ```swift
/// var run = SyncDownRun(state, startedAt: now)                          // RUNNING(0, -1)
/// let reports = run.apply(page, fetchedCount: 2, unchangedCount: 0)     // RUNNING(0, 5), RUNNING(40, 5)
/// run.finish(.done, at: later)                                          // DONE(100, 5)
/// ```
///
/// Records a page fetched again with the date the soup's copy already has (the overlap of a
/// reSync, decision 0321) are not changes: they are left out of the progress and out of
/// `totalSize`, which is the target's count minus the unchanged records seen so far. The final
/// state's `totalSize` is then the number of records the run really brought.
public struct SyncDownRun: Hashable, Sendable {
    /// The sync's state as of the last step.
    public private(set) var state: SyncState
    /// Records fetched so far in this run, skipped ones included (they count toward progress).
    public private(set) var fetchedCount: Int64
    /// Records fetched so far that the soup already held with the same modification date.
    public private(set) var unchangedCount: Int64
    /// The latest modification seen in this run, starting from the persisted watermark.
    public private(set) var latestModification: Int64
    /// The watermark handed to the target's `startFetch`: the sync's own, or for a STOPPED sync
    /// one millisecond before it (``SyncState/resumePoint(afterStoppedAt:)``), as in Mobile SDK.
    /// The state's watermark itself never moves backwards.
    public let targetMaxTimeStamp: Int64
    /// The target's count for the run, as fetched; `-1` until page 0.
    private var targetTotalSize: Int64 = -1

    /// Starts a run of `state`: RUNNING, progress 0, `totalSize` as stored.
    ///
    /// Pass a state already prepared with ``SyncState/prepareForReSync()`` when re-running.
    public init(_ state: SyncState, startedAt time: Int64) {
        targetMaxTimeStamp =
            state.status == .stopped ? SyncState.resumePoint(afterStoppedAt: state.maxTimeStamp) : state.maxTimeStamp
        var started = state
        started.start(at: time)
        self.state = started
        fetchedCount = 0
        unchangedCount = 0
        latestModification = state.maxTimeStamp
    }

    /// Applies one fetched page.
    ///
    /// The first page (number 0) first reports the run's `totalSize` at progress 0. Then the
    /// page's changed records are counted and, while fewer than `totalSize`, the progress is
    /// reported. A page of a target sorted by modification date moves the watermark now; other
    /// targets move it only at DONE. The watermark only ever moves forward.
    ///
    /// - Parameters:
    ///   - page: the page, as journaled.
    ///   - count: how many records the page holds, skipped ones included.
    ///   - unchanged: how many of them the soup fold left alone because the soup held them
    ///     with the same modification date already.
    /// - Returns: the states to report, in order (possibly none).
    public mutating func apply(_ page: SyncDownPage, fetchedCount count: Int, unchangedCount unchanged: Int = 0)
        -> [SyncState]
    {
        precondition(page.syncId == state.id, "a page is applied to its own sync's run")
        precondition(count >= 0, "a page holds a non-negative number of records")
        precondition((0...count).contains(unchanged), "unchanged records are some of the page's records")
        var reports: [SyncState] = []
        fetchedCount += Int64(count)
        unchangedCount += Int64(unchanged)
        if page.pageNumber == 0 {
            targetTotalSize = page.totalSize
            state.recordTotalSize(changeTotal)
            reports.append(state)
        } else {
            state.totalSize = changeTotal
        }
        latestModification = max(latestModification, page.maxTimeStamp)
        if page.advancesWatermark { state.maxTimeStamp = latestModification }
        if state.recordSaved(count: fetchedCount - unchangedCount) { reports.append(state) }
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

    /// The target's count without the unchanged records seen so far; `-1` while unknown.
    private var changeTotal: Int64 {
        targetTotalSize < 0 ? targetTotalSize : max(0, targetTotalSize - unchangedCount)
    }
}
