import Determinism
import Foundation
import LMDBStore
import Logging
import Synchronization

// Checkpoints and closing (decision 0003). The projections are committed without a sync; a
// checkpoint is a compact synced copy of them, written when the policy says so, and the point
// a store recovers from after a power loss. Closing syncs the projections in place, so a store
// that was closed cleanly is trusted as it is even after a restart.
extension Journal {
    /// Writes a checkpoint of the projections as they are now, unless one exists at their
    /// sequence.
    ///
    /// Appends call this themselves when ``JournalOptions/checkpoints`` says one is due; call
    /// it directly before a long idle period or a backup. It copies from a read snapshot, so
    /// other writers are not held up.
    /// - Returns: the checkpoint's sequence, or `nil` for an empty journal.
    /// - Complexity: O(size of the projections): a compact copy, synced.
    @discardableResult
    public func checkpoint() throws -> UInt64? {
        try requireOpen()
        let checkpoints = checkpointStore(in: layout.checkpointDirectory)
        let mark = try Self.guarded("cannot write a checkpoint of the projections") {
            try checkpoints.save(projectionEnvironment)
        }
        guard let mark else { return nil }
        try Self.guarded("cannot record the checkpoint") {
            try journalEnvironment.write { transaction in
                // Time is the journal's own, the last entry's timestamp: checkpoints never read
                // the clock, so they never shift the timestamps a manual clock hands out.
                let record = CheckpointRecord(
                    sequence: mark.sequence, time: try Self.lastEntryHead(of: entries, in: transaction).timestamp,
                    journalBytes: try transaction.statistics(entries).pageBytes)
                try transaction.put(meta, key: Self.lastCheckpointKey, value: record.bytes)
            }
        }
        logger.info("wrote a checkpoint of the projections", metadata: ["journal.sequence": "\(mark.sequence)"])
        try pruneCheckpointsBeforeTheFirstCompaction()
        return mark.sequence
    }

    /// Under a retention that bounds the history, removes every checkpoint but the newest of a
    /// store not compacted yet.
    ///
    /// Such a store writes a checkpoint at every interval of its policy until its first
    /// compaction, which removes them. With compressed entries (decision 0029) a journal takes
    /// long to reach its byte limit, so a week of six-hour checkpoints, each a copy of the
    /// projections, would outweigh the history they serve. One copy is what the store keeps
    /// after its first compaction too (the anchor): if the newest checkpoint is found damaged,
    /// recovery folds from the first entry, still there; older checkpoints would only speed up
    /// `state --as-of`, which can fold from there too. After the first compaction no policy
    /// checkpoint is written, and compaction prunes its own.
    private func pruneCheckpointsBeforeTheFirstCompaction() throws {
        guard options.retention.boundsHistory else { return }
        let horizon = try Self.guarded("cannot read the journal's horizon") {
            try journalEnvironment.read { try Self.horizon(meta: meta, in: $0) }
        }
        guard !horizon.isCompacted else { return }
        let checkpoints = checkpointStore(in: layout.checkpointDirectory)
        for sequence in checkpoints.sequences().dropFirst() {
            checkpoints.discard(sequence)
        }
    }

    /// A checkpoint after an append: its failure is logged, never the append's.
    func checkpointQuietly() {
        do {
            try checkpoint()
        } catch {
            logger.error("could not write a checkpoint of the projections: \(error)")
        }
    }

    /// Whether the policy asks for a checkpoint now that the journal ends at `end`.
    func isCheckpointDue(_ end: JournalEnd, in journalTransaction: Transaction) throws -> Bool {
        let policy = options.checkpoints
        guard policy.isEnabled else { return false }
        // A journal compacted to an entry or byte limit keeps a checkpoint at its horizon, at
        // most that limit (and a quarter) behind its end: the recovery point a policy
        // checkpoint would give, without a second copy of the projections on disk.
        if options.retention.boundsHistory, end.horizon.isCompacted { return false }
        let (lastSequence, lastTimestamp, journalBytes) = (end.lastSequence, end.lastTimestamp, end.journalBytes)
        guard
            let recorded = try journalTransaction.get(meta, key: Self.lastCheckpointKey).flatMap(
                CheckpointRecord.init(bytes:))
        else {
            // The store's first write starts the first interval.
            let start = CheckpointRecord(sequence: 0, time: lastTimestamp, journalBytes: 0)
            try journalTransaction.put(meta, key: Self.lastCheckpointKey, value: start.bytes)
            return lastSequence >= policy.entryCountMax || journalBytes >= policy.journalBytesMax
        }
        guard lastSequence > recorded.sequence else { return false }
        if lastSequence - recorded.sequence >= policy.entryCountMax { return true }
        if journalBytes - recorded.journalBytes >= policy.journalBytesMax { return true }
        let elapsed = lastTimestamp.millisecondsSinceEpoch - recorded.time.millisecondsSinceEpoch
        return elapsed >= Self.milliseconds(policy.intervalMax)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    // MARK: - Closing

    /// Syncs the projections and closes the journal; later calls throw
    /// ``JournalError/Code/closed``.
    ///
    /// A store closed this way is trusted as it is when it is opened again, even after the
    /// machine restarted. Releasing the journal does the same; an app killed before either
    /// recovers by folding the journal's tail, and one that lost power by restoring a checkpoint.
    public func close() throws {
        let wasOpen = lifecycle.withLock { state in
            defer { state.isClosed = true }
            return !state.isClosed
        }
        guard wasOpen else { return }
        observers.close()
        defer { releaseSnapshotPin() }
        if let scratchProjectionDirectory { try? FileManager.default.removeItem(at: scratchProjectionDirectory) }
        // A read-only journal wrote nothing to sync, and removes no note it did not leave.
        guard !options.isReadOnly else { return }
        try flushProjections()
    }

    /// Syncs the projections, then removes the note that they hold unsynced writes. Both
    /// happen under the projections' writer lock, so no process commits between them.
    func flushProjections() throws {
        try Self.guarded("cannot sync the projections") {
            try projectionEnvironment.writeOnce { _ in
                try projectionEnvironment.flush()
                try journalEnvironment.write { transaction in
                    _ = try transaction.delete(meta, key: Self.unsyncedBootKey)
                }
            }
        }
    }

    /// Stops using the journal without syncing anything: what a power loss leaves.
    ///
    /// Reserved for tests of recovery: do not use.
    package func abandon() {
        lifecycle.withLock { $0.isClosed = true }
    }
}

/// The end of the journal after a write, read once for the checkpoint and compaction policies.
struct JournalEnd {
    var lastSequence: UInt64
    var lastTimestamp: WallTime
    /// The pages of the entries database.
    var journalBytes: Int
    var horizon: JournalHorizon
}

/// The last checkpoint, as the policy measures the interval since: its sequence, when it was
/// written, and how many bytes the journal's entries took then.
struct CheckpointRecord: Hashable {
    var sequence: UInt64
    var time: WallTime
    var journalBytes: Int

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(sequence)
        bytes.appendBigEndian(time.millisecondsSinceEpoch)
        bytes.appendBigEndian(UInt64(journalBytes))
        return bytes
    }

    init(sequence: UInt64, time: WallTime, journalBytes: Int) {
        self.sequence = sequence
        self.time = time
        self.journalBytes = journalBytes
    }

    init?(bytes: [UInt8]) {
        guard bytes.count == 24 else { return nil }
        func integer(_ offset: Int) -> UInt64 { bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        sequence = integer(0)
        time = WallTime(millisecondsSinceEpoch: Int64(bitPattern: integer(8)))
        journalBytes = Int(integer(16))
    }
}
