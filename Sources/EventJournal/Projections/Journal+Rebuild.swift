import Foundation
public import LMDBStore

// Folding into another environment: the scratch stores of `verify` and `state --as-of`.
extension Journal {
    /// Folds the entries `1...sequence` into fresh projections in `destination`; in a
    /// compacted journal, the anchor (the horizon's state) and the entries from the horizon on.
    ///
    /// This materializes the projections as they were right after entry `sequence`, without
    /// touching this journal's own state. `destination` should be empty.
    /// - Returns: the sequence of the state `destination` holds.
    /// - Throws: ``JournalError/Code/belowHorizon`` when `sequence` lies before the horizon's
    ///   checkpoint.
    @discardableResult
    public func rebuild(
        upTo sequence: UInt64, into destination: Environment,
        progress: ((_ folded: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws -> UInt64 {
        let target = try ProjectionStore(projections: projections, in: destination)
        return try read { reader in
            let horizon = try reader.horizon
            guard sequence >= horizon.anchorSequence else {
                throw horizon.belowHorizonError(sequence, asking: "cannot rebuild the state as of entry \(sequence)")
            }
            try startFromHorizon(horizon, target)
            let start = try target.environment.read { try target.foldedThrough($0) }
            guard start.sequence <= sequence else {
                throw horizon.belowHorizonError(sequence, asking: "cannot rebuild the state as of entry \(sequence)")
            }
            return try fold(
                from: reader, upTo: min(sequence, try reader.lastSequence), into: target, progress: progress
            )
            .sequence
        }
    }

    /// Fills `target` with the state at the horizon: empty for a journal never compacted, the
    /// anchor (or, in a store compacted before it existed, the horizon's checkpoint) otherwise.
    /// - Parameter prepare: runs first inside `target`'s write transaction, under its writer lock.
    func startFromHorizon(
        _ horizon: JournalHorizon, _ target: ProjectionStore, insideWrite prepare: () throws -> Void = {}
    ) throws {
        guard horizon.isCompacted else {
            try target.environment.write { transaction in
                try prepare()
                try target.reset(in: transaction)
            }
            return
        }
        try withHorizonCheckpoint(horizon) { source, sourceTransaction in
            try target.environment.write { transaction in
                try prepare()
                try target.replaceContents(with: source, reading: sourceTransaction, in: transaction)
            }
        }
    }

    /// Runs `body` with the checkpoint or anchor at the horizon (or an anchor ahead of it),
    /// restored into a scratch store and read in one transaction.
    /// - Throws: ``JournalError/Code/belowHorizon`` when that checkpoint is missing or damaged.
    func withHorizonCheckpoint<T>(
        _ horizon: JournalHorizon, _ body: (ProjectionStore, Transaction) throws -> T
    ) throws -> T {
        let checkpoints = checkpointStore(in: layout.checkpointDirectory)
        let scratch = Self.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var restored = try checkpoints.restoreNearest(
            atOrBelow: horizon.anchorSequence,
            entryChecksum: { $0 == horizon.anchorSequence ? horizon.anchorChecksum : nil }, into: scratch)
        if restored == nil {
            // A compaction stopped after folding the anchor and before moving the horizon
            // leaves the anchor ahead of it: a later state the journal still continues.
            restored = try checkpoints.restoreAnchor(
                atOrBelow: .max,
                entryChecksum: { sequence in
                    try journalEnvironment.read {
                        try Self.continuableChecksum(of: sequence, entries: entries, meta: meta, in: $0)
                    }
                }, into: scratch)
        }
        guard restored != nil else {
            throw JournalError(
                .belowHorizon,
                "entries before the horizon, entry \(horizon.firstSequence), were compacted away and the checkpoint "
                    + "at entry \(horizon.anchorSequence) in \(checkpoints.directory.path) is missing or damaged",
                sequence: horizon.firstSequence)
        }
        let source = try ProjectionStore(
            projections: projections, in: scratchEnvironment(scratch))
        return try source.environment.read { try body(source, $0) }
    }

    /// Folds entries after `target`'s fold mark through `last` into `target`, in batches of
    /// ``JournalOptions/rebuildBatchSize``.
    ///
    /// - Parameters:
    ///   - boundary: batches also end at multiples of it, and `reachedBoundary` is called
    ///     there, so callers can checkpoint the destination at round sequences.
    /// - Returns: the fold mark reached.
    func fold(
        from reader: JournalReader, upTo last: UInt64, into target: ProjectionStore,
        boundary: UInt64? = nil, reachedBoundary: ((UInt64) throws -> Void)? = nil,
        progress: ((UInt64, UInt64) -> Void)?
    ) throws -> FoldMark {
        var mark = try target.environment.read { try target.foldedThrough($0) }
        let horizon = try reader.horizon
        guard mark.sequence >= horizon.anchorSequence || mark.sequence >= last else {
            throw horizon.belowHorizonError(mark.sequence + 1, asking: "cannot fold from entry \(mark.sequence + 1)")
        }
        let batchSize = UInt64(max(1, options.rebuildBatchSize))
        let entriesTransaction = try reader.entryTransaction()
        while mark.sequence < last {
            var batchEnd = min(last, mark.sequence + batchSize)
            if let boundary, boundary > 0 {
                batchEnd = min(batchEnd, (mark.sequence / boundary + 1) * boundary)
            }
            let range = (mark.sequence + 1)...batchEnd
            mark = try target.environment.write { transaction in
                try foldBatch(range, from: entriesTransaction, into: target, in: transaction)
            }
            if let boundary, boundary > 0, batchEnd % boundary == 0 { try reachedBoundary?(batchEnd) }
            progress?(batchEnd, last)
        }
        return mark
    }

    /// Folds the entries of `range` into `target` inside its write transaction `transaction`,
    /// records the fold mark reached and returns it.
    /// - Throws: ``JournalError/Code/gap`` when an entry of `range` is missing.
    func foldBatch(
        _ range: ClosedRange<UInt64>, from entriesTransaction: Transaction, into target: ProjectionStore,
        in transaction: Transaction
    ) throws -> FoldMark {
        try target.foldStored(range, of: entries, reading: entriesTransaction, into: transaction)
    }
}
