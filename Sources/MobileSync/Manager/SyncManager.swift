public import Determinism
import EventJournal
public import Logging
public import SalesforceAPI
import Synchronization

/// Runs a store's syncs: Mobile SDK's `SyncManager` on the journal.
///
/// One manager per ``SyncStore``. Syncs run one at a time in submission order; a sync waiting
/// for its turn already shows RUNNING. Every status change, every fetched page (records and
/// watermark in one entry) and every ghost cleaning is a journal entry, so ``SyncStore`` state
/// read after a crash is exactly what was committed.
///
/// ```swift
/// let manager = try SyncManager(store: store, client: client, clock: SystemWallClock(), logger: logger)
/// let target = try SyncDownTargetDescriptor(.soql(query: "SELECT Name FROM Account"))
/// let done = try await manager.syncDown(
///     target: target, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "accounts", name: "accounts")
/// let again = try await manager.reSync(name: "accounts")   // only records changed since
/// ```
///
/// Progress is reported to the `onUpdate` callback of the call that started the sync and to
/// every ``updates()`` stream, in Mobile SDK's sequence: `RUNNING(0,-1)`, `RUNNING(0,total)`,
/// `RUNNING(p,total)` while below the total, then `DONE(100)` (or FAILED/STOPPED with the
/// progress reached).
public actor SyncManager {
    /// Whether the manager takes new syncs.
    public enum State: String, Sendable, Hashable {
        /// Syncs run as submitted.
        case acceptingSyncs = "ACCEPTING_SYNCS"
        /// ``stop()`` was called while syncs were active; they stop at their next check.
        case stopRequested = "STOP_REQUESTED"
        /// Nothing runs and nothing is accepted until ``restart(restartStoppedSyncs:onUpdate:)``.
        case stopped = "STOPPED"
    }

    /// Receives each new state of a sync.
    public typealias UpdateHandler = @Sendable (SyncState) -> Void

    /// The store the syncs live in.
    public nonisolated let store: SyncStore
    let client: SalesforceClient?
    let targets: SyncDownTargetRegistry
    let syncUpTargets: SyncUpTargetRegistry
    let clock: any WallClock
    let logger: Logger
    /// How many fetched pages a sync down commits in one write transaction.
    let pagesPerCommit: Int
    /// The manager state and the active (running or queued) sync ids. A mutex rather than actor
    /// state, so that ``stop()`` can be called from anywhere, a progress callback included.
    let scheduling: Mutex<Scheduling>
    var turns = SyncTurns()
    var subscribers: [UInt64: AsyncStream<SyncState>.Continuation] = [:]
    var nextSubscriberKey: UInt64 = 0

    struct Scheduling {
        var state: State = .acceptingSyncs
        /// The active syncs, each with the lease that makes this process its owner.
        var active: [Int64: SyncLease] = [:]
        /// Callers of ``SyncManager/stopAndWait()`` waiting for the active syncs to stop.
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Opens the manager of `store`. Syncs found RUNNING that no live process owns (their
    /// process ended mid-run) are journaled as STOPPED first, and
    /// ``restart(restartStoppedSyncs:onUpdate:)`` with `true` picks them up again; a sync another
    /// process is running stays RUNNING, and this manager refuses to run it until it ends.
    ///
    /// - Parameters:
    ///   - store: the store whose syncs this manager runs.
    ///   - client: the Salesforce connection; `nil` when only custom targets that need none run.
    ///   - targets: the custom sync-down targets, by name.
    ///   - syncUpTargets: the custom sync-up targets, by name.
    ///   - clock: gives `startTime` and `endTime`.
    ///   - logger: where the manager logs; it never creates one.
    ///   - pagesPerCommit: how many fetched pages a sync down commits in one write transaction.
    ///     Each page stays its own journal entry with its own watermark; a larger group makes
    ///     a long sync down cheaper (its index pages are copied once per group instead of once
    ///     per page: docs/benchmarks-log.md), at the cost of holding the group's records in memory,
    ///     re-fetching up to a group after a crash, and reporting the group's progress together.
    ///     1, the default, commits every page as it arrives, as Mobile SDK does.
    /// - Throws: `JournalError` when the store cannot be read or written.
    public init(
        store: SyncStore, client: SalesforceClient?, targets: SyncDownTargetRegistry = SyncDownTargetRegistry(),
        syncUpTargets: SyncUpTargetRegistry = SyncUpTargetRegistry(), clock: any WallClock, logger: Logger,
        pagesPerCommit: Int = 1
    ) throws {
        guard pagesPerCommit >= 1 else {
            throw SyncError(.malformedOptions, "pagesPerCommit must be at least 1, not \(pagesPerCommit).")
        }
        self.pagesPerCommit = pagesPerCommit
        self.store = store
        self.client = client
        self.targets = targets
        self.syncUpTargets = syncUpTargets
        self.clock = clock
        self.logger = logger
        scheduling = Mutex(Scheduling())
        try Self.stopInterruptedSyncs(in: store, logger: logger)
    }

    deinit {
        // Streams end with their manager, so `for await` loops over ``updates()`` finish.
        for continuation in subscribers.values { continuation.finish() }
    }

    /// The manager's state.
    public nonisolated var state: State {
        scheduling.withLock { $0.state }
    }

    /// Whether a stop was requested and active syncs have not all stopped yet.
    public nonisolated var isStopping: Bool {
        state == .stopRequested
    }

    /// Whether the manager is stopped.
    public nonisolated var isStopped: Bool {
        state == .stopped
    }

    /// Stops the manager: STOPPED at once when nothing is active, otherwise STOP_REQUESTED until
    /// the active syncs (running and queued) have stopped. Safe to call from any thread.
    public nonisolated func stop() {
        scheduling.withLock { scheduling in
            guard scheduling.state == .acceptingSyncs else { return }
            scheduling.state = scheduling.active.isEmpty ? .stopped : .stopRequested
        }
        logger.info("Sync manager stop requested", metadata: ["sync.manager.state": "\(state.rawValue)"])
    }

    /// Stops the manager as ``stop()`` does and returns once it is STOPPED: every active sync has
    /// ended (a running sync down ends STOPPED after its current fetch, with the pages before it
    /// kept and its final state journaled). What logging out does before removing a store.
    public func stopAndWait() async {
        stop()
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let isStopped = scheduling.withLock { scheduling in
                guard scheduling.state != .stopped else { return true }
                scheduling.stopWaiters.append(waiter)
                return false
            }
            if isStopped { waiter.resume() }
        }
    }

    /// Re-opens a stopping or stopped manager; does nothing to an accepting one.
    ///
    /// - Parameters:
    ///   - restartStoppedSyncs: also re-sync every sync whose status is STOPPED; each target
    ///     resumes from the watermark − 1 ms so that records sharing the last applied time are
    ///     fetched again (the sync's watermark itself does not move back).
    ///   - onUpdate: receives the restarted syncs' states.
    /// - Returns: the final states of the restarted syncs, by id.
    /// - Throws: `JournalError` when the store cannot be read or written.
    @discardableResult
    public func restart(restartStoppedSyncs: Bool, onUpdate: UpdateHandler? = nil) async throws -> [SyncState] {
        let (reopened, waiters) = scheduling.withLock { scheduling -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard scheduling.state != .acceptingSyncs else { return (false, []) }
            scheduling.state = .acceptingSyncs
            // A restart cancels the stop that waiters were waiting for: they go on.
            defer { scheduling.stopWaiters.removeAll() }
            return (true, scheduling.stopWaiters)
        }
        for waiter in waiters { waiter.resume() }
        guard reopened else {
            logger.info("Sync manager restart ignored: it is accepting syncs")
            return []
        }
        guard restartStoppedSyncs else { return [] }
        let stopped = try store.syncStates().filter { $0.status == .stopped && $0.type == .syncDown }
        var runs: [SyncDownRun] = []
        for sync in stopped { runs.append(try submit(id: sync.id, isReSync: true, onUpdate: onUpdate)) }
        var finals: [SyncState] = []
        for run in runs { finals.append(try await execute(run, onUpdate: onUpdate)) }
        for sync in try store.syncStates() where sync.status == .stopped && sync.type == .syncUp {
            finals.append(try await runSyncUp(id: sync.id, onUpdate: onUpdate))
        }
        return finals
    }

    /// A stream of every state change of every sync this manager runs, from now on.
    ///
    /// The stream ends when the manager is released; stop iterating when you have what you need.
    public func updates() -> AsyncStream<SyncState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncState.self, bufferingPolicy: .unbounded)
        let key = nextSubscriberKey
        nextSubscriberKey += 1
        subscribers[key] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(key) }
        }
        return stream
    }

    func unsubscribe(_ key: UInt64) {
        subscribers[key] = nil
    }

    /// Hands a new state to the caller's callback and to every stream.
    func report(_ state: SyncState, _ onUpdate: UpdateHandler?) {
        onUpdate?(state)
        for continuation in subscribers.values { continuation.yield(state) }
    }

    /// Journals STOPPED for every RUNNING sync whose lease nobody holds.
    ///
    /// The leases are tested inside the write transaction: a process takes a sync's lease before
    /// it journals RUNNING, and it cannot journal while this transaction holds LMDB's writer
    /// lock, so a run that starts now is either seen holding its lease or journals its RUNNING
    /// after this STOPPED.
    private static func stopInterruptedSyncs(in store: SyncStore, logger: Logger) throws {
        // Most opens find nothing RUNNING: a read answers them without a write transaction.
        guard try store.syncStates().contains(where: { $0.status == .running }) else { return }
        try store.journal.write { writer in
            let databases = SyncStateDatabases(writer.transaction, writer.database)
            for var sync in try databases.allStates() where sync.status == .running {
                guard try !store.leases.isHeld(syncId: sync.id) else { continue }
                sync.stopAfterInterruptedRun()
                try writer.append(sync.changedEntryDraft)
                logger.info("Interrupted sync marked STOPPED", metadata: ["sync.id": "\(sync.id)"])
            }
        }
    }
}
