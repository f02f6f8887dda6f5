/// The entries appended to a journal after a sequence, in order, as they are committed; made by
/// ``Journal/observeEntries(after:)``.
///
/// Every entry is yielded once, with no gap, whichever process appended it: the observation
/// reads the journal from the last sequence it yielded up to the projections' fold mark, so an
/// entry shows once it is folded (at once for this journal's own commits, within
/// ``ObservationOptions/pollInterval`` for another process's).
///
/// The observation ends (the iterator returns `nil`) when the task iterating is cancelled or
/// the journal is closed; dropping the iterator ends it too.
public struct JournalEntryObservation: AsyncSequence, Sendable {
    public typealias Element = JournalEntry
    public typealias Failure = JournalError

    let journal: Journal
    /// The sequence after which entries are yielded.
    public let start: UInt64

    /// The most entries read in one read transaction, so a consumer far behind catches up in
    /// bounded steps.
    static let batchCountMax = 256
    /// The most payload bytes read in one transaction, beyond the first entry: server pages can
    /// be megabytes each.
    static let batchPayloadBytesMax = 8 << 20

    /// Starts observing from ``start``.
    public func makeAsyncIterator() -> Iterator {
        Iterator(journal: journal, start: start)
    }

    /// Reads entries in batches as they are committed.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        public typealias Element = JournalEntry
        public typealias Failure = JournalError

        let subscription: JournalSubscription
        /// The last sequence read into ``pending`` or yielded.
        private var through: UInt64
        /// Entries read but not yet yielded, newest first.
        private var pending: [JournalEntry] = []
        private var isFinished = false

        init(journal: Journal, start: UInt64) {
            subscription = JournalSubscription(journal)
            through = start
        }

        /// The next entry, waiting for it to be committed.
        ///
        /// - Returns: `nil` once the task is cancelled or the journal is closed.
        /// - Throws: ``JournalError`` when an entry cannot be read (a corrupt entry, a gap,
        ///   storage trouble), or ``JournalError/Code/belowHorizon`` when compaction removed
        ///   entries before they were yielded (an observer that fell behind a compaction, or a
        ///   start before the ``JournalReader/horizon``); the observation then ends.
        public mutating func next() async throws(JournalError) -> JournalEntry? {
            guard !isFinished else { return nil }
            while pending.isEmpty {
                if Task.isCancelled {
                    isFinished = true
                    return nil
                }
                do {
                    try readBatch()
                } catch {
                    isFinished = true
                    if error.code == .closed { return nil }
                    throw error
                }
                guard pending.isEmpty else { break }
                guard await subscription.wait(after: through) != nil else {
                    isFinished = true
                    return nil
                }
            }
            return pending.popLast()
        }

        /// Reads the entries after ``through`` that the projections have folded, up to a batch.
        private mutating func readBatch() throws(JournalError) {
            let start = through
            let batch: [JournalEntry]
            do {
                batch = try subscription.journal.read { reader in
                    let last = try reader.lastSequence
                    guard last > start else { return [] }
                    var batch: [JournalEntry] = []
                    var payloadBytes = 0
                    try reader.forEachEntry(in: (start + 1)...last) { entry in
                        batch.append(entry)
                        payloadBytes += entry.payload.count
                        return batch.count < JournalEntryObservation.batchCountMax
                            && payloadBytes < JournalEntryObservation.batchPayloadBytesMax
                    }
                    return batch
                }
            } catch {
                throw error as? JournalError
                    ?? JournalError(.storage, "cannot read the entries after \(start): \(error)", cause: error)
            }
            guard let newest = batch.last else { return }
            through = newest.sequence
            pending = batch.reversed()
        }
    }
}
