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

    /// Trains and journals a dictionary for every soup that has none and holds at least
    /// ``compressionThresholdCount`` records; the fold of each then compresses the soup's
    /// records. A soup gets one dictionary: there is no retraining yet (decision 0030).
    ///
    /// Called after each write of the store has committed. What it writes is an optimisation,
    /// never a change of any record's value, so it reports nothing: a failed training leaves
    /// the soup's records as they are and is tried again once the soup has doubled, and a
    /// failed append is tried again after the next write.
    package func compressRecordsIfDue() {
        guard let due = try? read({ state in try soupsDueForDictionaries(state) }) else { return }
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

    /// A soup that may be due for a dictionary.
    struct DueSoup {
        var name: String
        var soupId: UInt32
        /// The span of its `_soupEntryId`s, which bounds its record count.
        var span: Int
        var count: Int
    }

    private func soupsDueForDictionaries(_ state: SoupState) throws -> [DueSoup] {
        var due: [DueSoup] = []
        let reader = ProjectionSoupReader(state: state)
        for name in try state.soupNames() {
            guard let soup = try state.catalogEntry(name) else { continue }
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
        return due
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
