import EventJournal
import LMDBStore
import LosslessJSON
import Synchronization

// When the store trains a soup's dictionary and journals it (decision 0030). The fold never
// trains: it only folds the `soup.dictionary` entries the store appends.
extension SoupStore {
    /// A soup's records are compressed once it holds at least this many: enough for a
    /// dictionary to learn what they share, and few enough that a small soup, whose records
    /// cost little, never pays for training.
    package static let compressionThresholdCount = 1_000
    /// The most records a dictionary is trained from, evenly spaced by `_soupEntryId`.
    static let dictionarySampleCountMax = 2_000

    /// The most records one `soup.recompressed` entry stores again: a commit of a few tens of
    /// milliseconds, so no write after a soup's dictionary comes waits for the whole soup
    /// (decision 0033).
    package static let recompressionEntryCountMax = 2_000

    /// Trains and journals a dictionary for every soup that has none and holds at least
    /// ``compressionThresholdCount`` records, then journals one batch of the records still stored
    /// as JSON. A soup gets one dictionary: there is no retraining yet (decision 0030).
    ///
    /// Called after each write of the store has committed, so the records of a soup that has
    /// just grown past the threshold are compressed a batch per write (decision 0033). What it
    /// writes is an optimisation, never a change of any record's value, so it reports nothing:
    /// a failed training leaves the soup's records as they are and is tried again once the soup
    /// has doubled, and a failed append is tried again after the next write.
    package func compressRecordsIfDue() {
        guard let work = try? read({ state in try compressionWork(state) }) else { return }
        journalDictionaries(for: work.due)
        if work.hasPendingRecords || !work.due.isEmpty { _ = try? journalNextRecompression() }
    }

    /// Compresses every record that can be: trains and journals the dictionaries of the soups
    /// due for one, then journals every record still stored as JSON, a batch per commit.
    ///
    /// A store written before record compression, or whose soups passed the threshold in
    /// writes that have not compressed them all yet, otherwise compresses them a batch after
    /// each write. An app calls this after opening such a store to do the work up front, with
    /// progress; `SyncStore` does when it opens. Records read the same before, during and after.
    ///
    /// - Parameter progress: called after each batch with (records compressed, records to
    ///   compress), when there are records to compress.
    /// - Throws: ``SoupError`` when a batch cannot be journaled (the batches before it stay).
    /// - Complexity: O(n) in the records still stored as JSON, each opened and compressed once.
    public func compressRecords(progress: ((_ compressed: Int, _ total: Int) -> Void)? = nil) throws {
        journalDictionaries(for: try read { state in try compressionWork(state).due })
        let total = try read { state in try pendingRecordCount(state) }
        var compressed = 0
        while let count = try journalNextRecompression() {
            guard total > 0 else { continue }
            compressed = min(compressed + count, total)
            progress?(compressed, total)
        }
    }

    /// Trains a dictionary for each of `due` and journals it; a soup whose training fails is
    /// looked at again once it has doubled.
    private func journalDictionaries(for due: [DueSoup]) {
        for soup in due {
            let dictionary = (try? read { state in try dictionarySample(of: soup, state) })
                .flatMap(RecordDictionaryTrainer.dictionary(from:))
            guard let dictionary else {
                compressionLookAgain.withLock { $0[soup.soupId] = Self.doubled(soup.span) }
                continue
            }
            _ = try? journal.write { writer in
                let state = SoupState(
                    transaction: writer.transaction, databases: SoupDatabases.of(writer.projectionContext),
                    catalogCache: catalogCache)
                // Another store of this journal may have journaled one since the read above.
                guard try state.catalogEntry(soup.name)?.soupId == soup.soupId,
                    try state.currentDictionaryId(soup.soupId) == nil
                else { return }
                let entry = SoupDictionaryEntry(soup: soup.name, id: 1, bytes: dictionary)
                try append(.dictionary, soup: soup.name, entry.payload, to: &writer)
            }
        }
    }

    /// Journals the next batch of records still stored as JSON, of the first soup that has
    /// some, and returns how many records it holds; `nil` when no soup has any.
    ///
    /// The batch is chosen inside the write that journals it, so stores of one journal in
    /// several processes never journal a batch against a state they have not seen.
    private func journalNextRecompression() throws(SoupError) -> Int? {
        do {
            return try journalNextRecompressionUnwrapped()
        } catch {
            throw Self.wrap(error)
        }
    }

    private func journalNextRecompressionUnwrapped() throws -> Int? {
        try journal.write { writer -> Int? in
            let state = SoupState(
                transaction: writer.transaction, databases: SoupDatabases.of(writer.projectionContext),
                catalogCache: catalogCache)
            for name in try state.soupNames() {
                guard let soup = try state.catalogEntry(name),
                    let pending = try state.pendingRecompression(soup.soupId),
                    let dictionaryId = try state.currentDictionaryId(soup.soupId)
                else { continue }
                var count = 0
                var through = pending.upperBound
                try state.forEachRecordKey(soup.soupId, from: pending.lowerBound) { key in
                    let entryId = SoupDatabases.entryId(ofKey: key)
                    guard entryId <= pending.upperBound else { return false }
                    count += 1
                    through = entryId
                    return count < Self.recompressionEntryCountMax
                }
                // A range whose records were all deleted is journaled too: its fold clears it.
                let batch = SoupRecompressionEntry(
                    soup: name, dictionaryId: dictionaryId, from: pending.lowerBound, through: through)
                try append(.recompressed, soup: name, batch.payload, to: &writer)
                return count
            }
            return nil
        }
    }

    /// How many records of all soups are still stored as JSON since their dictionary came.
    private func pendingRecordCount(_ state: SoupState) throws -> Int {
        var count = 0
        for name in try state.soupNames() {
            guard let soup = try state.catalogEntry(name), let pending = try state.pendingRecompression(soup.soupId)
            else { continue }
            try state.forEachRecordKey(soup.soupId, from: pending.lowerBound) { key in
                guard SoupDatabases.entryId(ofKey: key) <= pending.upperBound else { return false }
                count += 1
                return true
            }
        }
        return count
    }

    /// A soup that may be due for a dictionary.
    struct DueSoup {
        var name: String
        var soupId: UInt32
        /// The span of its `_soupEntryId`s, which bounds its record count.
        var span: Int
        var count: Int
    }

    /// What is left to compress: the soups due for a dictionary, and whether some soup has
    /// records still stored as JSON since its dictionary came. One walk of the catalog answers
    /// both, since it runs after every write.
    private func compressionWork(_ state: SoupState) throws -> (due: [DueSoup], hasPendingRecords: Bool) {
        var due: [DueSoup] = []
        var hasPendingRecords = false
        let reader = ProjectionSoupReader(state: state)
        for name in try state.soupNames() {
            guard let soup = try state.catalogEntry(name) else { continue }
            if !hasPendingRecords, try state.pendingRecompression(soup.soupId) != nil { hasPendingRecords = true }
            // Two cursor moves bound the count; the soup is only counted once that bound is
            // past the threshold, and past where it last fell short.
            let span = try reader.estimatedRecordCount(of: ProjectionSoupReader.smartSoup(soup))
            let lookAgain = compressionLookAgain.withLock { $0[soup.soupId] } ?? Self.compressionThresholdCount
            guard span >= lookAgain else { continue }
            guard try state.currentDictionaryId(soup.soupId) == nil else {
                // One dictionary per soup, and soup ids are never reused: never look again.
                compressionLookAgain.withLock { $0[soup.soupId] = Int.max }
                continue
            }
            var count = 0
            try state.forEachRecordKey(soup.soupId) { _ in
                count += 1
                return true
            }
            guard count >= Self.compressionThresholdCount else {
                compressionLookAgain.withLock { $0[soup.soupId] = Self.doubled(span) }
                continue
            }
            due.append(DueSoup(name: name, soupId: soup.soupId, span: span, count: count))
        }
        return (due, hasPendingRecords)
    }

    /// Twice `span`, or `Int.max` past it.
    private static func doubled(_ span: Int) -> Int {
        span > Int.max / 2 ? Int.max : span * 2
    }

    /// Up to ``dictionarySampleCountMax`` records of `soup`, evenly spaced in key order, as JSON.
    private func dictionarySample(of soup: DueSoup, _ state: SoupState) throws -> [[UInt8]] {
        let sampleCount = min(soup.count, Self.dictionarySampleCountMax)
        var keys: [[UInt8]] = []
        keys.reserveCapacity(sampleCount)
        var position = 0
        try state.forEachRecordKey(soup.soupId) { key in
            // The record at each position i·count/sampleCount, with integer arithmetic.
            if keys.count < sampleCount, position == keys.count * soup.count / sampleCount { keys.append(key) }
            position += 1
            return keys.count < sampleCount
        }
        return try keys.compactMap { key in
            try state.recordJSON(soup.soupId, SoupDatabases.entryId(ofKey: key))
        }
    }
}
