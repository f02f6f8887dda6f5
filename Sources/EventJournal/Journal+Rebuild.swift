public import LMDBStore

// Folding into another environment: the scratch stores of `verify` and `state --as-of`.
extension Journal {
    /// Folds the entries `1...sequence` into fresh projections in `destination`.
    ///
    /// This materializes the projections as they were right after entry `sequence`, without
    /// touching this journal's own state. `destination` should be empty.
    /// - Returns: the number of entries folded.
    @discardableResult
    public func rebuild(
        upTo sequence: UInt64, into destination: Environment,
        progress: ((_ folded: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws -> UInt64 {
        let target = try ProjectionStore(projections: projections, in: destination)
        try destination.write { try target.reset(in: $0) }
        return try read { reader in
            try fold(from: reader, upTo: min(sequence, try reader.lastSequence), into: target, progress: progress)
                .sequence
        }
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
        let batchSize = UInt64(max(1, options.rebuildBatchSize))
        let entriesTransaction = try reader.entryTransaction()
        while mark.sequence < last {
            var batchEnd = min(last, mark.sequence + batchSize)
            if let boundary, boundary > 0 {
                batchEnd = min(batchEnd, (mark.sequence / boundary + 1) * boundary)
            }
            let range = (mark.sequence + 1)...batchEnd
            mark = try target.environment.write { transaction in
                var deltas = KindDeltas()
                var checksum: UInt32 = 0
                let context = target.context(transaction)
                try JournalReader.forEachStoredEntry(of: entries, in: entriesTransaction, range) { entry, sum in
                    try target.apply(entry, in: context, kinds: &deltas)
                    checksum = sum
                    return true
                }
                let reached = FoldMark(sequence: batchEnd, checksum: checksum)
                try target.write(deltas, in: transaction)
                try target.record(reached, in: transaction)
                return reached
            }
            if let boundary, boundary > 0, batchEnd % boundary == 0 { try reachedBoundary?(batchEnd) }
            progress?(batchEnd, last)
        }
        return mark
    }
}
