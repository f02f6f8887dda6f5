import Foundation
import LMDBStore
import Logging
import Synchronization

// Folding the journal into the projections outside an append: the tail left by another
// process (or by a projection commit that failed), a rebuild, a recovery after a restore, and
// the conversion of a format-1 store.
extension Journal {
    /// Folds every entry the projections have not folded yet, in transactions of
    /// ``JournalOptions/rebuildBatchSize`` entries, reporting progress as `phase`.
    /// - Returns: how many entries were folded.
    @discardableResult
    func catchUp(phase: OpeningProgress.Phase) throws -> UInt64 {
        var folded: UInt64 = 0
        var start: UInt64?
        while true {
            let batch = try foldNextBatch()
            if start == nil { start = batch.through - batch.folded }
            folded += batch.folded
            if batch.folded > 0, let start, let progress = options.openingProgress {
                progress(OpeningProgress(phase: phase, folded: batch.through - start, total: batch.last - start))
            }
            if batch.through >= batch.last { break }
        }
        lifecycle.withLock { $0.tailPending = false }
        return folded
    }

    private struct FoldedBatch {
        var folded: UInt64
        var through: UInt64
        var last: UInt64
    }

    /// Folds up to one batch of the entries past the projections' fold mark, in one
    /// transaction of the projections, under their writer lock (so processes folding at once
    /// never fold an entry twice).
    private func foldNextBatch() throws -> FoldedBatch {
        try Self.guarded("cannot fold the journal into the projections") {
            var growths = 0
            while true {
                do {
                    return try projectionEnvironment.writeOnce { transaction in
                        let mark = try store.foldedThrough(transaction)
                        let last = try journalEnvironment.read { try Self.lastEntryHead(of: entries, in: $0).sequence }
                        precondition(mark.sequence <= last, "the projections are ahead of the journal")
                        guard mark.sequence < last else { return FoldedBatch(folded: 0, through: last, last: last) }
                        let horizon = try journalEnvironment.read { try Self.horizon(meta: meta, in: $0) }
                        guard mark.sequence >= horizon.anchorSequence else {
                            throw horizon.belowHorizonError(
                                mark.sequence + 1,
                                asking: "cannot fold the projections forward from entry \(mark.sequence)")
                        }
                        try pinSnapshot(during: transaction)
                        try noteUnsyncedProjections()
                        let end = min(last, mark.sequence + UInt64(max(1, options.rebuildBatchSize)))
                        try fold((mark.sequence + 1)...end, into: transaction)
                        return FoldedBatch(folded: end - mark.sequence, through: end, last: last)
                    }
                } catch let error as LMDBError
                    where error == .mapFull && growths < options.environment.mapFullRetryCountMax
                {
                    growths += 1
                    try projectionEnvironment.growMap()
                }
            }
        }
    }

    /// Folds `range`, read from the journal, into the projections' `transaction`, and moves
    /// the fold mark to its end.
    private func fold(_ range: ClosedRange<UInt64>, into transaction: Transaction) throws {
        _ = try journalEnvironment.read { entriesTransaction in
            try store.foldStored(range, of: entries, reading: entriesTransaction, into: transaction)
        }
    }

    /// Records the unsynced-projections note in its own journal transaction when it is not
    /// there, unless the journal is read-only; the caller holds the projections' writer lock.
    func noteUnsyncedProjections() throws {
        // A read-only journal folds only into a scratch copy, which no later open reads.
        guard !options.isReadOnly else { return }
        let recorded = try journalEnvironment.read { transaction in
            try transaction.withValue(meta, key: Self.unsyncedBootKey) { bytes in
                bytes.map { $0.elementsEqual(bootIdentifier.utf8) } ?? false
            }
        }
        guard !recorded else { return }
        try journalEnvironment.write { try noteUnsyncedProjections(in: $0) }
    }

    /// Empties the projections, so the next ``catchUp(phase:)`` folds from the first entry;
    /// in a compacted journal, replaces them by the anchor (the horizon's state) instead, so it folds
    /// from the horizon.
    func resetProjections() throws {
        try Self.guarded("cannot empty the projections") {
            let horizon = try journalEnvironment.read { try Self.horizon(meta: meta, in: $0) }
            // Pinned first: the reset frees every page of the recorded snapshot.
            try projectionEnvironment.writeOnce { try pinSnapshot(during: $0) }
            try startFromHorizon(horizon, store, insideWrite: noteUnsyncedProjections)
        }
    }

    /// Rebuilds every projection from the entries, in place.
    ///
    /// The projections are emptied (or, in a compacted journal, replaced by the checkpoint at
    /// the horizon) and the journal folded again, in transactions of
    /// ``JournalOptions/rebuildBatchSize`` entries. Appends of this process wait until it is
    /// done. A crash part-way leaves projections folded through some entry, as after any
    /// crash, and the next open folds the rest.
    /// - Parameter progress: called after each batch with (entries folded, entries in total).
    public func rebuild(progress: ((_ folded: UInt64, _ total: UInt64) -> Void)? = nil) throws {
        try requireOpen()
        logger.info("rebuilding projections", metadata: ["journal.projections": "\(store.signature)"])
        try appendGate.withExclusiveLock {
            try resetProjections()
            let total = try journalEnvironment.read { try Self.lastEntryHead(of: entries, in: $0).sequence }
            var folded: UInt64 = 0
            while true {
                let batch = try foldNextBatch()
                folded += batch.folded
                progress?(min(folded, total), total)
                if batch.through >= batch.last { break }
            }
        }
    }

    /// The last step of converting a format-1 store: its projections now live in their own
    /// environment, so their old databases leave the journal's, and the format becomes 2.
    func finishMigration() throws {
        try Self.guarded("cannot finish converting the store to format \(Self.formatVersion)") {
            try journalEnvironment.write { transaction in
                for name in try transaction.databaseNames()
                where name != Self.entriesDatabaseName && name != Self.metaDatabaseName {
                    try transaction.dropDatabase(named: name)
                }
                var obsolete: [[UInt8]] = []
                try transaction.withCursor(meta) { cursor in
                    try cursor.forEach { key, _ in
                        let name = String(decoding: key, as: UTF8.self)
                        if name.hasPrefix("projection-version/") || name == "rebuild-in-progress" {
                            obsolete.append(key)
                        }
                        return true
                    }
                }
                for key in obsolete { try transaction.delete(meta, key: key) }
                try Self.recordFormatVersion(meta: meta, in: transaction)
            }
        }
        logger.notice(
            "converted the store to format \(Self.formatVersion)",
            metadata: ["journal.directory": "\(layout.directory.path)"])
    }
}
