public import LMDBStore

/// Reads the journal and projection state from one consistent snapshot. Get one from
/// ``Journal/read(_:)``.
public struct JournalReader {
    /// The read transaction.
    public let transaction: Transaction
    let journal: Journal

    /// The handle of a projection database.
    public func database(named name: String) -> Database {
        journal.projectionContext(transaction).database(named: name)
    }

    /// The sequence of the last entry, or 0 for an empty journal.
    public var lastSequence: UInt64 {
        get throws { try journal.lastEntryHead(in: transaction).sequence }
    }

    /// The entry at `sequence`, or `nil` when there is none.
    ///
    /// - Throws: ``JournalError/Code/corruptEntry`` when it fails its checksum.
    /// - Complexity: O(log n + entry size).
    public func entry(at sequence: UInt64) throws -> JournalEntry? {
        try transaction.withValue(journal.entries, key: SequenceKey.encode(sequence)) { bytes in
            guard let bytes else { return nil }
            return try JournalEntry(envelope: bytes, expectedSequence: sequence)
        }
    }

    /// Visits the entries with sequences in `range`, oldest first (or newest first with
    /// `reverse`), until `body` returns `false`. Each entry's checksum is verified.
    ///
    /// - Throws: ``JournalError/Code/corruptEntry`` at the first corrupt entry,
    ///   ``JournalError/Code/gap`` when a sequence is missing.
    public func forEachEntry(
        in range: ClosedRange<UInt64>, reverse: Bool = false, _ body: (JournalEntry) throws -> Bool
    ) throws {
        let keys = KeyRange(
            from: SequenceKey.encode(range.lowerBound), to: SequenceKey.encode(range.upperBound),
            includesUpperBound: true)
        var expected: UInt64? = nil
        try transaction.withCursor(journal.entries) { cursor in
            try cursor.forEach(in: keys, reverse: reverse) { key, value in
                guard let sequence = SequenceKey.decode(key) else {
                    throw JournalError(.corruptEntry, "journal key of \(key.count) bytes is not a sequence number")
                }
                if let expected, expected != sequence {
                    throw JournalError(
                        .gap, "journal entry \(expected) is missing (found \(sequence) next)", sequence: expected)
                }
                expected = reverse ? sequence &- 1 : sequence &+ 1
                let entry = try value.withUnsafeBytes { try JournalEntry(envelope: $0, expectedSequence: sequence) }
                return try body(entry)
            }
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

    /// How many entries of `kind` the journal holds. O(log k) in the number of kinds.
    public func count(of kind: JournalEntry.Kind) throws -> UInt64 {
        try transaction.get(journal.kinds, key: Array(kind.rawValue.utf8)).flatMap(SequenceKey.decode) ?? 0
    }

    /// The number of entries of every kind present.
    public func kindCounts() throws -> [JournalEntry.Kind: UInt64] {
        var counts: [JournalEntry.Kind: UInt64] = [:]
        try transaction.withCursor(journal.kinds) { cursor in
            try cursor.forEach { key, value in
                counts[JournalEntry.Kind(rawValue: String(decoding: key, as: UTF8.self))] = SequenceKey.decode(value)
                return true
            }
        }
        return counts
    }
}
