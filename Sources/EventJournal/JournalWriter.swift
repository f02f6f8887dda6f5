public import LMDBStore
import SyncCore

/// Appends entries inside one write transaction. Get one from ``Journal/write(_:)``.
///
/// Each ``append(_:)`` applies every projection at once, so reads through ``transaction``
/// afterwards see the effect. Everything done through one writer commits together or not at all.
public struct JournalWriter {
    /// The write transaction; use it to read projection state before deciding what to append.
    public let transaction: Transaction
    let journal: Journal
    /// The sequence the next appended entry gets.
    public private(set) var nextSequence: UInt64
    private var lastTimestamp: WallTime
    private var kindCountDeltas: [JournalEntry.Kind: UInt64] = [:]
    /// The entries appended through this writer, oldest first.
    public private(set) var appended: [JournalEntry] = []

    init(journal: Journal, transaction: Transaction) throws {
        self.journal = journal
        self.transaction = transaction
        let tail = try journal.lastEntryHead(in: transaction)
        nextSequence = tail.sequence + 1
        lastTimestamp = tail.timestamp
    }

    /// The handle of a projection database, for reading or writing state in this transaction.
    public func database(named name: String) -> Database {
        journal.projectionContext(transaction).database(named: name)
    }

    /// A reader over this transaction: it sees the entries appended so far and their effects.
    public var reader: JournalReader {
        JournalReader(transaction: transaction, journal: journal)
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
        try store(entry, envelope: entry.envelope())
        return entry
    }

    /// Stores an already-sequenced entry (import) after checking it continues the journal.
    mutating func store(_ entry: JournalEntry, envelope: [UInt8]) throws {
        precondition(entry.sequence == nextSequence, "journal sequence must be gap-free")
        try transaction.put(
            journal.entries, key: SequenceKey.encode(entry.sequence), value: envelope, options: .append)
        let context = journal.projectionContext(transaction)
        for projection in journal.projections {
            try projection.apply(entry, in: context)
        }
        kindCountDeltas[entry.kind, default: 0] += 1
        nextSequence += 1
        lastTimestamp = entry.timestamp
        appended.append(entry)
    }

    /// Writes the per-kind counters once per transaction rather than once per entry.
    func finish() throws {
        for (kind, delta) in kindCountDeltas {
            let key = Array(kind.rawValue.utf8)
            let current = try transaction.get(journal.kinds, key: key).flatMap(SequenceKey.decode) ?? 0
            try transaction.put(journal.kinds, key: key, value: SequenceKey.encode(current + delta))
        }
    }
}
