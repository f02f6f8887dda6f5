public import LMDBStore

/// Reads the journal and one consistent snapshot of the projections. Get one from
/// ``Journal/read(_:)`` or ``JournalWriter/reader``.
public struct JournalReader {
    /// The projections' read transaction.
    public let transaction: Transaction
    let entrySource: EntrySource
    let journal: Journal
    /// The snapshot's last entry when it is known without reading it (inside a write).
    private let knownLastSequence: UInt64?

    /// Where the entries are read from.
    enum EntrySource {
        /// A transaction the caller already holds (a write's).
        case transaction(Transaction)
        /// A read transaction begun when an entry is first read.
        case deferred(DeferredReadTransaction)
    }

    init(transaction: Transaction, entries: EntrySource, journal: Journal, lastSequence: UInt64? = nil) {
        self.transaction = transaction
        self.entrySource = entries
        self.journal = journal
        knownLastSequence = lastSequence
    }

    /// The handle of a projection database.
    public func database(named name: String) -> Database {
        journal.projectionContext(transaction).database(named: name)
    }

    /// The projections' state in this transaction, as a fold sees it.
    package var projectionContext: ProjectionContext {
        journal.projectionContext(transaction)
    }

    /// The sequence of the last entry folded into this snapshot, or 0 for an empty journal.
    ///
    /// The projections are always folded to the journal's end before the journal reads them,
    /// so this is the journal's last entry as of the snapshot.
    public var lastSequence: UInt64 {
        get throws {
            if let knownLastSequence { return knownLastSequence }
            return try journal.store.foldedThrough(transaction).sequence
        }
    }

    /// The entry at `sequence`, or `nil` when there is none.
    ///
    /// - Throws: ``JournalError/Code/corruptEntry`` when it fails its checksum.
    /// - Complexity: O(log n + entry size).
    /// - Throws: ``JournalError/Code/belowHorizon`` for an entry compaction removed.
    public func entry(at sequence: UInt64) throws -> JournalEntry? {
        // Entries past the snapshot belong to a later state: another writer may have appended
        // them after this snapshot began.
        guard sequence <= (try lastSequence), sequence > 0 else { return nil }
        let horizon = try self.horizon
        guard sequence >= horizon.firstSequence else {
            throw horizon.belowHorizonError(sequence, asking: "cannot read entry \(sequence)")
        }
        return try entryTransaction().withValue(journal.entries, key: SequenceKey.encode(sequence)) { bytes in
            guard let bytes else { return nil }
            return try JournalEntry(envelope: bytes, expectedSequence: sequence)
        }
    }

    /// Visits the entries with sequences in `range` (up to the snapshot's last), oldest first
    /// (or newest first with `reverse`), until `body` returns `false`. Each entry's checksum
    /// is verified.
    ///
    /// - Throws: ``JournalError/Code/corruptEntry`` at the first corrupt entry,
    ///   ``JournalError/Code/gap`` when a sequence is missing, ``JournalError/Code/belowHorizon``
    ///   when `range` starts before the ``horizon`` (read from ``firstSequence`` instead).
    public func forEachEntry(
        in range: ClosedRange<UInt64>, reverse: Bool = false, _ body: (JournalEntry) throws -> Bool
    ) throws {
        let last = try lastSequence
        guard range.lowerBound <= last else { return }
        let horizon = try self.horizon
        guard range.lowerBound >= horizon.firstSequence else {
            throw horizon.belowHorizonError(
                range.lowerBound, asking: "cannot read entries \(range.lowerBound)...\(range.upperBound)")
        }
        let clamped = range.lowerBound...min(range.upperBound, last)
        try Self.forEachStoredEntry(of: journal.entries, in: entryTransaction(), clamped, reverse: reverse) {
            entry, _ in
            try body(entry)
        }
    }

    /// The entries with sequences in `range`, oldest first.
    public func entries(in range: ClosedRange<UInt64>) throws -> [JournalEntry] {
        var entries: [JournalEntry] = []
        try forEachEntry(in: range) { entry in
            entries.append(entry)
            return true
        }
        return entries
    }

    /// How many entries of `kind` the snapshot holds. O(log k) in the number of kinds.
    public func count(of kind: JournalEntry.Kind) throws -> UInt64 {
        try transaction.get(journal.store.kinds, key: Array(kind.rawValue.utf8)).flatMap(SequenceKey.decode) ?? 0
    }

    /// The number of entries of every kind present.
    public func kindCounts() throws -> [JournalEntry.Kind: UInt64] {
        try journal.store.kindCounts(transaction)
    }

    /// Where the journal begins: entries before it were compacted away.
    public var horizon: JournalHorizon {
        get throws { try Journal.horizon(meta: journal.meta, in: entryTransaction()) }
    }

    /// The first entry this snapshot holds: 1 unless the journal was compacted; past
    /// ``lastSequence`` for an empty journal. Scans of the whole journal start here.
    public var firstSequence: UInt64 {
        get throws { try horizon.firstSequence }
    }

    /// The checksum a state folded through `sequence` records, when the journal can continue
    /// it (see `Journal.continuableChecksum`).
    func continuableChecksum(of sequence: UInt64) throws -> UInt32? {
        try Journal.continuableChecksum(
            of: sequence, entries: journal.entries, meta: journal.meta, in: entryTransaction())
    }

    func entryTransaction() throws -> Transaction {
        switch entrySource {
        case .transaction(let transaction): transaction
        case .deferred(let deferred): try deferred.transaction()
        }
    }

    /// Visits the stored entries of `range` with their checksums, checking each and that no
    /// sequence is missing.
    static func forEachStoredEntry(
        of entries: Database, in transaction: Transaction, _ range: ClosedRange<UInt64>, reverse: Bool = false,
        _ body: (_ entry: JournalEntry, _ checksum: UInt32) throws -> Bool
    ) throws {
        let keys = KeyRange(
            from: SequenceKey.encode(range.lowerBound), to: SequenceKey.encode(range.upperBound),
            includesUpperBound: true)
        var expected: UInt64 = reverse ? range.upperBound : range.lowerBound
        func visit(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool {
            guard key.count == 8 else {
                throw JournalError(.corruptEntry, "journal key of \(key.count) bytes is not a sequence number")
            }
            let sequence = key.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard expected == sequence else {
                throw JournalError(
                    .gap, "journal entry \(expected) is missing (found \(sequence) next)", sequence: expected)
            }
            let entry = try JournalEntry(envelope: value, expectedSequence: sequence)
            guard try body(entry, value.loadLittleEndianUInt32(at: value.count - 4)) else { return false }
            expected = reverse ? sequence &- 1 : sequence &+ 1
            return true
        }
        try transaction.withCursor(entries) { cursor in
            if reverse {
                try cursor.forEach(in: keys, reverse: true) { key, value in
                    try key.withUnsafeBytes { key in try value.withUnsafeBytes { try visit(key, $0) } }
                }
            } else {
                // In place: a scan of the journal decodes each envelope straight from the map.
                try cursor.forEachInPlace(in: keys, visit)
            }
        }
    }
}
