/// A value read from the journal's projections, yielded now and again after every commit that
/// changes it; made by ``Journal/observeValue(reevaluatingFor:read:)``.
///
/// Each iteration reads the value in one snapshot of the projections, so a value never mixes
/// two commits. After the first value, the observation wakes when the fold mark moves (a commit
/// through this journal wakes it at once, another process's within
/// ``ObservationOptions/pollInterval``), reads the entries appended since the snapshot it last
/// read and reads the value again only if one of them is relevant. It yields only a value that
/// differs from the last one it yielded.
///
/// Values are the latest, not a log: when several commits land before the consumer asks for
/// the next value, it gets the value after the last of them. Observe
/// ``Journal/observeEntries(after:)`` for every entry.
///
/// The observation ends (the iterator returns `nil`) when the task iterating is cancelled or
/// the journal is closed; dropping the iterator, or leaving the `for` loop, ends it too. Each
/// live iterator counts as one observer of the journal.
public struct JournalValueObservation<Value: Equatable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    public typealias Failure = any Error

    let journal: Journal
    let isRelevant: @Sendable (JournalEntry) -> Bool
    let value: @Sendable (JournalReader) throws -> Value

    /// Starts observing: the first call to `next()` reads the current value.
    public func makeAsyncIterator() -> Iterator {
        Iterator(observation: self, subscription: JournalSubscription(journal))
    }

    /// Reads the value when asked and after relevant commits.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        public typealias Element = Value
        public typealias Failure = any Error

        let observation: JournalValueObservation
        let subscription: JournalSubscription
        /// The fold mark of the snapshot last read; `nil` before the first value.
        private var seen: UInt64?
        private var last: Value?
        private var isFinished = false

        init(observation: JournalValueObservation, subscription: JournalSubscription) {
            self.observation = observation
            self.subscription = subscription
        }

        /// The current value on the first call; afterwards the next value that differs from
        /// the last one yielded, once a commit makes it.
        ///
        /// - Returns: `nil` once the task is cancelled or the journal is closed.
        /// - Throws: what the value's closure throws, or a ``JournalError`` for storage trouble;
        ///   the observation then ends.
        public mutating func next() async throws -> Value? {
            guard !isFinished else { return nil }
            do {
                guard let value = try await nextValue() else {
                    isFinished = true
                    return nil
                }
                last = value
                return value
            } catch JournalError.Code.closed {
                isFinished = true
                return nil
            } catch {
                isFinished = true
                throw error
            }
        }

        private mutating func nextValue() async throws -> Value? {
            guard let seen else {
                if Task.isCancelled { return nil }
                let (value, through) = try observation.journal.read { reader in
                    (try observation.value(reader), try reader.lastSequence)
                }
                self.seen = through
                return value
            }
            var waitAfter = seen
            while true {
                guard let noticed = await subscription.wait(after: waitAfter) else { return nil }
                waitAfter = noticed
                guard let step = try readStep() else { continue }
                self.seen = step.through
                waitAfter = Swift.max(waitAfter, step.through)
                if let value = step.value, value != last { return value }
            }
        }

        /// What one wake-up found: the snapshot's fold mark, and the value when an entry since
        /// the last snapshot was relevant; `nil` when the snapshot is not past the last one.
        private func readStep() throws -> (through: UInt64, value: Value?)? {
            guard let seen else { return nil }
            return try observation.journal.read { reader in
                let through = try reader.lastSequence
                guard through > seen else { return nil }
                // Entries compaction removed since the last read cannot be looked at: read the
                // value again rather than guess.
                var isRelevant = try reader.firstSequence > seen + 1
                if !isRelevant {
                    try reader.forEachEntry(in: (seen + 1)...through) { entry in
                        isRelevant = observation.isRelevant(entry)
                        return !isRelevant
                    }
                }
                guard isRelevant else { return (through, nil) }
                observation.journal.observers.countEvaluation()
                return (through, try observation.value(reader))
            }
        }
    }
}
