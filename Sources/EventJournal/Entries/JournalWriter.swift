import Determinism
public import LMDBStore
import Logging

/// Appends entries in one write. Get one from ``Journal/write(_:)``.
///
/// Each ``append(_:)`` stores the entry in the journal's transaction and applies every
/// projection at once in the projections' transaction, so reads through ``transaction``
/// afterwards see the effect. Everything done through one writer commits together or not at all.
public struct JournalWriter {
    /// The projections' write transaction; use it to read projection state before deciding
    /// what to append.
    public let transaction: Transaction
    /// The journal's write transaction, where the entries go.
    let journalTransaction: Transaction
    let journal: Journal
    /// The sequence the next appended entry gets.
    public private(set) var nextSequence: UInt64
    private var lastTimestamp: WallTime
    private var kindDeltas = KindDeltas()
    /// The checksum of the last entry stored or folded, for the projections' fold mark.
    private var lastChecksum: UInt32?
    /// The entries appended through this writer, oldest first.
    public private(set) var appended: [JournalEntry] = []

    init(journal: Journal, transaction: Transaction, journalTransaction: Transaction) throws {
        self.journal = journal
        self.transaction = transaction
        self.journalTransaction = journalTransaction
        let tail = try Journal.lastEntryHead(of: journal.entries, in: journalTransaction)
        nextSequence = tail.sequence + 1
        lastTimestamp = tail.timestamp
    }

    /// The handle of a projection database, for reading or writing state in this transaction.
    public func database(named name: String) -> Database {
        journal.projectionContext(transaction).database(named: name)
    }

    /// The projections' state in this transaction, as a fold sees it.
    package var projectionContext: ProjectionContext {
        journal.projectionContext(transaction)
    }

    /// A reader over this write: it sees the entries appended so far and their effects.
    public var reader: JournalReader {
        JournalReader(
            transaction: transaction, entries: .transaction(journalTransaction), journal: journal,
            lastSequence: nextSequence - 1)
    }

    /// Appends one entry and applies every projection to it.
    ///
    /// The timestamp is the draft's, or the journal clock's reading; it is raised to the
    /// previous entry's timestamp when earlier, so timestamps never go backwards.
    /// - Returns: the stored entry, with its sequence.
    /// - Throws: ``JournalError/Code/invalidEntry`` for a draft that breaks the rules, or what
    ///   a projection throws; the caller's whole write is then rolled back.
    /// - Complexity: O(payload size) plus each projection's apply.
    @discardableResult
    public mutating func append(_ draft: JournalEntry.Draft) throws -> JournalEntry {
        try JournalEntry.validate(draft)
        let timestamp = max(draft.timestamp ?? journal.clock.now(), lastTimestamp)
        let entry = JournalEntry(
            sequence: nextSequence, kind: draft.kind, timestamp: timestamp, header: draft.header,
            payload: draft.payload, payloadFormat: draft.payloadFormat)
        try putAndFold(entry)
        return entry
    }

    /// Stores an already-sequenced entry (import) after checking it continues the journal;
    /// it is stored as an append would store it, compressed when that pays.
    mutating func store(_ entry: JournalEntry) throws {
        precondition(entry.sequence == nextSequence, "journal sequence must be gap-free")
        try putAndFold(entry)
    }

    /// Stores `entry` in the journal's transaction and folds it into the projections'.
    ///
    /// A large payload is compressed on a second thread while the projections fold the entry,
    /// and the entry is put once its frame is made (decision 0034). The two transactions are
    /// separate environments and no projection can read the journal's transaction (a fold sees
    /// only its ``ProjectionContext``), so putting after the fold changes nothing a fold sees;
    /// the frame is what ``PayloadCompression/compressed(_:)`` makes on this thread, so the
    /// stored bytes are the same either way.
    private mutating func putAndFold(_ entry: JournalEntry) throws {
        let options = journal.options
        guard options.compressesEntries, entry.payload.count >= options.compressionBesideFoldPayloadBytesMin
        else {
            try fold(entry, checksum: journal.putEntry(entry, in: journalTransaction))
            return
        }
        let payload = entry.payload
        let frame = WorkBeside { PayloadCompression.compressed(payload) }
        do {
            try apply(entry)
        } catch {
            // No work may outlive the write with a pooled zstd context: join, then roll back.
            _ = frame.join()
            throw error
        }
        let checksum = try journal.putEntry(StoredEnvelope(entry, frame: frame.join()), in: journalTransaction)
        folded(entry, checksum: checksum)
    }

    /// Folds an entry just stored with the envelope checksum `checksum`.
    private mutating func fold(_ entry: JournalEntry, checksum: UInt32) throws {
        try apply(entry)
        folded(entry, checksum: checksum)
    }

    /// Applies every projection to `entry` in the projections' transaction.
    private mutating func apply(_ entry: JournalEntry) throws {
        try journal.store.apply(entry, in: journal.projectionContext(transaction), kinds: &kindDeltas)
    }

    /// Notes `entry`, stored with the envelope checksum `checksum` and folded, as this write's last.
    private mutating func folded(_ entry: JournalEntry, checksum: UInt32) {
        nextSequence += 1
        lastTimestamp = entry.timestamp
        lastChecksum = checksum
        appended.append(entry)
    }

    /// Folds the entries that are in the journal but not yet in the projections: another
    /// process appended them and stopped before it folded them.
    mutating func foldTail(after folded: FoldMark) throws {
        let last = nextSequence - 1
        precondition(folded.sequence <= last, "the projections are ahead of the journal")
        guard folded.sequence < last else { return }
        journal.logger.notice(
            "folding entries another process appended",
            metadata: ["journal.from": "\(folded.sequence + 1)", "journal.to": "\(last)"])
        let context = journal.projectionContext(transaction)
        try JournalReader.forEachStoredEntry(
            of: journal.entries, in: journalTransaction, (folded.sequence + 1)...last
        ) { entry, checksum in
            try journal.store.apply(entry, in: context, kinds: &kindDeltas)
            lastChecksum = checksum
            return true
        }
    }

    /// Writes what one write changes once: the kind counts, the projections' fold mark and
    /// the note that they hold unsynced writes.
    /// - Returns: whether a newer synced snapshot, a checkpoint, and a compaction are due.
    func finish() throws -> (snapshotDue: Bool, checkpointDue: Bool, compactionDue: Bool) {
        guard let lastChecksum else { return (false, false, false) }
        try journal.noteUnsyncedProjections(in: journalTransaction)
        try journal.store.write(kindDeltas, in: transaction)
        try journal.store.record(FoldMark(sequence: nextSequence - 1, checksum: lastChecksum), in: transaction)
        let end = JournalEnd(
            lastSequence: nextSequence - 1, lastTimestamp: lastTimestamp,
            journalBytes: try journalTransaction.statistics(journal.entries).pageBytes,
            horizon: try Journal.horizon(meta: journal.meta, in: journalTransaction))
        return (
            try journal.isSnapshotDue(end),
            try journal.isCheckpointDue(end, in: journalTransaction),
            try journal.isCompactionDue(end, in: journalTransaction)
        )
    }
}
