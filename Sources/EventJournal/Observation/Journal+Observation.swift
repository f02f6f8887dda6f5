// Observation (decision 0004): async sequences of new entries and of values read from the
// projections, woken by this instance's commits and, for other processes' commits, by one
// watcher per journal that checks the fold mark while anything observes.
extension Journal {
    /// The entries appended after `sequence`, oldest first, then each entry as it is committed.
    ///
    /// ```swift
    /// for try await entry in try journal.observeEntries() {
    ///     print(entry.sequence, entry.kind)
    /// }
    /// ```
    ///
    /// Every entry is yielded exactly once and in order, with no gap, whichever process
    /// appended it. An entry is yielded once the projections have folded it, as reads see it.
    /// - Parameter sequence: yield the entries after this one; `nil` (the default) starts after
    ///   the journal's last entry now, so only entries committed from now on are yielded. A
    ///   sequence before the journal's horizon makes the first `next()` throw
    ///   ``JournalError/Code/belowHorizon``: compaction removed those entries.
    /// - Throws: ``JournalError/Code/closed`` when the journal is closed, or storage trouble
    ///   reading its last sequence.
    public func observeEntries(after sequence: UInt64? = nil) throws(JournalError) -> JournalEntryObservation {
        let start: UInt64
        if let sequence {
            start = sequence
        } else {
            do {
                start = try lastSequence()
            } catch {
                throw error as? JournalError
                    ?? JournalError(.storage, "cannot read the journal's last sequence: \(error)", cause: error)
            }
        }
        return JournalEntryObservation(journal: self, start: start)
    }

    /// A value read from the projections: now, then again whenever a relevant entry is
    /// committed and the value differs from the last one yielded.
    ///
    /// ```swift
    /// let notes = journal.observeValue(
    ///     reevaluatingFor: { $0.kind == "note.added" }, read: { try $0.count(of: "note.added") })
    /// for try await count in notes { print(count) }
    /// ```
    ///
    /// - Parameters:
    ///   - isRelevant: whether an entry may change the value. Only when an entry committed
    ///     since the last read answers `true` is the value read again; answer `true` for every
    ///     entry the value's projections fold that could change it.
    ///   - value: reads the value in one snapshot; it runs on the iterating task, once per
    ///     relevant wake-up, and must not write.
    /// - Returns: an observation; nothing is read until it is iterated.
    public func observeValue<Value: Equatable & Sendable>(
        reevaluatingFor isRelevant: @escaping @Sendable (JournalEntry) -> Bool,
        read value: @escaping @Sendable (JournalReader) throws -> Value
    ) -> JournalValueObservation<Value> {
        JournalValueObservation(journal: self, isRelevant: isRelevant, value: value)
    }

    /// What the journal's observers are doing: for tests that check that ending an observation
    /// frees its observer and, with the last one, the watcher.
    package var observerStatistics: JournalObserverStatistics {
        observers.statistics
    }
}
