import Foundation
import LMDBStore
import Logging
import Synchronization

// The write path (decision 0003): take the projections' writer, append to the journal and
// commit it (synced: the append is durable here), fold into the projections, commit them
// without a sync. Both transactions are open together, so a writer reads its own writes and
// `body` can decide from projection state what to append.
extension Journal {
    /// Runs `body` with a writer, appends what it appended, and folds it into the projections.
    ///
    /// Read projection state through ``JournalWriter/transaction`` to decide what to append;
    /// the decision and the entries are then atomic. If `body` throws, nothing is stored.
    /// `body` may run more than once (when a memory map is full it is grown and the write
    /// tried again), so keep outside side effects out of it. Entries another process appended
    /// but did not fold are folded first.
    /// - Throws: ``JournalError`` for storage trouble or invalid entries
    ///   (``JournalError/Code/damaged`` once this instance met a damaged page of the
    ///   projections: open the store again; ``JournalError/Code/unsupported`` when it was
    ///   opened with ``JournalOptions/isReadOnly``), or what `body` throws.
    public func write<T>(_ body: (inout JournalWriter) throws -> T) throws -> T {
        try requireOpenAndUndamaged()
        guard !options.isReadOnly else {
            throw JournalError(
                .unsupported, "the journal at \(layout.directory.path) was opened read-only: nothing is appended")
        }
        let outcome: WriteOutcome<T>
        do {
            outcome = try appendGate.withSharedLock { try writeGrowingMaps(body) }
        } catch {
            noteProjectionDamageIfNoted(by: error)
            throw Self.wrap(error, "cannot append to the journal")
        }
        observers.committed(self)
        if outcome.snapshotDue { pinSnapshotQuietly() }
        if outcome.checkpointDue { checkpointQuietly() }
        if outcome.compactionDue { compactQuietly() }
        return outcome.value
    }

    struct WriteOutcome<T> {
        var value: T
        var snapshotDue: Bool
        var checkpointDue: Bool
        var compactionDue: Bool
    }

    private func writeGrowingMaps<T>(_ body: (inout JournalWriter) throws -> T) throws -> WriteOutcome<T> {
        var growths = 0
        while true {
            do {
                return try writeOnce(body)
            } catch let full as EnvironmentFull where growths < options.environment.mapFullRetryCountMax {
                growths += 1
                try full.environment.growMap()
            } catch let error as LMDBError where error == .mapFull && growths < options.environment.mapFullRetryCountMax
            {
                // Anything not converted to `EnvironmentFull` filled the projections' map.
                growths += 1
                try projectionEnvironment.growMap()
            }
        }
    }

    private func writeOnce<T>(_ body: (inout JournalWriter) throws -> T) throws -> WriteOutcome<T> {
        var outcome: WriteOutcome<T>?
        var journalCommitted = false
        do {
            try projectionEnvironment.writeOnce { projectionTransaction in
                try pinSnapshot(during: projectionTransaction)
                let folded = try store.foldedThrough(projectionTransaction)
                outcome = try commitJournal(projectionTransaction, foldedThrough: folded, body)
                journalCommitted = true
            }
        } catch  where journalCommitted {
            // The entries are durable, the projections' commit failed: fold them again now or
            // before the next read. The caller's write did happen.
            lifecycle.withLock { $0.tailPending = true }
            if noteProjectionDamageIfNoted(by: error) {
                let consequence = "reads and writes fail until the store is opened again, which rebuilds them"
                logger.error("the projections were found damaged after the journal committed; \(consequence): \(error)")
            } else {
                logger.error("the projections could not commit after the journal did; folding again: \(error)")
                do {
                    _ = try catchUp(phase: .catchingUp)
                } catch {
                    noteProjectionDamageIfNoted(by: error)
                    logger.error("the projections are behind the journal until the next read or write: \(error)")
                }
            }
        }
        guard let outcome else { preconditionFailure("a committed write has an outcome") }
        return outcome
    }

    /// Runs `body` in a journal transaction nested in the projections' and commits the journal.
    private func commitJournal<T>(
        _ projectionTransaction: Transaction, foldedThrough folded: FoldMark, _ body: (inout JournalWriter) throws -> T
    ) throws -> WriteOutcome<T> {
        var bodyFinished = false
        do {
            return try journalEnvironment.writeOnce { journalTransaction in
                var writer = try JournalWriter(
                    journal: self, transaction: projectionTransaction, journalTransaction: journalTransaction)
                try writer.foldTail(after: folded)
                let value = try body(&writer)
                let due = try writer.finish()
                bodyFinished = true
                return WriteOutcome(
                    value: value, snapshotDue: due.snapshotDue, checkpointDue: due.checkpointDue,
                    compactionDue: due.compactionDue)
            }
        } catch let error as LMDBError where error == .mapFull && bodyFinished {
            throw EnvironmentFull(environment: journalEnvironment, cause: error)
        }
    }

    /// Stores `entry`'s envelope (``StoredEnvelope``: compressed when ``JournalOptions/compressesEntries``
    /// and the payload compresses), written straight into LMDB's page; a full map is reported
    /// as the journal's.
    /// - Returns: the stored envelope's checksum.
    func putEntry(_ entry: JournalEntry, in journalTransaction: Transaction) throws -> UInt32 {
        try putEntry(StoredEnvelope(entry, compressing: options.compressesEntries), in: journalTransaction)
    }

    /// Stores an envelope made beforehand (its frame compressed beside the fold, decision 0034).
    /// - Returns: the stored envelope's checksum.
    func putEntry(_ stored: StoredEnvelope, in journalTransaction: Transaction) throws -> UInt32 {
        let entry = stored.entry
        do {
            return try journalTransaction.put(
                entries, key: SequenceKey.encode(entry.sequence), byteCount: stored.byteCount, options: .append
            ) { stored.write(into: $0) }
        } catch let error as LMDBError where error == .mapFull {
            throw EnvironmentFull(environment: journalEnvironment, cause: error)
        }
    }

    /// Records, durably and before any projection write of this boot commits, that the
    /// projections hold writes that were not synced; see ``JournalOpening``.
    func noteUnsyncedProjections(in journalTransaction: Transaction) throws {
        let recorded = try journalTransaction.withValue(meta, key: Self.unsyncedBootKey) { bytes in
            bytes.map { $0.elementsEqual(bootIdentifier.utf8) } ?? false
        }
        guard !recorded else { return }
        do {
            try journalTransaction.put(meta, key: Self.unsyncedBootKey, value: Array(bootIdentifier.utf8))
        } catch let error as LMDBError where error == .mapFull {
            throw EnvironmentFull(environment: journalEnvironment, cause: error)
        }
    }
}
