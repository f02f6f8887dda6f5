extension SyncState {
    /// Starts a run: RUNNING, progress 0, `startTime` set, end time, error and counts cleared.
    ///
    /// `totalSize` keeps its stored value, so the first progress report of a fresh or re-synced
    /// sync is `RUNNING(0, -1)`.
    public mutating func start(at time: Int64) {
        status = .running
        progress = 0
        startTime = time
        endTime = 0
        error = ""
        failures = FailureSummary()
        fetchedCount = 0
        changedCount = 0
    }

    /// Prepares an existing sync to run again: `totalSize` back to -1.
    ///
    /// The watermark stays: it never moves backwards. Mobile SDK lowers a STOPPED sync's
    /// watermark by 1 ms here; this library hands that value to the target instead
    /// (`SyncDownRun.targetMaxTimeStamp`), so a STOPPED run that fetches nothing still ends
    /// with the watermark it started from (decision 0321).
    public mutating func prepareForReSync() {
        totalSize = -1
    }

    /// The watermark a STOPPED sync's target resumes from: one millisecond before
    /// `maxTimeStamp`, never below -1, so records sharing the last applied time that a page
    /// boundary split are fetched again.
    public static func resumePoint(afterStoppedAt maxTimeStamp: Int64) -> Int64 {
        max(maxTimeStamp - 1, -1)
    }

    /// Applies one committed page of the run, as Mobile SDK's sync-down loop does: page 0 sets
    /// `totalSize` to the target's count at progress 0, every page adds its records to
    /// ``fetchedCount`` (and those not left alone to ``changedCount``), progress becomes
    /// `fetchedCount * 100 / totalSize` while below the total, and a page of a target sorted by
    /// modification date moves the watermark to `max(current, page)`.
    ///
    /// The page's fold (``SyncStateProjection/applyPage(_:leftAlone:in:)``) and `SyncDownRun`
    /// both apply pages with it, so every process reads the progress the running one reports.
    ///
    /// - Parameters:
    ///   - page: the page, as journaled, with its `SyncDownPage.recordCount`.
    ///   - leftAlone: how many of the page's records its fold left alone (decision 0325); at
    ///     most the page's record count is taken.
    /// - Returns: the progress reports the page makes, in order: page 0's `RUNNING(0, total)`,
    ///   then a new progress if any.
    @discardableResult
    package mutating func applyPage(_ page: SyncDownPage, leftAlone: Int64) -> [SyncState] {
        var reports: [SyncState] = []
        if page.pageNumber == 0 {
            recordTotalSize(page.totalSize)
            reports.append(self)
        }
        let count = max(page.recordCount, 0)
        fetchedCount += count
        // A page without a record count (before decision 0325) changes every record it counts.
        changedCount += count - min(max(leftAlone, 0), count)
        if page.advancesWatermark { maxTimeStamp = max(maxTimeStamp, page.maxTimeStamp) }
        if recordSaved(count: fetchedCount) { reports.append(self) }
        return reports
    }

    /// Records the target's count after the first fetch; the state reports `RUNNING(0, total)` next.
    public mutating func recordTotalSize(_ total: Int64) {
        totalSize = total
        progress = 0
    }

    /// Reports `countSaved` records applied: progress `countSaved * 100 / totalSize` while
    /// fewer than `totalSize` are applied.
    ///
    /// - Returns: whether the progress is a new report (Mobile SDK reports nothing once the
    ///   count reaches the total, or when the total is 0 or unknown).
    @discardableResult
    public mutating func recordSaved(count countSaved: Int64) -> Bool {
        guard totalSize > 0, countSaved < totalSize, countSaved >= 0 else { return false }
        progress = Int(countSaved * 100 / totalSize)
        return true
    }

    /// Ends a run. DONE sets progress to 100; FAILED and STOPPED leave it as it was.
    ///
    /// - Parameters:
    ///   - status: DONE, FAILED or STOPPED.
    ///   - time: the end time, epoch milliseconds.
    ///   - error: the failure's message; empty unless FAILED.
    public mutating func finish(_ status: SyncStatus, at time: Int64, error: String = "") {
        precondition(status.isTerminal, "a run ends DONE, FAILED or STOPPED")
        self.status = status
        if status == .done { progress = 100 }
        endTime = time
        self.error = error
    }

    /// Marks a sync found RUNNING that no live process owns as STOPPED: its run was interrupted
    /// (the process ended), and `restart(restartStoppedSyncs: true)` picks STOPPED syncs up again.
    public mutating func stopAfterInterruptedRun() {
        guard status == .running else { return }
        status = .stopped
    }
}
