import Determinism
public import Foundation
import LMDBStore
import Logging
import Synchronization

// Compaction (decisions 0005 and 0016): the journal's oldest entries are removed once the
// anchor, synced, holds the state they folded to. The order makes every crash safe:
// 1. the entries to remove folded into the anchor, in synced commits;
// 2. the entries to remove appended to the archive, when one is asked for, synced;
// 3. the new horizon, in one synced journal commit: from here on nothing reads below it;
// 4. the entries below it deleted, a bounded batch per commit, so appends never wait long;
// 5. checkpoints the anchor makes useless removed.
// A crash in 1 or 2 leaves the old horizon (and perhaps the anchor ahead of it, which the next
// compaction moves the horizon up to); in 4 or 5 the next compaction finishes the job.
extension Journal {
    static let horizonKey = Array("horizon".utf8)

    /// What a compaction did.
    public struct CompactionReport: Sendable, Hashable, CustomStringConvertible {
        /// The horizon before compaction.
        public var previousHorizon: JournalHorizon
        /// The horizon after compaction.
        public var horizon: JournalHorizon
        /// Entries deleted from the journal (including those an interrupted compaction had
        /// moved below the horizon but not deleted yet).
        public var removedEntries: UInt64
        /// Entries appended to the archive.
        public var archivedEntries: UInt64
        /// Checkpoints removed because they end before the horizon, or are neither the horizon's
        /// nor the newest.
        public var removedCheckpoints: Int
        /// Why the horizon is not further on: the limit that stopped it, in words.
        public var keptBecause: String

        /// One line for people: what moved, what was removed, and why not more.
        public var description: String {
            let moved =
                horizon == previousHorizon
                ? "horizon stays at entry \(horizon.firstSequence)"
                : "horizon moved from entry \(previousHorizon.firstSequence) to \(horizon.firstSequence)"
            return "\(moved); \(removedEntries) entries removed, \(archivedEntries) archived, "
                + "\(removedCheckpoints) checkpoint(s) removed; \(keptBecause)"
        }
    }

    /// The journal's horizon: where its entries begin.
    public func horizon() throws -> JournalHorizon {
        try requireOpen()
        return try Self.guarded("cannot read the journal's horizon") {
            try journalEnvironment.read { try Self.horizon(meta: meta, in: $0) }
        }
    }

    static func horizon(meta: Database, in transaction: Transaction) throws -> JournalHorizon {
        guard let bytes = try transaction.get(meta, key: horizonKey) else { return .start }
        guard let horizon = JournalHorizon(bytes: bytes) else {
            throw JournalError(.corruptEntry, "the journal's horizon record of \(bytes.count) bytes is damaged")
        }
        return horizon
    }

    /// The checksum a state folded through `sequence` records, when the journal can still
    /// continue that state: the entry's own, the horizon's anchor for the entry just before the
    /// horizon, 0 for the empty state of a journal never compacted; `nil` for anything else.
    static func continuableChecksum(
        of sequence: UInt64, entries: Database, meta: Database, in transaction: Transaction
    ) throws -> UInt32? {
        let horizon = try horizon(meta: meta, in: transaction)
        if sequence < horizon.anchorSequence { return nil }
        if sequence == horizon.anchorSequence { return horizon.anchorChecksum }
        return try storedChecksum(of: sequence, entries: entries, in: transaction)
    }

    // MARK: - Compacting

    /// Removes the entries the retention policy no longer keeps.
    ///
    /// The horizon moves to the first entry to keep: the newest entry, entries a projection
    /// still needs (``Projection/oldestNeededSequence(in:)``) and entries within every limit of
    /// `retention` stay. The entries removed are first folded into the store's anchor, the
    /// state just before the horizon (`<store>/anchor/`, synced), so every projection, `verify`
    /// and `state --as-of` from the horizon on still work; asked about anything older, they throw
    /// ``JournalError/Code/belowHorizon``. Entries are deleted in transactions of
    /// ``JournalOptions/compactionBatchSize``, so appends in this and other processes go on
    /// meanwhile. LMDB reuses the freed pages for later entries; the file does not shrink
    /// (``writeCompactCopy(to:)`` writes a smaller copy).
    ///
    /// - Parameters:
    ///   - retention: the limits; the store's ``JournalOptions/retention`` when `nil`.
    ///   - archive: a JSON-lines file (the ``export(upTo:to:)`` format) the removed entries are
    ///     appended to, synced, before they are removed; entries already in it are not repeated,
    ///     so an interrupted compaction continues it. ``JournalOptions/compactionArchive`` when `nil`.
    ///   - progress: called with (entries removed, entries to remove) as batches commit.
    /// - Returns: what was removed.
    /// - Throws: ``JournalError`` for storage trouble, a damaged archive, or an anchor that
    ///   cannot be written.
    @discardableResult
    public func compact(
        retention: RetentionPolicy? = nil, archive: URL? = nil,
        progress: ((_ removed: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws -> CompactionReport {
        try requireOpen()
        if archive != nil { try Self.refusePlaintextArchive(encrypted: isEncrypted) }
        let policy = retention ?? options.retention
        return try Self.guarded("cannot compact the journal") {
            let plan = try read { reader in try compactionPlan(policy, reader: reader) }
            var report = CompactionReport(
                previousHorizon: plan.horizon, horizon: plan.horizon, removedEntries: 0, archivedEntries: 0,
                removedCheckpoints: 0, keptBecause: plan.keptBecause)
            if plan.firstKept > plan.horizon.firstSequence {
                // The recovery point moves up first, so a power loss never needs the entries
                // this compaction removes (decision 0014).
                if pinsSnapshots { try pinSnapshotNow() }
                // The anchor may already be further on, after a compaction that stopped before
                // moving the horizon: the horizon then moves up to it.
                let anchor = try advanceAnchor(through: plan.firstKept - 1)
                if let archive = archive ?? options.compactionArchive {
                    report.archivedEntries = try appendToArchive(
                        archive, (plan.horizon.firstSequence)...(anchor.sequence))
                }
                report.horizon = try moveHorizon(
                    to: JournalHorizon(firstSequence: anchor.sequence + 1, anchorChecksum: anchor.checksum))
            }
            report.removedEntries = try deleteEntriesBelowHorizon(progress: progress)
            report.removedCheckpoints = try pruneCheckpoints()
            if report.horizon != report.previousHorizon || report.removedEntries > 0 {
                logger.info(
                    "compacted the journal",
                    metadata: [
                        "journal.horizon": "\(report.horizon.firstSequence)",
                        "journal.removed": "\(report.removedEntries)", "journal.archived": "\(report.archivedEntries)",
                    ])
            }
            return report
        }
    }

    /// A compaction after an append: its failure is logged, never the append's.
    func compactQuietly() {
        do {
            try compact()
        } catch {
            logger.error("could not compact the journal: \(error)")
        }
    }

    /// Where the horizon should move, decided from one snapshot.
    private struct CompactionPlan {
        var horizon: JournalHorizon
        var firstKept: UInt64
        var keptBecause: String
    }

    private func compactionPlan(_ policy: RetentionPolicy, reader: JournalReader) throws -> CompactionPlan {
        let transaction = try reader.entryTransaction()
        let horizon = try Self.horizon(meta: meta, in: transaction)
        // The projections' fold mark, not the journal's end: entries they have not folded yet
        // must stay until they have.
        let last = try reader.lastSequence
        var plan = CompactionPlan(horizon: horizon, firstKept: horizon.firstSequence, keptBecause: "no limit is set")
        guard policy.isLimited, last > horizon.firstSequence else {
            if last <= horizon.firstSequence { plan.keptBecause = "the newest entry always stays" }
            return plan
        }
        func keep(from sequence: UInt64, _ reason: String) {
            if sequence > plan.firstKept {
                plan.firstKept = sequence
                plan.keptBecause = reason
            }
        }
        plan.keptBecause = "every entry is within the retention limits"
        if let count = policy.entryCount {
            keep(from: last >= count ? last - count + 1 : 1, "the newest \(count) entries are kept")
        }
        if let bytes = policy.journalBytes {
            keep(
                from: try firstSequenceWithin(bytes: bytes, last: last, in: transaction),
                "the newest \(bytes) bytes of entries are kept")
        }
        if let age = policy.age {
            let cutoff = clock.now().millisecondsSinceEpoch - Self.milliseconds(age)
            keep(
                from: try firstSequence(notBefore: cutoff, horizon: horizon, last: last, in: transaction),
                "entries of the last \(age) are kept")
        }
        if plan.firstKept > last {
            plan.firstKept = last
            plan.keptBecause = "the newest entry always stays"
        }
        for projection in projections {
            if let needed = try projection.oldestNeededSequence(in: reader.projectionContext),
                needed < plan.firstKept
            {
                plan.firstKept = max(needed, horizon.firstSequence)
                plan.keptBecause = "projection \(projection.name) still needs entry \(needed)"
            }
        }
        return plan
    }

    /// The oldest sequence such that it and every later entry through `last` take at most
    /// `bytes` (envelope bytes); `last + 1` when even the newest entry is larger.
    private func firstSequenceWithin(bytes: Int, last: UInt64, in transaction: Transaction) throws -> UInt64 {
        var total = 0
        var first = last + 1
        try transaction.withCursor(entries) { cursor in
            let keys = KeyRange(from: nil, to: SequenceKey.encode(last), includesUpperBound: true)
            try cursor.forEachInPlace(in: keys, reverse: true) { key, value in
                total += value.count
                guard total <= bytes, let sequence = SequenceKey.decode(Array(key)) else { return false }
                first = sequence
                return true
            }
        }
        return first
    }

    /// The first entry from the horizon on stamped at or after `cutoff` (milliseconds since
    /// the epoch); `last + 1` when none is.
    private func firstSequence(
        notBefore cutoff: Int64, horizon: JournalHorizon, last: UInt64, in transaction: Transaction
    ) throws -> UInt64 {
        var found = last + 1
        try transaction.withCursor(entries) { cursor in
            let keys = KeyRange(
                from: SequenceKey.encode(horizon.firstSequence), to: SequenceKey.encode(last), includesUpperBound: true)
            try cursor.forEachInPlace(in: keys) { key, value in
                guard let sequence = SequenceKey.decode(Array(key)) else { return false }
                let timestamp = try JournalEntry.timestamp(ofEnvelope: value, expectedSequence: sequence)
                guard timestamp.millisecondsSinceEpoch < cutoff else {
                    found = sequence
                    return false
                }
                return true
            }
        }
        return found
    }

    /// Records `horizon` in one synced commit, unless the journal's horizon is already at or
    /// past it, and returns the journal's horizon after.
    private func moveHorizon(to horizon: JournalHorizon) throws -> JournalHorizon {
        try journalEnvironment.write { transaction in
            let current = try Self.horizon(meta: meta, in: transaction)
            guard horizon.firstSequence > current.firstSequence else { return current }
            guard
                try Self.storedChecksum(of: horizon.anchorSequence, entries: entries, in: transaction)
                    == horizon.anchorChecksum
            else {
                throw JournalError(
                    .storage,
                    "entry \(horizon.anchorSequence) no longer matches the anchor folded through it; not compacted")
            }
            try transaction.put(meta, key: Self.horizonKey, value: horizon.bytes)
            try Self.recordFormatVersion(meta: meta, in: transaction)
            return horizon
        }
    }

    /// Deletes entries below the horizon, a batch per commit; returns how many.
    private func deleteEntriesBelowHorizon(progress: ((UInt64, UInt64) -> Void)?) throws -> UInt64 {
        let (horizon, first) = try journalEnvironment.read { transaction in
            (
                try Self.horizon(meta: meta, in: transaction),
                try transaction.withCursor(entries) { try $0.seekKey(atLeast: SequenceKey.encode(0)) }.flatMap(
                    SequenceKey.decode)
            )
        }
        guard let first, first < horizon.firstSequence else { return 0 }
        let total = horizon.firstSequence - first
        let batchSize = max(1, options.compactionBatchSize)
        var removed: UInt64 = 0
        while true {
            let deleted = try journalEnvironment.write { transaction -> Int in
                try transaction.withCursor(entries) { cursor in
                    var deleted = 0
                    while deleted < batchSize, let key = try cursor.seekKey(atLeast: SequenceKey.encode(0)),
                        let sequence = SequenceKey.decode(key), sequence < horizon.firstSequence
                    {
                        try cursor.deleteCurrent()
                        deleted += 1
                    }
                    return deleted
                }
            }
            removed += UInt64(deleted)
            if deleted > 0 { progress?(min(removed, total), total) }
            if deleted < batchSize { return removed }
        }
    }

    /// Removes the checkpoints that end before the horizon (no entries continue them), and
    /// every other one but the newest and, unless the anchor holds its state, the horizon's;
    /// returns how many it removed.
    ///
    /// The horizon's state is the oldest the store can still show; the newest bounds the
    /// recovery after a power loss. Those between would only speed up `state --as-of`, at the
    /// price of a copy of the projections each. Once the anchor holds the horizon's state, a
    /// checkpoint at or below the anchor holds nothing the anchor does not, and under a
    /// retention that bounds the history none is kept.
    private func pruneCheckpoints() throws -> Int {
        let horizon = try journalEnvironment.read { try Self.horizon(meta: meta, in: $0) }
        guard horizon.isCompacted else { return 0 }
        let checkpoints = checkpointStore(in: layout.checkpointDirectory)
        let sequences = checkpoints.sequences()
        var keep: Set<UInt64> = [horizon.anchorSequence, sequences.first ?? 0]
        if let anchor = try validAnchorMark(), anchor.sequence >= horizon.anchorSequence {
            // Under bounded history the anchor is the recovery point too: the tail after it is
            // at most the retention's limit, and no newer checkpoint is written.
            keep = options.retention.boundsHistory ? [] : Set(sequences.prefix(1).filter { $0 > anchor.sequence })
        }
        var removed = 0
        for sequence in sequences where !keep.contains(sequence) {
            checkpoints.discard(sequence)
            removed += 1
        }
        return removed
    }

    // MARK: - Archive

    /// Appends the entries of `range` the archive does not hold yet, synced; returns how many.
    /// - Throws: ``JournalError``: ``JournalError/Code/storage`` for a file the archive cannot
    ///   be written to (a folder, no room, no permission).
    private func appendToArchive(_ archive: URL, _ range: ClosedRange<UInt64>) throws -> UInt64 {
        do {
            return try appendToArchiveFile(archive, range)
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(.storage, "cannot write the archive \(archive.path): \(error)", cause: error)
        }
    }

    private func appendToArchiveFile(_ archive: URL, _ range: ClosedRange<UInt64>) throws -> UInt64 {
        let files = FileManager.default
        if !files.fileExists(atPath: archive.path) {
            guard files.createFile(atPath: archive.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw JournalError(.storage, "cannot create the archive \(archive.path)")
            }
        }
        // A compaction killed while it appended leaves a line without its newline: cut it off,
        // the entries it held are appended again below.
        let tail = try JSONLinesFile.completeTail(of: archive)
        let archived: UInt64?
        do {
            archived = try tail.lastLine.map { try Self.parseExportLine($0, lineNumber: 0).sequence }
        } catch let error as JournalError where error.code == .malformedExport {
            throw JournalError(
                .malformedExport, "the archive \(archive.path) does not end with a journal entry: \(error.message)",
                cause: error)
        }
        let start = max(range.lowerBound, (archived ?? 0) + 1)
        guard start <= range.upperBound else { return 0 }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: archive)
        } catch {
            throw JournalError(.storage, "cannot open the archive \(archive.path): \(error)", cause: error)
        }
        defer { try? handle.close() }
        var written: UInt64 = 0
        var buffer: [UInt8] = []
        if tail.completeBytes < tail.fileBytes {
            try handle.truncate(atOffset: tail.completeBytes)
            try handle.synchronize()
        }
        try handle.seekToEnd()
        try read { reader in
            try reader.forEachEntry(in: start...range.upperBound) { entry in
                buffer.append(contentsOf: Self.exportLine(for: entry))
                written += 1
                if buffer.count >= JSONLinesFile.chunkSizeBytes {
                    try handle.write(contentsOf: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
                return true
            }
        }
        try handle.write(contentsOf: buffer)
        try handle.synchronize()
        try FileDurability.flushDirectory(archive.deletingLastPathComponent())
        return written
    }

    /// An archive is written as JSON lines, in the clear: an encrypted store keeps none
    /// rather than copy its entries out of the seal (decision 0006).
    static func refusePlaintextArchive(encrypted: Bool) throws {
        guard encrypted else { return }
        throw JournalError(
            .unsupported,
            "an encrypted store keeps no compaction archive: the archive would hold its entries in plaintext")
    }

    // MARK: - Automatic compaction

    /// The timestamp of the entry at `sequence`, the first one kept; cached, since it never changes.
    private func firstEntryTimestamp(_ sequence: UInt64, in journalTransaction: Transaction) throws -> WallTime? {
        if let cached = lifecycle.withLock({ $0.firstEntryTimestamp }), cached.sequence == sequence {
            return cached.timestamp
        }
        let timestamp = try journalTransaction.withValue(entries, key: SequenceKey.encode(sequence)) { envelope in
            try envelope.map { try JournalEntry.timestamp(ofEnvelope: $0, expectedSequence: sequence) }
        }
        if let timestamp { lifecycle.withLock { $0.firstEntryTimestamp = (sequence, timestamp) } }
        return timestamp
    }

    /// Once compacted, the byte limit's slack is at least the projections' size divided by this.
    static let compactionSlackDivisor = 4

    /// Whether the history passed a limit of the store's retention policy by a quarter of it,
    /// judged cheaply at the end of a write: the entry count, the entries' pages, and the
    /// first entry's timestamp. Under the byte limit, the slack is also at least a quarter of
    /// the projections' size; before the first compaction, the history beyond the limit and
    /// the checkpoints must together be at least the projections' size.
    func isCompactionDue(_ end: JournalEnd, in journalTransaction: Transaction) throws -> Bool {
        let policy = options.retention
        let (horizon, lastSequence, lastTimestamp) = (end.horizon, end.lastSequence, end.lastTimestamp)
        guard policy.isLimited, policy.compactsAutomatically, lastSequence > horizon.firstSequence else {
            return false
        }
        if let count = policy.entryCount, lastSequence - horizon.firstSequence + 1 > count + count / 4 { return true }
        if let bytes = policy.journalBytes {
            // A compaction folds what it removes into the anchor in one commit (decision 0016),
            // which writes each page the entries change once: it waits until the entries it
            // would remove are worth a good part of the projections, so most pages it writes
            // take several changes, where a fixed slack rewrote a tree's pages at every page of
            // a large sync down. The first one also creates the anchor, a second copy of the
            // projections' state: it waits until what it frees, the history beyond the limit
            // and the checkpoint copies, is at least as large, so compacting never makes the
            // store larger than keeping everything would.
            // The projections' size is read only once the fixed slack is passed: most writes stop here.
            if end.journalBytes > bytes + bytes / 4 {
                let projectionBytes = try projectionEnvironment.usedBytes()
                if horizon.isCompacted {
                    if end.journalBytes > bytes + projectionBytes / Self.compactionSlackDivisor { return true }
                } else if end.journalBytes - bytes + checkpointStore(in: layout.checkpointDirectory).fileBytes()
                    >= projectionBytes
                {
                    return true
                }
            }
        }
        if let age = policy.age {
            let first = try firstEntryTimestamp(horizon.firstSequence, in: journalTransaction)
            let limit = Self.milliseconds(age)
            if let first, lastTimestamp.millisecondsSinceEpoch - first.millisecondsSinceEpoch > limit + limit / 4 {
                return true
            }
        }
        return false
    }
}
