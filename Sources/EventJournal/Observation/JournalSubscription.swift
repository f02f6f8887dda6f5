/// One observer of a journal, for as long as its iterator lives.
///
/// A class so that dropping the last copy of an iterator — leaving a `for` loop, a cancelled
/// task returning — unregisters the observer, and the last one stops the journal's watcher.
final class JournalSubscription: Sendable {
    let journal: Journal
    let key: UInt64

    init(_ journal: Journal) {
        self.journal = journal
        key = journal.observers.register(journal)
    }

    deinit {
        journal.observers.unregister(key)
    }

    /// Waits until the projections are folded past `sequence`.
    /// - Returns: the fold mark noticed, or `nil` when the journal closed or the task was cancelled.
    func wait(after sequence: UInt64) async -> UInt64? {
        await journal.observers.wait(after: sequence)
    }
}
