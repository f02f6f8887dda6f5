import Logging
import Synchronization

/// The observers of one ``Journal``, what they wait for, and the one watcher that notices
/// commits made by other processes.
///
/// Observers never read the journal here: each waits for the fold mark to pass the sequence
/// its own snapshot was folded through, then reads a new snapshot itself. So a wake-up can be
/// early or shared by many commits, never missed: the fold mark only grows, and
/// ``notice(_:)`` is called after every commit of this instance and after every check of the
/// watcher.
final class JournalObservers: Sendable {
    private struct Waiter {
        /// The observer wakes once a fold mark past this sequence is noticed.
        let after: UInt64
        let continuation: CheckedContinuation<UInt64?, Never>
    }

    private struct State {
        var observerCount = 0
        var nextKey: UInt64 = 0
        /// The newest fold mark anyone noticed.
        var noticed: UInt64 = 0
        /// Each wait's continuation, by a key of its own: copies of one iterator may wait at once.
        var waiters: [UInt64: Waiter] = [:]
        var nextWaitKey: UInt64 = 0
        var watcher: Task<Void, Never>?
        /// Watcher tasks started and not yet returned; at most one is current, a cancelled
        /// one may still be finishing its last check.
        var runningWatcherCount = 0
        var startedWatcherCount = 0
        var evaluationCount = 0
        var isClosed = false
    }

    private let state = Mutex(State())

    // MARK: - Observers

    /// Registers an observer, starting the watcher if it is the first.
    /// - Returns: the observer's key, for ``unregister(_:)``.
    func register(_ journal: Journal) -> UInt64 {
        state.withLock { state in
            let key = state.nextKey
            state.nextKey += 1
            state.observerCount += 1
            if state.watcher == nil, !state.isClosed, let interval = journal.options.observation.pollInterval {
                state.runningWatcherCount += 1
                state.startedWatcherCount += 1
                state.watcher = watch(journal, clock: journal.options.observation.clock, every: interval)
            }
            return key
        }
    }

    /// Removes an observer; the last one stops the watcher.
    ///
    /// An observer is removed when its subscription is released, which no wait of it can
    /// outlive: a wait holds the subscription.
    func unregister(_ key: UInt64) {
        state.withLock { state in
            state.observerCount -= 1
            if state.observerCount == 0 {
                state.watcher?.cancel()
                state.watcher = nil
            }
        }
    }

    /// Waits until a fold mark past `sequence` is noticed, and returns it.
    ///
    /// - Returns: `nil` when the journal closed or the calling task was cancelled.
    func wait(after sequence: UInt64) async -> UInt64? {
        let key = state.withLock { state in
            defer { state.nextWaitKey += 1 }
            return state.nextWaitKey
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Cancellation sets the flag before it runs the handler below, and both look
                // under the lock: either this sees the flag or the handler sees the waiter.
                let answer = state.withLock { state -> UInt64?? in
                    if state.isClosed || Task.isCancelled { return .some(nil) }
                    if state.noticed > sequence { return .some(state.noticed) }
                    state.waiters[key] = Waiter(after: sequence, continuation: continuation)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: key) }
            waiter?.continuation.resume(returning: nil)
        }
    }

    /// Records that the projections are folded through `sequence`, waking the observers
    /// waiting for it.
    func notice(_ sequence: UInt64) {
        let woken = state.withLock { state -> [Waiter] in
            guard sequence > state.noticed else { return [] }
            state.noticed = sequence
            let woken = state.waiters.filter { $0.value.after < sequence }
            for key in woken.keys { state.waiters[key] = nil }
            return Array(woken.values)
        }
        for waiter in woken { waiter.continuation.resume(returning: sequence) }
    }

    /// The commit signal: called after each write of this instance commits.
    ///
    /// Costs one lock when nobody observes; otherwise one read of the fold mark.
    func committed(_ journal: Journal) {
        guard state.withLock({ $0.observerCount > 0 && !$0.isClosed }) else { return }
        do {
            notice(try journal.lastSequence())
        } catch {
            // The watcher checks again; without one, the next commit does.
            journal.logger.warning("observers could not read the journal after a commit: \(error)")
        }
    }

    /// Ends every observation: waiting observers return `nil`, the watcher stops.
    func close() {
        let waiters = state.withLock { state -> [Waiter] in
            state.isClosed = true
            state.watcher?.cancel()
            state.watcher = nil
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }

    /// Counts one evaluation of an observed value, for tests of when values are re-read.
    func countEvaluation() {
        state.withLock { $0.evaluationCount += 1 }
    }

    var statistics: JournalObserverStatistics {
        state.withLock { state in
            JournalObserverStatistics(
                observerCount: state.observerCount, waitingObserverCount: state.waiters.count,
                runningWatcherCount: state.runningWatcherCount,
                startedWatcherCount: state.startedWatcherCount, evaluationCount: state.evaluationCount)
        }
    }

    // MARK: - The watcher

    /// Starts the task that checks the fold mark every `interval` until it is cancelled, the
    /// journal closes or is released.
    private func watch(_ journal: Journal, clock: any Clock<Duration>, every interval: Duration) -> Task<Void, Never> {
        // A watcher that never waits would spin: an interval below the floor is the floor.
        let interval = max(interval, ObservationOptions.pollIntervalMin)
        // Weak: a journal nobody else holds is released, and its watcher stops.
        return Task { [weak journal] in
            defer { state.withLock { $0.runningWatcherCount -= 1 } }
            while !Task.isCancelled, check(journal) {
                do {
                    try await clock.sleep(for: interval)
                } catch {
                    return  // cancelled: the last observer left or the journal closed
                }
            }
        }
    }

    /// Reads the fold mark once and notices it.
    /// - Returns: whether to go on watching.
    private func check(_ journal: Journal?) -> Bool {
        guard let journal else { return false }
        do {
            notice(try journal.lastSequence())
            return true
        } catch JournalError.Code.closed {
            close()
            return false
        } catch {
            journal.logger.warning("the journal watcher could not read the fold mark: \(error)")
            return true
        }
    }
}

/// What a journal's observers are doing, for tests that check nothing is left behind.
package struct JournalObserverStatistics: Hashable, Sendable {
    /// Observations whose iterator is alive.
    package var observerCount: Int
    /// Observers waiting for the next commit.
    package var waitingObserverCount: Int
    /// Watcher tasks that have not returned yet.
    package var runningWatcherCount: Int
    /// Watcher tasks started since the journal opened.
    package var startedWatcherCount: Int
    /// How many times an observed value was read again after a commit.
    package var evaluationCount: Int
}
