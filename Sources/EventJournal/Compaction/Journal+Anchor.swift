import Foundation
import LMDBStore
import Logging

// The anchor (decision 0016): the projections' state just before the horizon, in an
// environment compaction folds forward instead of restoring a checkpoint, folding it again and
// copying it whole. Every commit to it is synced, so the horizon may move up to its fold mark
// as soon as the fold returns.
extension Journal {
    /// The most entries one commit to the anchor folds. LMDB writes every changed page elsewhere
    /// and reuses the old one only two commits later, so one commit folding a whole compaction
    /// (most of a reSync-heavy soup's pages) grew the file by a copy of the tree each time; a
    /// few entries per commit change a small part of it and reuse what the commits two before
    /// freed. Org-shaped, 10,000 records, 1,000 reSyncs: the anchor's file 84.1 MiB with one
    /// commit, 47.7 with 16 entries, 40.9 with 4, for 28 MiB of state; each commit is synced,
    /// so fewer entries cost more syncs (docs/benchmarks-log.md, "The anchor's commits").
    static let anchorBatchEntryCountMax = 16

    /// Folds the entries through `target` into the anchor, seeding it first when it does not
    /// continue the journal, and returns its fold mark: `target`'s, or a later one when an
    /// earlier compaction folded further and stopped before moving the horizon.
    ///
    /// Each batch of at most `anchorBatchEntryCountMax` entries is one synced commit that
    /// starts from the mark it finds, so two processes compacting at once never fold an entry
    /// twice. A small commit first makes the pages the previous compaction freed reusable by
    /// this one, since LMDB reuses the pages a commit frees only two commits later.
    /// - Throws: ``JournalError/Code/belowHorizon`` when the anchor must be seeded and no
    ///   checkpoint continues the compacted journal.
    func advanceAnchor(through target: UInt64) throws -> FoldMark {
        try read { reader in
            try anchor.withEnvironment { environment in
                let anchorStore = try ProjectionStore(projections: projections, in: environment)
                try seedAnchorIfStale(anchorStore, through: target, reader: reader)
                let entriesTransaction = try reader.entryTransaction()
                let batchSize = UInt64(max(1, min(options.rebuildBatchSize, Self.anchorBatchEntryCountMax)))
                try environment.write { transaction in
                    try anchorStore.record(try anchorStore.foldedThrough(transaction), in: transaction)
                }
                while true {
                    let folded = try environment.write { transaction -> Bool in
                        let mark = try anchorStore.foldedThrough(transaction)
                        guard mark.sequence < target else { return false }
                        let range = (mark.sequence + 1)...min(target, mark.sequence + batchSize)
                        _ = try foldBatch(range, from: entriesTransaction, into: anchorStore, in: transaction)
                        return true
                    }
                    if !folded { break }
                }
                return try environment.read { try anchorStore.foldedThrough($0) }
            }
        }
    }

    /// The anchor's fold mark when it exists, holds this build's projections and continues the
    /// journal as it is now; `nil` otherwise.
    func validAnchorMark() throws -> FoldMark? {
        guard let mark = try anchor.foldMark(signature: store.signature) else { return nil }
        return try anchorContinuesJournal(mark) ? mark : nil
    }

    /// Whether the state folded through `mark` continues the journal as it is now (not as a
    /// reader's older snapshot saw it: another process may have compacted since).
    private func anchorContinuesJournal(_ mark: FoldMark) throws -> Bool {
        try journalEnvironment.read { transaction in
            try Self.continuableChecksum(of: mark.sequence, entries: entries, meta: meta, in: transaction)
                == mark.checksum
        }
    }

    /// Replaces the anchor's contents by the newest checkpoint at or below `target` (or the
    /// empty state of a journal never compacted) when the anchor does not continue the journal:
    /// a store's first compaction, a store whose horizon's checkpoint predates the anchor, or
    /// an anchor of other projections. The check is made again under the anchor's writer lock,
    /// so an anchor another process just seeded or folded is never replaced.
    private func seedAnchorIfStale(_ anchorStore: ProjectionStore, through target: UInt64, reader: JournalReader) throws
    {
        let environment = anchorStore.environment
        func isStale(_ transaction: Transaction) throws -> Bool {
            guard try anchorStore.isCurrent(transaction) else { return true }
            return try !anchorContinuesJournal(try anchorStore.foldedThrough(transaction))
        }
        guard try environment.read(isStale) else { return }
        let checkpoints = CheckpointStore(
            directory: layout.checkpointDirectory, signature: store.signature, sealer: projectionSealer)
        let scratch = Self.scratchDirectoryURL()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let restored = try checkpoints.restoreNearest(
            atOrBelow: target, entryChecksum: { try reader.continuableChecksum(of: $0) }, into: scratch)
        let horizon = try reader.horizon
        if restored == nil, horizon.isCompacted {
            throw JournalError(
                .belowHorizon,
                "cannot compact: entries before the horizon, entry \(horizon.firstSequence), were compacted away, "
                    + "the anchor at \(layout.anchorDirectory.path) does not hold the state as of entry "
                    + "\(horizon.anchorSequence), and no valid checkpoint at or after it is left in "
                    + "\(checkpoints.directory.path)", sequence: horizon.firstSequence)
        }
        guard restored != nil else {
            try environment.write { transaction in
                if try isStale(transaction) { try anchorStore.reset(in: transaction) }
            }
            return
        }
        let source = try ProjectionStore(projections: projections, in: scratchEnvironment(scratch))
        try source.environment.read { sourceTransaction in
            try environment.write { transaction in
                guard try isStale(transaction) else { return }
                try anchorStore.replaceContents(with: source, reading: sourceTransaction, in: transaction)
            }
        }
        logger.info(
            "seeded the anchor of the projections",
            metadata: ["journal.sequence": "\(restored.map { "\($0.sequence)" } ?? "0")"])
    }
}
