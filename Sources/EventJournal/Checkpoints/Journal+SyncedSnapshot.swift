import LMDBStore
import Logging
import Synchronization

// The projections' recovery point after a power loss (decision 0014): their own file, synced
// and pinned, with the pinned snapshot's meta page recorded beside it. Every process pins
// before it writes the projections, so some live pin is never newer than the recorded
// snapshot and LMDB reuses none of its pages; a process replaces its pin only once the newer
// record is durable. After a power loss, opening writes the recorded meta page back and folds
// the journal from the snapshot's fold mark (`JournalOpening`).
extension Journal {
    /// A process's pin, and where the journal stood when it was taken.
    struct SnapshotPin {
        var pinned: PinnedSnapshot
        /// The entry the pinned projections had folded through.
        var sequence: UInt64
        /// The journal's entry pages at the first write after the pin; `nil` until then.
        var journalBytes: Int?
        /// The projections' file in use (up to its last page) when the pin was taken.
        var projectionBytes: Int
    }

    /// Pins the projections' last commit, synced, and records it, unless this process already
    /// holds a pin and `renew` is false. Called in a write transaction of the projections
    /// before it writes anything, so the pin and the record come before any page it frees.
    ///
    /// A pin another environment on the same file in this process ended (LMDB's reader slots
    /// are per process: ``PinnedSnapshot/isHeld``) is taken again here, before the next write.
    /// A store whose checkpoints are turned off keeps no recovery point: nothing is pinned.
    func pinSnapshot(during transaction: Transaction, renew: Bool = false) throws {
        guard pinsSnapshots else { return }
        guard renew || !lifecycle.withLock({ $0.snapshotPin?.pinned.isHeld ?? false }) else { return }
        let pinned = try projectionEnvironment.pinSyncedSnapshot(during: transaction)
        let record = SyncedSnapshotRecord(meta: pinned.meta, foldMark: try store.foldedThrough(transaction))
        if SyncedSnapshotRecord.read(in: layout.projectionDirectory) != record {
            try record.write(in: layout.projectionDirectory)
        }
        let projectionBytes = try projectionEnvironment.usedBytes()
        let replaced = lifecycle.withLock { state in
            defer {
                state.snapshotPin = SnapshotPin(
                    pinned: pinned, sequence: record.foldMark.sequence, projectionBytes: projectionBytes)
            }
            return state.snapshotPin
        }
        replaced?.pinned.release()
    }

    /// Pins and records the projections' state now, in a transaction of its own.
    func pinSnapshotNow() throws {
        try Self.guarded("cannot record a synced snapshot of the projections") {
            try projectionEnvironment.writeOnce { try pinSnapshot(during: $0, renew: true) }
        }
    }

    /// A renewed pin after an append: its failure is logged, never the append's (the older
    /// pin and record stay, so the recovery point is only older).
    func pinSnapshotQuietly() {
        do {
            try pinSnapshotNow()
        } catch {
            logger.error("could not record a synced snapshot of the projections: \(error)")
        }
    }

    /// Whether this process should pin a newer snapshot now that the journal ends at `end`:
    /// after ``CheckpointPolicy/snapshotEntryCountMax`` entries or
    /// ``CheckpointPolicy/snapshotJournalBytesMax`` bytes of entry pages since its pin, which
    /// bound the fold after a power loss, or once the projections' file grew by a quarter (at
    /// least ``CheckpointPolicy/snapshotGrowthBytesMin``), which bounds the pages the pin keeps
    /// from reuse: every commit copies the pages it changes, and none it frees is reused while
    /// the pin lives.
    func isSnapshotDue(_ end: JournalEnd) throws -> Bool {
        let policy = options.checkpoints
        guard pinsSnapshots else { return false }
        let projectionBytes = try projectionEnvironment.usedBytes()
        return lifecycle.withLock { state in
            guard var pin = state.snapshotPin else { return false }
            guard let pinnedBytes = pin.journalBytes else {
                pin.journalBytes = end.journalBytes
                state.snapshotPin = pin
                return false
            }
            return end.lastSequence >= pin.sequence + policy.snapshotEntryCountMax
                || abs(end.journalBytes - pinnedBytes) >= policy.snapshotJournalBytesMax
                || projectionBytes - pin.projectionBytes >= max(policy.snapshotGrowthBytesMin, pin.projectionBytes / 4)
        }
    }

    /// Whether this store pins synced snapshots: checkpoints on and
    /// ``CheckpointPolicy/pinsSyncedSnapshots``.
    var pinsSnapshots: Bool {
        !options.isReadOnly && options.checkpoints.isEnabled && options.checkpoints.pinsSyncedSnapshots
    }

    /// Ends this process's pin, when the journal closes.
    func releaseSnapshotPin() {
        lifecycle.withLock { $0.snapshotPin.take() }?.pinned.release()
    }
}
